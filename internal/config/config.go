// Package config loads the service configuration of `toolwarden serve` and
// `toolwarden executor`: one YAML file (optional), then TOOLWARDEN_*
// environment variables, then command-line flags, each overriding the one
// before. Key names follow the execution-governance design
// (agent.tool_timeout_minutes, multi_agent.eino_middleware.
// reduction_max_length_for_trunc, security.process_isolation.*) so an
// operator's existing configuration reads the same.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/file"
	"github.com/knadh/koanf/v2"

	"github.com/toolwarden/toolwarden/internal/egress"
	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/isolation"
	"github.com/toolwarden/toolwarden/internal/mcp/gateway"
	"github.com/toolwarden/toolwarden/internal/scanlog"
	"github.com/toolwarden/toolwarden/internal/secrets"
	"github.com/toolwarden/toolwarden/internal/workspace"
)

// Config is the whole service configuration.
type Config struct {
	// Listen is the API address (loopback by default).
	Listen string `koanf:"listen"`
	// DataDir holds the embedded store, the key store and spilled output.
	DataDir string `koanf:"data_dir"`
	// Policy is "default", "strict" or a policy file path.
	Policy string `koanf:"policy"`
	// RedisURL selects the Redis backend (redis://host:port/db) when set.
	RedisURL string `koanf:"redis_url"`
	// RedisPrefix namespaces every Redis key of this deployment.
	RedisPrefix string `koanf:"redis_prefix"`
	// RedisTLSCAFile is a PEM CA bundle trusted for rediss:// URLs besides
	// the system roots.
	RedisTLSCAFile string `koanf:"redis_tls_ca_file"`
	// EmbeddedExecutor runs an executor inside `serve` (default true).
	EmbeddedExecutor bool `koanf:"embedded_executor"`
	// Concurrency is the number of runs one executor runs at once.
	Concurrency int `koanf:"executor_concurrency"`
	// RatePerSecond and RateBurst limit API requests per key.
	RatePerSecond float64 `koanf:"rate_per_second"`
	RateBurst     int     `koanf:"rate_burst"`

	Agent      Agent      `koanf:"agent"`
	MultiAgent MultiAgent `koanf:"multi_agent"`
	// ReductionRootDir is where oversized outputs are written
	// (<data_dir>/reduction when empty).
	ReductionRootDir string `koanf:"reduction_root_dir"`

	// Isolation is security.process_isolation.
	Isolation isolation.Config `koanf:"-"`
	// Security holds the security.* keys other than process_isolation.
	Security Security `koanf:"security"`

	// MCP is the MCP gateway: upstream MCP servers toolwarden guards and
	// their isolation limits (external_mcp_*).
	MCP gateway.Config `koanf:"mcp"`

	// Plugins configures uploaded rule plugins (plugins.*).
	Plugins Plugins `koanf:"plugins"`

	// ScanLog is scanlog.*: the bounded, redacted log of recent scans
	// (enabled, max_entries, retention, max_content_bytes).
	ScanLog scanlog.Config `koanf:"scanlog"`
}

// Plugins holds the plugins.* keys: uploaded rule plugins, their default
// limits and what an upload must satisfy.
type Plugins struct {
	// Enabled serves the /v1/plugins routes and loads the active set
	// (default true).
	Enabled bool `koanf:"enabled"`
	// MaxModuleBytes caps an uploaded module (default 16 MiB).
	MaxModuleBytes int `koanf:"max_module_bytes"`
	// RequireSignature refuses modules without a minisign signature by
	// one of TrustedKeys (default false; a signature that is present is
	// always checked).
	RequireSignature bool `koanf:"require_signature"`
	// TrustedKeys are minisign public keys (the base64 "RWQ…" line).
	TrustedKeys []string `koanf:"trusted_keys"`
	// DefaultDeadline is a plugin's per-call deadline unless its manifest
	// sets one (default 250ms).
	DefaultDeadline time.Duration `koanf:"default_deadline"`
	// DefaultMemoryPages caps an instance's memory in 64 KiB pages unless
	// the manifest sets it (default 1024 = 64 MiB).
	DefaultMemoryPages int `koanf:"default_memory_pages"`
	// DefaultPoolSize is a plugin's instance count unless the manifest
	// sets it (default 2).
	DefaultPoolSize int `koanf:"default_pool_size"`
	// AllowRuleOverride lets a manifest's override_rules reuse rule ids
	// of built-in packs or other plugins (default false).
	AllowRuleOverride bool `koanf:"allow_rule_override"`
	// AllowFailOpen lets a manifest ask for failure_policy: fail_open
	// (default false: every plugin fails closed).
	AllowFailOpen bool `koanf:"allow_fail_open"`
	// RequireShadow refuses to activate a revision without a passing
	// shadow run (default false).
	RequireShadow bool `koanf:"require_shadow"`
	// ReconcileInterval is how often a server re-reads the active set
	// besides the notifications (default 1s; at most 2s, the bound within
	// which every server applies an activation).
	ReconcileInterval time.Duration `koanf:"reconcile_interval"`
	// Overrides set one plugin's limits and behaviour by name, over what
	// its manifest says: an operator can cap a plugin, or put it in
	// monitor mode, without a new upload.
	Overrides map[string]PluginOverride `koanf:"overrides"`
}

// PluginOverride is plugins.overrides.NAME; zero fields keep the manifest's.
type PluginOverride struct {
	Deadline      time.Duration `koanf:"deadline"`
	MemoryPages   int           `koanf:"memory_pages"`
	PoolSize      int           `koanf:"pool_size"`
	Mode          string        `koanf:"mode"`
	FailurePolicy string        `koanf:"failure_policy"`
}

// Security holds security.* keys read by this package (process_isolation is
// loaded by the isolation package).
type Security struct {
	// Network is security.network: how a run that may use the network
	// reaches it through its egress proxy. allow_host_loopback (default
	// false) is dangerous: it lets runs reach the host's own services
	// (Redis, databases, admin endpoints) under a listed name.
	Network egress.Config `koanf:"network"`
	// Workspace is security.workspace: per-conversation workspaces.
	Workspace Workspace `koanf:"workspace"`
	// SecretsKey is the master key (32 bytes, hex or base64; generate with
	// `openssl rand -hex 32`): env values in Redis are sealed and API key
	// records signed with keys derived from it. Required with Redis, the
	// same on every server and executor; embedded, a key is generated once
	// into <data_dir>/secrets.key when unset.
	SecretsKey string `koanf:"secrets_key"`
}

// Workspace configures the per-conversation workspaces (package
// workspace): where they live, the uids they get, their disk bound and how
// long an unused one is kept.
type Workspace struct {
	// Root holds every workspace (<data_dir>/workspaces when empty).
	Root string `koanf:"root"`
	// UIDRange is [min, max], inclusive: each workspace gets a uid of its
	// own from it (default [1879048192, 1879113727]; reserve it: no host
	// user or subuid range may overlap it).
	UIDRange []int `koanf:"uid_range"`
	// MaxBytes is workspace_max_bytes, the disk bound of one workspace
	// (default 1 GiB; -1: no bound, only when configured explicitly).
	MaxBytes int64 `koanf:"max_bytes"`
	// TTL is how long an unused workspace is kept (default 24h; -1s: kept
	// until its conversation is cancelled).
	TTL time.Duration `koanf:"ttl"`
}

// WorkspaceRoot is where workspaces live (absolute).
func (c Config) WorkspaceRoot() string {
	root := c.Security.Workspace.Root
	if root == "" {
		root = filepath.Join(c.DataDir, "workspaces")
	}
	if abs, err := filepath.Abs(root); err == nil {
		return abs
	}
	return root
}

// Agent holds the execution-governance timing keys.
type Agent struct {
	ToolTimeoutMinutes          float64 `koanf:"tool_timeout_minutes"`
	ToolWaitTimeoutSeconds      float64 `koanf:"tool_wait_timeout_seconds"`
	ShellNoOutputTimeoutSeconds float64 `koanf:"shell_no_output_timeout_seconds"`
}

// MultiAgent holds the output-reduction keys.
type MultiAgent struct {
	EinoMiddleware struct {
		ReductionEnable            bool `koanf:"reduction_enable"`
		ReductionMaxLengthForTrunc int  `koanf:"reduction_max_length_for_trunc"`
	} `koanf:"eino_middleware"`
}

// Default returns the built-in defaults: loopback, ./data, the default
// policy, the embedded queue with an embedded executor, and the design's
// recommended timings (60 min hard timeout, 30 s bounded wait, 1200 s
// no-output timeout, 50000-byte results).
func Default() Config {
	c := Config{
		Listen:           "127.0.0.1:8080",
		DataDir:          "data",
		Policy:           "default",
		RedisPrefix:      "toolwarden",
		EmbeddedExecutor: true,
		Concurrency:      4,
		RatePerSecond:    20,
		RateBurst:        100,
		Agent:            Agent{ToolTimeoutMinutes: 60, ToolWaitTimeoutSeconds: execution.DefaultWait.Seconds(), ShellNoOutputTimeoutSeconds: 1200},
	}
	c.Plugins = Plugins{Enabled: true, MaxModuleBytes: 16 << 20, DefaultDeadline: 250 * time.Millisecond,
		DefaultMemoryPages: 1024, DefaultPoolSize: 2, ReconcileInterval: time.Second}
	c.MultiAgent.EinoMiddleware.ReductionEnable = true
	c.ScanLog = scanlog.DefaultConfig()
	c.MultiAgent.EinoMiddleware.ReductionMaxLengthForTrunc = 50000
	c.Isolation.Mode = isolation.ModeAuto
	c.Security.Workspace = Workspace{
		UIDRange: []int{workspace.DefaultUIDMin, workspace.DefaultUIDMax},
		MaxBytes: workspace.DefaultMaxBytes,
		TTL:      workspace.DefaultTTL,
	}
	return c
}

// Load reads path (skipped when empty) over the defaults, then the
// environment: TOOLWARDEN_LISTEN, TOOLWARDEN_DATA_DIR, TOOLWARDEN_POLICY,
// TOOLWARDEN_REDIS_URL, TOOLWARDEN_REDIS_PREFIX, TOOLWARDEN_REDIS_TLS_CA_FILE,
// TOOLWARDEN_SECRETS_KEY, TOOLWARDEN_ISOLATION_MODE.
// Errors name the file and the key.
func Load(path string) (Config, error) {
	c := Default()
	if path != "" {
		iso, err := loadFile(path, &c)
		if err != nil {
			return c, fmt.Errorf("load config %s: %w", path, err)
		}
		c.Isolation = iso
	}
	env := map[string]*string{
		"TOOLWARDEN_LISTEN":            &c.Listen,
		"TOOLWARDEN_DATA_DIR":          &c.DataDir,
		"TOOLWARDEN_POLICY":            &c.Policy,
		"TOOLWARDEN_REDIS_URL":         &c.RedisURL,
		"TOOLWARDEN_REDIS_PREFIX":      &c.RedisPrefix,
		"TOOLWARDEN_REDIS_TLS_CA_FILE": &c.RedisTLSCAFile,
		"TOOLWARDEN_SECRETS_KEY":       &c.Security.SecretsKey,
	}
	for name, dst := range env {
		if v, ok := os.LookupEnv(name); ok {
			*dst = v
		}
	}
	if v, ok := os.LookupEnv("TOOLWARDEN_ISOLATION_MODE"); ok {
		c.Isolation.Mode = v
	}
	if v, ok := os.LookupEnv("TOOLWARDEN_EXECUTOR_CONCURRENCY"); ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			return c, fmt.Errorf("TOOLWARDEN_EXECUTOR_CONCURRENCY: %q is not an integer", v)
		}
		c.Concurrency = n
	}
	if err := c.Validate(); err != nil {
		if path != "" {
			return c, fmt.Errorf("load config %s (or the environment): %w", path, err)
		}
		return c, err
	}
	return c, nil
}

// loadFile decodes the file at path over c strictly, the way policies
// load: an unknown key (a typo such as executor_concurency), a value of the
// wrong type or a malformed duration is an error naming the key, never
// silently ignored, because a dropped limit would run with the default.
// security.process_isolation is decoded (as strictly) by the isolation
// package, which owns its keys.
func loadFile(path string, c *Config) (isolation.Config, error) {
	k := koanf.New(".")
	if err := k.Load(file.Provider(path), yaml.Parser()); err != nil {
		return isolation.Config{}, err
	}
	iso, err := isolation.LoadConfigFile(path)
	if err != nil {
		return isolation.Config{}, err
	}
	if iso.Mode == "" {
		iso.Mode = isolation.ModeAuto
	}
	k.Delete(isolation.ConfigPrefix)
	if k.Exists("security") && len(k.Cut("security").Keys()) == 0 {
		k.Delete("security")
	}
	err = k.UnmarshalWithConf("", c, koanf.UnmarshalConf{
		Tag: "koanf",
		DecoderConfig: &mapstructure.DecoderConfig{
			Result:           c,
			TagName:          "koanf",
			WeaklyTypedInput: false,
			ErrorUnused:      true,
			DecodeHook: mapstructure.ComposeDecodeHookFunc(
				mapstructure.StringToTimeDurationHookFunc(),
				mapstructure.TextUnmarshallerHookFunc(),
			),
		},
	})
	if err != nil {
		return isolation.Config{}, fmt.Errorf("decode: %w", err)
	}
	return iso, nil
}

// Validate checks ranges and names the offending key.
func (c Config) Validate() error {
	var errs []error
	bad := func(key, msg string) { errs = append(errs, fmt.Errorf("config %s: %s", key, msg)) }
	if c.Listen == "" {
		bad("listen", "must not be empty")
	}
	if c.DataDir == "" {
		bad("data_dir", "must not be empty")
	}
	if c.Concurrency < 1 {
		bad("executor_concurrency", "must be >= 1")
	}
	if c.RatePerSecond < 0 {
		bad("rate_per_second", "must be >= 0")
	}
	if c.RateBurst < 0 {
		bad("rate_burst", "must be >= 0")
	}
	if c.Agent.ToolTimeoutMinutes < 0 {
		bad("agent.tool_timeout_minutes", "must be >= 0")
	}
	if c.Agent.ToolWaitTimeoutSeconds < 0 {
		bad("agent.tool_wait_timeout_seconds", "must be >= 0")
	}
	if c.Agent.ShellNoOutputTimeoutSeconds < 0 {
		bad("agent.shell_no_output_timeout_seconds", "must be >= 0")
	}
	if m := c.MultiAgent.EinoMiddleware.ReductionMaxLengthForTrunc; m < 1024 {
		bad("multi_agent.eino_middleware.reduction_max_length_for_trunc", "must be >= 1024")
	}
	if _, err := c.Security.Network.WithDefaults(); err != nil {
		errs = append(errs, fmt.Errorf("config: %w", err))
	}
	if r := c.Security.Workspace.UIDRange; len(r) != 2 || r[0] < 1000 || r[1] < r[0] {
		bad("security.workspace.uid_range", fmt.Sprintf("%v: want [min, max] with 1000 <= min <= max", r))
	}
	if c.Security.Workspace.MaxBytes == 0 || c.Security.Workspace.MaxBytes < -1 {
		bad("security.workspace.max_bytes", "must be > 0 (or -1 for no bound)")
	}
	if c.Security.Workspace.TTL == 0 {
		bad("security.workspace.ttl", "must not be 0 (negative keeps workspaces until their conversation is cancelled)")
	}
	if c.Security.SecretsKey != "" {
		if _, err := secrets.ParseKey(c.Security.SecretsKey); err != nil {
			bad("security.secrets_key", "want 32 bytes as 64 hex digits or base64 (openssl rand -hex 32)")
		}
	}
	if p := c.Plugins; p.MaxModuleBytes < 1024 || p.MaxModuleBytes > 256<<20 {
		bad("plugins.max_module_bytes", fmt.Sprintf("%d: want 1024 to 268435456", p.MaxModuleBytes))
	}
	if p := c.Plugins; p.DefaultDeadline <= 0 || p.DefaultDeadline > 10*time.Second {
		bad("plugins.default_deadline", fmt.Sprintf("%s: want above 0 and at most 10s", p.DefaultDeadline))
	}
	if p := c.Plugins; p.DefaultMemoryPages < 1 || p.DefaultMemoryPages > 4096 {
		bad("plugins.default_memory_pages", fmt.Sprintf("%d: want 1 to 4096 (64 KiB pages)", p.DefaultMemoryPages))
	}
	if p := c.Plugins; p.DefaultPoolSize < 1 || p.DefaultPoolSize > 64 {
		bad("plugins.default_pool_size", fmt.Sprintf("%d: want 1 to 64", p.DefaultPoolSize))
	}
	if p := c.Plugins; p.ReconcileInterval <= 0 || p.ReconcileInterval > 2*time.Second {
		bad("plugins.reconcile_interval", fmt.Sprintf("%s: want above 0 and at most 2s", p.ReconcileInterval))
	}
	for name, o := range c.Plugins.Overrides {
		key := "plugins.overrides." + name
		if o.Deadline < 0 || o.Deadline > 10*time.Second {
			bad(key+".deadline", fmt.Sprintf("%s: want 0 (manifest's) to 10s", o.Deadline))
		}
		if o.MemoryPages < 0 || o.MemoryPages > 4096 {
			bad(key+".memory_pages", fmt.Sprintf("%d: want 0 (manifest's) to 4096", o.MemoryPages))
		}
		if o.PoolSize < 0 || o.PoolSize > 64 {
			bad(key+".pool_size", fmt.Sprintf("%d: want 0 (manifest's) to 64", o.PoolSize))
		}
		if o.Mode != "" && o.Mode != "enforce" && o.Mode != "monitor" {
			bad(key+".mode", fmt.Sprintf("%q: want enforce or monitor", o.Mode))
		}
		if o.FailurePolicy != "" && o.FailurePolicy != "fail_closed" && o.FailurePolicy != "fail_open" {
			bad(key+".failure_policy", fmt.Sprintf("%q: want fail_closed or fail_open", o.FailurePolicy))
		}
	}
	if p := c.Plugins; p.RequireSignature && len(p.TrustedKeys) == 0 {
		bad("plugins.require_signature", "is true but plugins.trusted_keys is empty: no upload could be accepted")
	}
	if c.ScanLog.MaxEntries == 0 {
		bad("scanlog.max_entries", "must be > 0")
	}
	if c.ScanLog.Retention == 0 {
		bad("scanlog.retention", "must be > 0")
	}
	if err := c.ScanLog.Validate(); err != nil {
		errs = append(errs, err)
	}
	switch c.Isolation.Mode {
	case "", isolation.ModeAuto, isolation.ModeRequired, isolation.ModeProcessGroup:
	default:
		bad("security.process_isolation.mode", fmt.Sprintf("%q: want auto, required or process_group", c.Isolation.Mode))
	}
	return errors.Join(errs...)
}

// RedisKeyPrefix is what every Redis key of the deployment starts with:
// redis_prefix and one separator ":" (toolwarden:rec:…, toolwarden:keys,
// toolwarden:scans:…, toolwarden:plugins:…, toolwarden:policy:…). A
// redis_prefix that already ends in ":" (toolwarden:prod:) gets no second.
func (c Config) RedisKeyPrefix() string { return strings.TrimRight(c.RedisPrefix, ":") + ":" }

// ToolTimeout is the hard timeout of one run.
func (c Config) ToolTimeout() time.Duration {
	return time.Duration(c.Agent.ToolTimeoutMinutes * float64(time.Minute))
}

// WaitTimeout is the default bounded wait.
func (c Config) WaitTimeout() time.Duration {
	return time.Duration(c.Agent.ToolWaitTimeoutSeconds * float64(time.Second))
}

// NoOutputTimeout is the silence after which a run is killed.
func (c Config) NoOutputTimeout() time.Duration {
	return time.Duration(c.Agent.ShellNoOutputTimeoutSeconds * float64(time.Second))
}

// ReductionRoot is where oversized outputs are persisted (absolute).
func (c Config) ReductionRoot() string {
	root := c.ReductionRootDir
	if root == "" {
		root = filepath.Join(c.DataDir, "reduction")
	}
	if abs, err := filepath.Abs(root); err == nil {
		return abs
	}
	return root
}

// IsolationConfig is security.process_isolation as the backend opens it:
// cgroup_root "auto" (the default) becomes the instance's own root, derived
// from its absolute data dir (isolation.InstanceRoot), so two instances
// with their own data dirs run side by side on one host.
func (c Config) IsolationConfig() isolation.Config {
	iso := c.Isolation
	if iso.CgroupRoot == "" || iso.CgroupRoot == "auto" {
		iso.CgroupRoot = isolation.InstanceRoot(c.DataDir)
	}
	return iso
}

// MaxResultBytes is the cap of a canonical result.
func (c Config) MaxResultBytes() int { return c.MultiAgent.EinoMiddleware.ReductionMaxLengthForTrunc }

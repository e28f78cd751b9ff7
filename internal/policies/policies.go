// Package policies holds toolwarden's policy documents and loads them.
//
// A policy steers every scan: which hosts and commands are allowed, which
// paths are off limits, the resource limits a request may ask for, the
// review/deny switches, per-rule overrides and block_on_review. Two
// documents are embedded — default.yaml, a production default, and
// strict.yaml, for unattended agents — and admins can load their own.
//
// Loading is strict because a policy is a security control: an unknown key
// (a misspelt switch), a value of the wrong type, a negative limit or an
// invalid override is a load error naming the file and the field, and a
// policy never half-loads. Fields a custom document omits take the value of
// the embedded default policy, so a short document cannot weaken a switch
// it does not mention.
package policies

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/providers/env"
	"github.com/knadh/koanf/providers/file"
	"github.com/knadh/koanf/providers/rawbytes"
	"github.com/knadh/koanf/v2"

	"github.com/toolwarden/toolwarden/sdk"
)

// EnvPrefix starts the environment variables that override policy fields
// in Load: TOOLWARDEN_<FIELD> with the field name upper-cased
// (TOOLWARDEN_BLOCK_ON_REVIEW=true, TOOLWARDEN_ALLOWED_DOMAINS=a.com,b.org).
// Other TOOLWARDEN_ variables belong to other parts of the service and are
// ignored here; rules overrides cannot be set from the environment.
const EnvPrefix = "TOOLWARDEN_"

//go:embed default.yaml strict.yaml
var builtinFS embed.FS

// Names lists the embedded policies accepted by Builtin.
var Names = []string{"default", "strict"}

// Load reads the policy document at path, applies TOOLWARDEN_* environment
// overrides on top, and validates the result. Deployments use it at start
// so that an operator can tighten one field (say block_on_review) without
// editing the file. On any error the policy is nil.
func Load(path string) (*sdk.Policy, error) {
	k, err := base()
	if err != nil {
		return nil, err
	}
	if err := overlay(k, path, file.Provider(path)); err != nil {
		return nil, err
	}
	overrides, err := envOverrides(path)
	if err != nil {
		return nil, err
	}
	if err := k.Load(confmap.Provider(overrides, "."), nil); err != nil {
		return nil, fmt.Errorf("load policy %s: environment: %w", path, err)
	}
	return decode(k, path, nameFromPath(path))
}

// ApplyEnv returns a copy of p with the TOOLWARDEN_* environment overrides
// applied and validated, for deployments that start from an embedded policy
// (Builtin) rather than a file but still let the operator tighten a field
// from the environment. p itself is not modified.
func ApplyEnv(p *sdk.Policy) (*sdk.Policy, error) {
	if p == nil {
		return nil, errors.New("apply policy environment: nil policy")
	}
	source := p.Name
	if source == "" {
		source = "(unnamed)"
	}
	data, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("apply environment to policy %s: %w", source, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("apply environment to policy %s: %w", source, err)
	}
	k := koanf.New(".")
	if err := k.Load(confmap.Provider(doc, "."), nil); err != nil {
		return nil, fmt.Errorf("apply environment to policy %s: %w", source, err)
	}
	overrides, err := envOverrides(source)
	if err != nil {
		return nil, err
	}
	if err := k.Load(confmap.Provider(overrides, "."), nil); err != nil {
		return nil, fmt.Errorf("apply environment to policy %s: %w", source, err)
	}
	return decode(k, source, p.Name)
}

// LoadBytes parses and validates a policy document given as bytes, without
// environment overrides: for documents uploaded through the admin API and
// for tests, whose outcome must not depend on the server's environment.
// name identifies the document in errors and is its Name when the document
// sets none.
func LoadBytes(name string, data []byte) (*sdk.Policy, error) {
	k, err := base()
	if err != nil {
		return nil, err
	}
	if err := overlay(k, name, rawbytes.Provider(data)); err != nil {
		return nil, err
	}
	return decode(k, name, nameFromPath(name))
}

// Default returns a fresh copy of the embedded default policy. The embedded
// documents are validated by the package tests, so Default never fails; the
// copy is the caller's to modify.
func Default() *sdk.Policy { return mustBuiltin("default") }

// Strict returns a fresh copy of the embedded strict policy (block_on_review,
// a command allowlist, tighter limits).
func Strict() *sdk.Policy { return mustBuiltin("strict") }

// Builtin returns a fresh copy of the embedded policy with the given name
// ("default" or "strict"), so a CLI flag or API field can select one.
func Builtin(name string) (*sdk.Policy, error) {
	data, err := builtinFS.ReadFile(name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("builtin policy %q: unknown (have %s)", name, strings.Join(Names, ", "))
	}
	if name == "default" {
		k := koanf.New(".")
		if err := overlay(k, "default.yaml", rawbytes.Provider(data)); err != nil {
			return nil, err
		}
		return decode(k, "default.yaml", name)
	}
	return LoadBytes(name+".yaml", data)
}

// BuiltinYAML returns the document of an embedded policy as shipped, so a
// server can show the text of the policy it started with (GET /v1/policy
// before any managed revision exists).
func BuiltinYAML(name string) ([]byte, error) {
	data, err := builtinFS.ReadFile(name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("builtin policy %q: unknown (have %s)", name, strings.Join(Names, ", "))
	}
	return data, nil
}

func mustBuiltin(name string) *sdk.Policy {
	p, err := Builtin(name)
	if err != nil {
		// Unreachable once the embedded documents pass the package tests;
		// fall back to the most restrictive policy that can be built in
		// code rather than panic or return a permissive zero value.
		return lockdown(name)
	}
	return p
}

// lockdown is a policy that reviews and blocks everything it can: no hosts,
// an allowlist that admits no command, every switch on.
func lockdown(name string) *sdk.Policy {
	return &sdk.Policy{
		Name:                    name,
		AllowedDomains:          []string{},
		AllowedCommands:         []string{"true"},
		DeniedPaths:             []string{"~", "/etc", "/root", ".env", "*/.env", "*.pem", "*.key"},
		DenyDependencyInstall:   true,
		DenyPrivilegeEscalation: true,
		ReviewUnknownNetwork:    true,
		ReviewProcessExecution:  true,
		ReviewShellFeatures:     true,
		BlockOnReview:           true,
	}
}

// base returns a koanf instance holding the embedded default document, the
// underlay for every custom document.
func base() (*koanf.Koanf, error) {
	data, err := builtinFS.ReadFile("default.yaml")
	if err != nil {
		return nil, fmt.Errorf("load embedded default policy: %w", err)
	}
	k := koanf.New(".")
	if err := overlay(k, "default.yaml", rawbytes.Provider(data)); err != nil {
		return nil, fmt.Errorf("load embedded default policy: %w", err)
	}
	// The underlay's name must not leak into a document that sets none.
	k.Delete("name")
	return k, nil
}

// overlay parses the document provider reads, checks it against the schema and merges it into k.
func overlay(k *koanf.Koanf, source string, provider koanf.Provider) error {
	raw := koanf.New(".")
	if err := raw.Load(provider, yaml.Parser()); err != nil {
		return fmt.Errorf("load policy %s: %w", source, err)
	}
	var errs problems
	checkRaw(raw.Raw(), &errs)
	if err := errs.err(source); err != nil {
		return err
	}
	if err := k.Load(confmap.Provider(raw.Raw(), "."), nil); err != nil {
		return fmt.Errorf("load policy %s: %w", source, err)
	}
	return nil
}

// decode turns the merged document into a policy, normalizes it and
// validates it. fallbackName is used when the document names none.
func decode(k *koanf.Koanf, source, fallbackName string) (*sdk.Policy, error) {
	var p sdk.Policy
	err := k.UnmarshalWithConf("", &p, koanf.UnmarshalConf{
		Tag: "koanf",
		DecoderConfig: &mapstructure.DecoderConfig{
			Result:           &p,
			TagName:          "koanf",
			WeaklyTypedInput: false,
			ErrorUnused:      true,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("load policy %s: decode: %w", source, err)
	}
	if p.Name == "" {
		p.Name = fallbackName
	}
	normalize(&p)
	var errs problems
	validateInto(&p, &errs)
	if err := errs.err(source); err != nil {
		return nil, err
	}
	return &p, nil
}

// normalize puts list fields in their canonical form: never nil (so they
// marshal as [] for plugins), domains lower-case without a trailing dot.
func normalize(p *sdk.Policy) {
	if p.AllowedDomains == nil {
		p.AllowedDomains = []string{}
	}
	if p.AllowedCommands == nil {
		p.AllowedCommands = []string{}
	}
	if p.DeniedPaths == nil {
		p.DeniedPaths = []string{}
	}
	if p.AllowedEnvNames == nil {
		p.AllowedEnvNames = []string{}
	}
	for i, d := range p.AllowedDomains {
		p.AllowedDomains[i] = normalizeDomain(d)
	}
	if len(p.Rules) == 0 {
		p.Rules = nil
	}
}

// envOverrides reads TOOLWARDEN_<FIELD> variables for the policy's scalar
// and list fields and converts each strictly to its field's type: an
// environment variable that does not parse is an error naming it, never a
// silently ignored override.
func envOverrides(source string) (map[string]any, error) {
	k := koanf.New(".")
	provider := env.ProviderWithValue(EnvPrefix, "", func(key, value string) (string, any) {
		field := strings.ToLower(strings.TrimPrefix(key, EnvPrefix))
		if kd, ok := fields[field]; !ok || kd == kindRules {
			return "", nil
		}
		return field, value
	})
	if err := k.Load(provider, nil); err != nil {
		return nil, fmt.Errorf("load policy %s: environment: %w", source, err)
	}
	out := map[string]any{}
	var errs problems
	for _, field := range sortedKeys(k.All()) {
		value := k.String(field)
		envName := EnvPrefix + strings.ToUpper(field)
		v, err := parseEnv(fields[field], value)
		if err != nil {
			errs.add(field, fmt.Sprintf("environment %s: %v", envName, err))
			continue
		}
		out[field] = v
	}
	if err := errs.err(source); err != nil {
		return nil, err
	}
	return out, nil
}

func parseEnv(k kind, value string) (any, error) {
	switch k {
	case kindString:
		return value, nil
	case kindBool:
		switch strings.ToLower(strings.TrimSpace(value)) {
		case "true", "1":
			return true, nil
		case "false", "0":
			return false, nil
		}
		return nil, fmt.Errorf("must be true or false, got %q", value)
	case kindNumber:
		f, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			return nil, fmt.Errorf("must be a number, got %q", value)
		}
		return f, nil
	case kindInteger:
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("must be an integer, got %q", value)
		}
		return n, nil
	case kindStringList:
		out := []any{}
		for _, item := range strings.Split(value, ",") {
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, item)
			}
		}
		return out, nil
	}
	return nil, errors.New("cannot be set from the environment")
}

// nameFromPath derives a policy name from a file name ("/etc/tw/ci.yaml" →
// "ci") for documents that set no name.
func nameFromPath(path string) string {
	base := filepath.Base(path)
	for _, ext := range []string{".yaml", ".yml"} {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}

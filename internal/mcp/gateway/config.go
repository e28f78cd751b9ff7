package gateway

import (
	"fmt"
	"regexp"
	"time"
)

// Defaults of the external-MCP isolation keys, the execution-governance
// design's recommended values.
const (
	DefaultMaxConcurrentPerServer  = 2
	DefaultMaxConcurrentTotal      = 16
	DefaultCircuitFailureThreshold = 3
	DefaultCircuitCooldown         = 60 * time.Second
	// DefaultCallTimeout bounds one upstream call (tool_timeout_minutes' default).
	DefaultCallTimeout = 60 * time.Minute
)

// Config is the `mcp:` section of the service configuration: the upstream
// MCP servers toolwarden guards and the limits that isolate them from each
// other and from the agents. The key names are the execution-governance
// design's, so an operator's existing values carry over.
type Config struct {
	// MaxConcurrentPerServer caps the calls running at once on one upstream
	// (external_mcp_max_concurrent_per_server, default 2).
	MaxConcurrentPerServer int `koanf:"external_mcp_max_concurrent_per_server" json:"external_mcp_max_concurrent_per_server"`
	// MaxConcurrentTotal caps the calls running at once over all upstreams
	// (external_mcp_max_concurrent_total, default 16).
	MaxConcurrentTotal int `koanf:"external_mcp_max_concurrent_total" json:"external_mcp_max_concurrent_total"`
	// CircuitFailureThreshold is the number of consecutive failed calls that
	// opens a server's circuit (external_mcp_circuit_failure_threshold, default 3).
	CircuitFailureThreshold int `koanf:"external_mcp_circuit_failure_threshold" json:"external_mcp_circuit_failure_threshold"`
	// CircuitCooldownSeconds is how long an open circuit refuses calls before
	// one half-open probe is let through (external_mcp_circuit_cooldown_seconds, default 60).
	CircuitCooldownSeconds float64 `koanf:"external_mcp_circuit_cooldown_seconds" json:"external_mcp_circuit_cooldown_seconds"`
	// Servers are the upstream MCP servers.
	Servers []ServerConfig `koanf:"servers" json:"servers"`
}

// ServerConfig is one upstream MCP server: a stdio command toolwarden
// starts, or a streamable-HTTP URL it connects to.
type ServerConfig struct {
	// Name identifies the server in records, logs and the default prefix.
	Name string `koanf:"name" json:"name"`
	// Prefix is prepended to the server's tool names (default Name + "_"),
	// so tools of different servers never collide.
	Prefix string `koanf:"prefix" json:"prefix"`
	// Command and Args start a stdio server; Env adds KEY=VALUE variables.
	Command string            `koanf:"command" json:"command"`
	Args    []string          `koanf:"args" json:"args"`
	Env     map[string]string `koanf:"env" json:"env"`
	// URL is a streamable-HTTP server; Headers are sent with every request
	// (they may hold credentials and are never logged).
	URL     string            `koanf:"url" json:"url"`
	Headers map[string]string `koanf:"headers" json:"headers"`
	// MaxConcurrent overrides MaxConcurrentPerServer for this server.
	MaxConcurrent int `koanf:"max_concurrent" json:"max_concurrent"`
	// CallTimeoutSeconds is the hard timeout of one call (default 3600).
	CallTimeoutSeconds float64 `koanf:"call_timeout_seconds" json:"call_timeout_seconds"`
}

var namePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// WithDefaults returns c with zero limits replaced by the defaults.
func (c Config) WithDefaults() Config {
	if c.MaxConcurrentPerServer == 0 {
		c.MaxConcurrentPerServer = DefaultMaxConcurrentPerServer
	}
	if c.MaxConcurrentTotal == 0 {
		c.MaxConcurrentTotal = DefaultMaxConcurrentTotal
	}
	if c.CircuitFailureThreshold == 0 {
		c.CircuitFailureThreshold = DefaultCircuitFailureThreshold
	}
	if c.CircuitCooldownSeconds == 0 {
		c.CircuitCooldownSeconds = DefaultCircuitCooldown.Seconds()
	}
	servers := make([]ServerConfig, len(c.Servers))
	for i, s := range c.Servers {
		if s.Prefix == "" {
			s.Prefix = s.Name + "_"
		}
		if s.MaxConcurrent == 0 {
			s.MaxConcurrent = c.MaxConcurrentPerServer
		}
		if s.CallTimeoutSeconds == 0 {
			s.CallTimeoutSeconds = DefaultCallTimeout.Seconds()
		}
		servers[i] = s
	}
	c.Servers = servers
	return c
}

// Validate rejects limits that cannot work and servers that are ambiguous,
// naming the offending key, so a bad gateway never half-starts.
func (c Config) Validate() error {
	switch {
	case c.MaxConcurrentPerServer < 0:
		return fmt.Errorf("mcp.external_mcp_max_concurrent_per_server: must be >= 1")
	case c.MaxConcurrentTotal < 0:
		return fmt.Errorf("mcp.external_mcp_max_concurrent_total: must be >= 1")
	case c.CircuitFailureThreshold < 0:
		return fmt.Errorf("mcp.external_mcp_circuit_failure_threshold: must be >= 1")
	case c.CircuitCooldownSeconds < 0:
		return fmt.Errorf("mcp.external_mcp_circuit_cooldown_seconds: must be >= 0")
	}
	names := map[string]bool{}
	prefixes := map[string]string{}
	for i, s := range c.Servers {
		key := fmt.Sprintf("mcp.servers[%d]", i)
		if !namePattern.MatchString(s.Name) {
			return fmt.Errorf("%s.name: %q must be 1-64 letters, digits, '_', '.' or '-'", key, s.Name)
		}
		if names[s.Name] {
			return fmt.Errorf("%s.name: %q is used twice", key, s.Name)
		}
		names[s.Name] = true
		if (s.Command == "") == (s.URL == "") {
			return fmt.Errorf("%s: set exactly one of command (stdio) and url (streamable HTTP)", key)
		}
		if s.MaxConcurrent < 0 {
			return fmt.Errorf("%s.max_concurrent: must be >= 1", key)
		}
		if s.CallTimeoutSeconds < 0 {
			return fmt.Errorf("%s.call_timeout_seconds: must be >= 0", key)
		}
		p := s.Prefix
		if p == "" {
			p = s.Name + "_"
		}
		if other, ok := prefixes[p]; ok {
			return fmt.Errorf("%s.prefix: %q is also the prefix of server %q", key, p, other)
		}
		prefixes[p] = s.Name
	}
	return nil
}

func (c Config) cooldown() time.Duration {
	return time.Duration(c.CircuitCooldownSeconds * float64(time.Second))
}

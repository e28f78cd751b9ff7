package egress

import (
	"errors"
	"fmt"
	"time"
)

// Defaults for Config fields left zero.
const (
	// DefaultConnectTimeout bounds one upstream dial.
	DefaultConnectTimeout = 10 * time.Second
	// DefaultIdleTimeout closes a connection on which nothing moved in
	// either direction for this long.
	DefaultIdleTimeout = 60 * time.Second
	// DefaultMaxConnections caps the connections one run has open at once.
	DefaultMaxConnections = 32
	// DefaultMaxLogEntries is how many connections one run's log keeps in
	// full; the rest are only counted.
	DefaultMaxLogEntries = 100
	// handshakeTimeout bounds reading the request and the TLS ClientHello.
	handshakeTimeout = 10 * time.Second
)

// DefaultAllowedPorts are the destination ports a run may reach when the
// configuration names none: HTTPS and HTTP.
var DefaultAllowedPorts = []int{443, 80}

// Config is the executor's security.network section: how the per-run egress
// proxy behaves. The zero value is the safe default.
type Config struct {
	// AllowHostLoopback lets a run reach the host's loopback addresses
	// (127.0.0.0/8, ::1) when the policy also lists the name. DANGEROUS:
	// the host's loopback carries the service's own Redis, databases and
	// admin endpoints; a run that reaches them can forge keys and read
	// other conversations' data. Default false. Metadata addresses stay
	// refused even then.
	AllowHostLoopback bool `koanf:"allow_host_loopback" json:"allow_host_loopback"`
	// AllowedPorts are the destination ports runs may reach (default 443
	// and 80).
	AllowedPorts []int `koanf:"allowed_ports" json:"allowed_ports,omitempty"`
	// ConnectTimeout bounds one upstream dial (default 10s).
	ConnectTimeout time.Duration `koanf:"connect_timeout" json:"connect_timeout,omitempty"`
	// IdleTimeout closes a connection idle in both directions (default 60s).
	IdleTimeout time.Duration `koanf:"idle_timeout" json:"idle_timeout,omitempty"`
	// MaxConnections caps the concurrent connections of one run (default
	// 32); one more is refused.
	MaxConnections int `koanf:"max_connections" json:"max_connections,omitempty"`
	// MaxLogEntries is how many connections a run's record lists (default
	// 100); later ones are only counted.
	MaxLogEntries int `koanf:"max_log_entries" json:"max_log_entries,omitempty"`
}

// WithDefaults fills zero fields and rejects values that cannot work.
func (c Config) WithDefaults() (Config, error) {
	if len(c.AllowedPorts) == 0 {
		c.AllowedPorts = append([]int(nil), DefaultAllowedPorts...)
	}
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = DefaultConnectTimeout
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.MaxConnections == 0 {
		c.MaxConnections = DefaultMaxConnections
	}
	if c.MaxLogEntries == 0 {
		c.MaxLogEntries = DefaultMaxLogEntries
	}
	var errs []error
	for i, p := range c.AllowedPorts {
		if p < 1 || p > 65535 {
			errs = append(errs, fmt.Errorf("security.network.allowed_ports[%d]: %d is not a TCP port", i, p))
		}
	}
	if c.ConnectTimeout < 0 {
		errs = append(errs, fmt.Errorf("security.network.connect_timeout: %s is negative", c.ConnectTimeout))
	}
	if c.IdleTimeout < 0 {
		errs = append(errs, fmt.Errorf("security.network.idle_timeout: %s is negative", c.IdleTimeout))
	}
	if c.MaxConnections < 0 {
		errs = append(errs, fmt.Errorf("security.network.max_connections: %d is negative", c.MaxConnections))
	}
	if c.MaxLogEntries < 0 {
		errs = append(errs, fmt.Errorf("security.network.max_log_entries: %d is negative", c.MaxLogEntries))
	}
	if err := errors.Join(errs...); err != nil {
		return c, fmt.Errorf("egress config: %w", err)
	}
	return c, nil
}

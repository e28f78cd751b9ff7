package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, doc string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "toolwarden.yaml")
	if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDefaults(t *testing.T) {
	c, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "127.0.0.1:8080" || c.WaitTimeout() != 30*time.Second || c.ToolTimeout() != time.Hour ||
		c.NoOutputTimeout() != 1200*time.Second || c.MaxResultBytes() != 50000 || !c.EmbeddedExecutor {
		t.Fatalf("defaults: %+v", c)
	}
}

func TestFileAndEnv(t *testing.T) {
	p := write(t, `
listen: 127.0.0.1:9999
agent:
  tool_timeout_minutes: 5
  tool_wait_timeout_seconds: 10
multi_agent:
  eino_middleware:
    reduction_max_length_for_trunc: 20000
security:
  process_isolation:
    mode: process_group
    max_processes: 64
`)
	t.Setenv("TOOLWARDEN_DATA_DIR", "/tmp/twdata")
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "127.0.0.1:9999" || c.ToolTimeout() != 5*time.Minute || c.WaitTimeout() != 10*time.Second ||
		c.MaxResultBytes() != 20000 || c.Isolation.Mode != "process_group" || c.Isolation.Limits.MaxProcesses != 64 ||
		c.DataDir != "/tmp/twdata" || c.NoOutputTimeout() != 1200*time.Second {
		t.Fatalf("loaded: %+v", c)
	}
}

func TestErrorsNameTheKey(t *testing.T) {
	cases := map[string]string{
		"agent:\n  tool_timeout_minutes: -1\n":                                       "agent.tool_timeout_minutes",
		"executor_concurrency: 0\n":                                                  "executor_concurrency",
		"security:\n  process_isolation:\n    mode: sometimes\n":                     "mode",
		"multi_agent:\n  eino_middleware:\n    reduction_max_length_for_trunc: 10\n": "reduction_max_length_for_trunc",
		"security:\n  network:\n    allowed_ports: [443, 99999]\n":                   "security.network.allowed_ports[1]",
	}
	for doc, key := range cases {
		if _, err := Load(write(t, doc)); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%q: err = %v, want it to name %s", doc, err, key)
		}
	}
}

// TestNetworkConfig: security.network loads beside process_isolation, and
// host loopback stays closed unless the file opens it.
func TestNetworkConfig(t *testing.T) {
	c, err := Load("")
	if err != nil || c.Security.Network.AllowHostLoopback {
		t.Fatalf("default opens host loopback: %+v %v", c.Security.Network, err)
	}
	c, err = Load(write(t, `
security:
  process_isolation:
    mode: process_group
  network:
    allow_host_loopback: true
    allowed_ports: [443]
    idle_timeout: 30s
`))
	if err != nil {
		t.Fatal(err)
	}
	n := c.Security.Network
	if !n.AllowHostLoopback || len(n.AllowedPorts) != 1 || n.AllowedPorts[0] != 443 || n.IdleTimeout != 30*time.Second ||
		c.Isolation.Mode != "process_group" {
		t.Fatalf("loaded %+v (isolation %q)", n, c.Isolation.Mode)
	}
}

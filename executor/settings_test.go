package executor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseConfig(t *testing.T) {
	cfg, err := ParseConfig([]byte(`
agent:
  tool_timeout_minutes: 90
  shell_no_output_timeout_seconds: 30
multi_agent:
  eino_middleware:
    reduction_enable: true
    reduction_max_length_for_trunc: 20000
security:
  process_isolation:
    mode: auto
server:
  listen: ":8080"
`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Timeout != 90*time.Minute || cfg.NoOutputTimeout != 30*time.Second || cfg.MaxResultBytes != 20000 {
		t.Fatalf("got %+v", cfg)
	}

	cfg, err = ParseConfig([]byte("agent:\n  shell_no_output_timeout_seconds: 0\n"))
	if err != nil || cfg.NoOutputTimeout >= 0 || cfg.Timeout != 0 {
		t.Fatalf("0 must disable the no-output timeout and leave the rest default: %+v %v", cfg, err)
	}
}

func TestParseConfigRejectsBadValues(t *testing.T) {
	for doc, key := range map[string]string{
		"agent:\n  tool_timeout_minutes: sixty\n":                                        "agent.tool_timeout_minutes",
		"agent:\n  tool_timeout_minutes: 0\n":                                            "agent.tool_timeout_minutes",
		"agent:\n  shell_no_output_timeout_seconds: -5\n":                                "agent.shell_no_output_timeout_seconds",
		"multi_agent:\n  eino_middleware:\n    reduction_max_length_for_trunc: 10\n":     "reduction_max_length_for_trunc",
		"multi_agent:\n  eino_middleware:\n    reduction_max_length_for_trunc: 5000.5\n": "reduction_max_length_for_trunc",
	} {
		_, err := ParseConfig([]byte(doc))
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%q: error %v, want one naming %s", doc, err, key)
		}
	}
}

func TestLoadConfigFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "toolwarden.yaml")
	if err := os.WriteFile(path, []byte("agent:\n  tool_timeout_minutes: 0.5\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfigFile(path)
	if err != nil || cfg.Timeout != 30*time.Second {
		t.Fatalf("%+v %v", cfg, err)
	}
	if _, err := LoadConfigFile(path + ".missing"); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("missing file: %v", err)
	}
}

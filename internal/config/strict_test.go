package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readmeBlocks returns the YAML blocks of README.md that start with one of
// the given first lines: the documented examples are loaded as they are,
// so a key the README shows can never be unknown to the strict loader.
func readmeBlocks(t *testing.T, firstLines ...string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	parts := strings.Split(string(data), "```yaml\n")
	for _, p := range parts[1:] {
		body := p[:strings.Index(p, "```")]
		for _, fl := range firstLines {
			if strings.HasPrefix(body, fl) {
				out = append(out, body)
			}
		}
	}
	if len(out) != len(firstLines) {
		t.Fatalf("README: found %d of the %d example blocks %q", len(out), len(firstLines), firstLines)
	}
	return out
}

func writeConfig(t *testing.T, doc string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "toolwarden.yaml")
	if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadREADMEFullExample: the README's full configuration example and
// its mcp block load under the strict loader, with their values applied.
func TestLoadREADMEFullExample(t *testing.T) {
	blocks := readmeBlocks(t, "listen:", "mcp:")
	doc := blocks[0] + blocks[1] + "rate_per_second: 5\nrate_burst: 7\nembedded_executor: true\nredis_prefix: tw\nreduction_root_dir: \"\"\n"
	c, err := Load(writeConfig(t, doc))
	if err != nil {
		t.Fatalf("README example: %v", err)
	}
	if c.DataDir != "/var/lib/toolwarden" || c.Policy != "strict" || c.RateBurst != 7 || c.RatePerSecond != 5 {
		t.Errorf("values not applied: %+v", c)
	}
	if c.Security.Workspace.TTL.Hours() != 24 || c.Security.Network.AllowHostLoopback {
		t.Errorf("security values: %+v", c.Security)
	}
	if c.Isolation.Mode != "auto" || c.Isolation.CgroupRoot != "auto" {
		t.Errorf("process_isolation: %+v", c.Isolation)
	}
	if len(c.MCP.Servers) != 2 {
		t.Errorf("mcp servers: %+v", c.MCP.Servers)
	}
}

// TestLoadTestdataMirrorsREADME: testdata/full.yaml is the README's full
// example (so tools that read the testdata copy see what users see).
func TestLoadTestdataMirrorsREADME(t *testing.T) {
	want := readmeBlocks(t, "listen:")[0]
	got, err := os.ReadFile(filepath.Join("testdata", "full.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("testdata/full.yaml differs from README.md's Configuration example; copy it again")
	}
	if _, err := Load(filepath.Join("testdata", "full.yaml")); err != nil {
		t.Fatal(err)
	}
}

// TestLoadStrict: typos, wrong types, malformed durations and negative
// limits fail with an error naming the file and the key.
func TestLoadStrict(t *testing.T) {
	cases := []struct{ doc, key string }{
		{"executor_concurency: 9\n", "executor_concurency"},
		{"rate_burst: -5\n", "rate_burst"},
		{"rate_per_second: -1\n", "rate_per_second"},
		{"executor_concurrency: nine\n", "executor_concurrency"},
		{"agent:\n  tool_wait_timeout_second: 5\n", "tool_wait_timeout_second"},
		{"security:\n  workspace:\n    ttl: soon\n", "ttl"},
		{"security:\n  netwrok: {}\n", "netwrok"},
		{"security:\n  process_isolation:\n    max_process: 5\n", "max_process"},
		{"mcp:\n  external_mcp_max_concurrent_totl: 3\n", "external_mcp_max_concurrent_totl"},
		{"multi_agent:\n  eino_middleware:\n    reduction_enable: \"yes\"\n", "reduction_enable"},
	}
	for _, tc := range cases {
		p := writeConfig(t, tc.doc)
		_, err := Load(p)
		if err == nil {
			t.Errorf("%q: loaded", tc.doc)
			continue
		}
		if !strings.Contains(err.Error(), tc.key) {
			t.Errorf("%q: error does not name %s: %v", tc.doc, tc.key, err)
		}
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%q: error does not name the file: %v", tc.doc, err)
		}
	}
}

// TestLoadEnvOverridesFile: the environment still wins over the file.
func TestLoadEnvOverridesFile(t *testing.T) {
	t.Setenv("TOOLWARDEN_LISTEN", "127.0.0.1:9999")
	t.Setenv("TOOLWARDEN_EXECUTOR_CONCURRENCY", "3")
	c, err := Load(writeConfig(t, "listen: 127.0.0.1:1\nexecutor_concurrency: 8\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "127.0.0.1:9999" || c.Concurrency != 3 {
		t.Errorf("env not applied: listen %s concurrency %d", c.Listen, c.Concurrency)
	}
}

// TestIsolationConfigDerivesRoot: cgroup_root auto (the default) becomes
// the instance's own root from its data dir; an explicit root is kept.
func TestIsolationConfigDerivesRoot(t *testing.T) {
	c := Default()
	c.DataDir = "/var/lib/tw-a"
	a := c.IsolationConfig().CgroupRoot
	c.DataDir = "/var/lib/tw-b"
	b := c.IsolationConfig().CgroupRoot
	if a == b || !strings.HasPrefix(a, "auto:") {
		t.Errorf("data dirs a and b: roots %q and %q, want distinct auto:NAME roots", a, b)
	}
	c.Isolation.CgroupRoot = "/sys/fs/cgroup/tw.slice/runs"
	if got := c.IsolationConfig().CgroupRoot; got != c.Isolation.CgroupRoot {
		t.Errorf("explicit root rewritten to %q", got)
	}
}

// TestScanLogKeys: scanlog.* keys load strictly with their defaults, and a
// typo or a bad value names the key.
func TestScanLogKeys(t *testing.T) {
	c, err := Load(writeConfig(t, "scanlog:\n  enabled: false\n  max_entries: 7\n  retention: 2h\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.ScanLog.Enabled || c.ScanLog.MaxEntries != 7 || c.ScanLog.Retention.Hours() != 2 || c.ScanLog.MaxContentBytes != 65536 {
		t.Errorf("scanlog: %+v", c.ScanLog)
	}
	d := Default().ScanLog
	if !d.Enabled || d.MaxEntries != 10000 || d.Retention.Hours() != 168 {
		t.Errorf("defaults: %+v", d)
	}
	for doc, key := range map[string]string{
		"scanlog:\n  max_entrys: 5\n":   "max_entrys",
		"scanlog:\n  max_entries: 0\n":  "scanlog.max_entries",
		"scanlog:\n  retention: -1h\n":  "scanlog.retention",
		"scanlog:\n  retention: soon\n": "retention",
	} {
		_, err := Load(writeConfig(t, doc))
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%q: want an error naming %s, got %v", doc, key, err)
		}
	}
}

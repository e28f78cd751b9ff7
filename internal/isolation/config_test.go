package isolation

import (
	"strings"
	"testing"
)

func TestParseConfigSeedExample(t *testing.T) {
	cfg, err := ParseConfig([]byte(`
security:
  process_isolation:
    mode: required
    cgroup_root: auto
    max_processes: 256
    memory_max_bytes: 2147483648
    cpu_quota_micros: 200000
`))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Mode: "required", CgroupRoot: "auto", Limits: Limits{MaxProcesses: 256, MemoryMaxBytes: 2147483648, CPUQuotaMicros: 200000}}
	if cfg != want {
		t.Fatalf("got %+v, want %+v", cfg, want)
	}
}

func TestParseConfigHardeningStartsFromDefaults(t *testing.T) {
	cfg, err := ParseConfig([]byte("security:\n  process_isolation:\n    hardening:\n      seccomp: false\n      no_network: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultHardening()
	want.Seccomp = false
	if cfg.Hardening != want {
		t.Fatalf("hardening %+v, want %+v", cfg.Hardening, want)
	}
}

func TestParseConfigRejects(t *testing.T) {
	cases := map[string]string{
		"unknown key":  "security:\n  process_isolation:\n    max_procs: 3\n",
		"negative":     "security:\n  process_isolation:\n    max_processes: -2\n",
		"negative uid": "security:\n  process_isolation:\n    hardening:\n      uid: -1\n",
		"wrong type":   "security:\n  process_isolation:\n    memory_max_bytes: lots\n",
		"bad mode":     "security:\n  process_isolation:\n    mode: sometimes\n",
		"host netns":   "security:\n  process_isolation:\n    hardening:\n      no_network: false\n",
		"host pidns":   "security:\n  process_isolation:\n    hardening:\n      pid_namespace: false\n",
		"host root":    "security:\n  process_isolation:\n    hardening:\n      private_tmp: false\n",
		"tmpfs -2":     "security:\n  process_isolation:\n    tmpfs_max_bytes: -2\n",
		"bool as str":  "security:\n  process_isolation:\n    hardening:\n      landlock: \"no\"\n",
		"fractional":   "security:\n  process_isolation:\n    cpu_quota_micros: 1.5\n",
	}
	for name, doc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ParseConfig([]byte(doc))
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), ConfigPrefix) {
				t.Errorf("error does not name the key: %v", err)
			}
		})
	}
}

func TestParseConfigEmptyIsAuto(t *testing.T) {
	cfg, err := ParseConfig([]byte("server:\n  port: 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg != (Config{}) {
		t.Fatalf("got %+v, want zero Config (auto, defaults)", cfg)
	}
}

// TestDefaultLimitsAreSafe: a configuration that sets no limit gets the
// safe defaults; -1 is the only way to turn a limit off.
func TestDefaultLimitsAreSafe(t *testing.T) {
	cfg, err := ParseConfig([]byte("security:\n  process_isolation:\n    mode: auto\n"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := effectiveLimits(cfg.Limits)
	if err != nil {
		t.Fatal(err)
	}
	want := Limits{MaxProcesses: 256, MemoryMaxBytes: 2 << 30, CPUQuotaMicros: 100000, TmpfsMaxBytes: 256 << 20}
	if got != want {
		t.Fatalf("default limits %+v, want %+v", got, want)
	}
	cfg, err = ParseConfig([]byte("security:\n  process_isolation:\n    max_processes: -1\n    memory_max_bytes: 1073741824\n"))
	if err != nil {
		t.Fatal(err)
	}
	got, err = effectiveLimits(cfg.Limits)
	if err != nil {
		t.Fatal(err)
	}
	want.MaxProcesses, want.MemoryMaxBytes = 0, 1<<30
	if got != want {
		t.Fatalf("explicit limits %+v, want %+v", got, want)
	}
	if _, err := effectiveLimits(Limits{CPUQuotaMicros: -5}); err == nil {
		t.Fatal("a negative limit other than -1 was accepted")
	}
}

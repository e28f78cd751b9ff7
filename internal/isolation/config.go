package isolation

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/file"
	"github.com/knadh/koanf/providers/rawbytes"
	"github.com/knadh/koanf/v2"
)

// ConfigPrefix is where the isolation settings live in the configuration
// file (the key names of the execution-governance design).
const ConfigPrefix = "security.process_isolation"

// configKeys are the accepted keys below ConfigPrefix; anything else is a
// load error so that a typo never silently weakens isolation.
var configKeys = map[string]bool{
	"mode": true, "cgroup_root": true, "watchdog_path": true, "shim_path": true, "allow_shared_host": true,
	"max_processes": true, "memory_max_bytes": true, "cpu_quota_micros": true, "tmpfs_max_bytes": true,
	"hardening.uid": true, "hardening.gid": true, "hardening.no_network": true,
	"hardening.pid_namespace": true, "hardening.private_tmp": true, "hardening.landlock": true,
	"hardening.seccomp": true, "hardening.rlimits": true,
}

// limitKeys are the keys that accept -1 (Unlimited): an explicit "no
// limit". Leaving one out gives the safe default.
var limitKeys = map[string]bool{"max_processes": true, "memory_max_bytes": true, "cpu_quota_micros": true, "tmpfs_max_bytes": true}

// LoadConfigFile reads the security.process_isolation section of a YAML
// configuration file. A missing section yields the defaults (auto mode).
func LoadConfigFile(path string) (Config, error) {
	k := koanf.New(".")
	if err := k.Load(file.Provider(path), yaml.Parser()); err != nil {
		return Config{}, fmt.Errorf("load isolation config %s: %w", path, err)
	}
	cfg, err := configFrom(k)
	if err != nil {
		return Config{}, fmt.Errorf("load isolation config %s: %w", path, err)
	}
	return cfg, nil
}

// ParseConfig is LoadConfigFile for a YAML document already in memory.
func ParseConfig(doc []byte) (Config, error) {
	k := koanf.New(".")
	if err := k.Load(rawbytes.Provider(doc), yaml.Parser()); err != nil {
		return Config{}, fmt.Errorf("parse isolation config: %w", err)
	}
	cfg, err := configFrom(k)
	if err != nil {
		return Config{}, fmt.Errorf("parse isolation config: %w", err)
	}
	return cfg, nil
}

func configFrom(k *koanf.Koanf) (Config, error) {
	sub := k.Cut(ConfigPrefix)
	var cfg Config
	keys := sub.Keys()
	sort.Strings(keys)
	for _, key := range keys {
		if !configKeys[key] {
			return cfg, fmt.Errorf("%s.%s: unknown key", ConfigPrefix, key)
		}
	}
	var err error
	str := func(key string, dst *string) {
		if err != nil || !sub.Exists(key) {
			return
		}
		v, ok := sub.Get(key).(string)
		if !ok {
			err = fmt.Errorf("%s.%s: want a string, got %T", ConfigPrefix, key, sub.Get(key))
			return
		}
		*dst = strings.TrimSpace(v)
	}
	num := func(key string, dst *int64) {
		if err != nil || !sub.Exists(key) {
			return
		}
		var n int64
		switch v := sub.Get(key).(type) {
		case int:
			n = int64(v)
		case int64:
			n = v
		case uint64:
			n = int64(v)
		case float64:
			if v != float64(int64(v)) {
				err = fmt.Errorf("%s.%s: want an integer, got %v", ConfigPrefix, key, v)
				return
			}
			n = int64(v)
		default:
			err = fmt.Errorf("%s.%s: want an integer, got %T", ConfigPrefix, key, v)
			return
		}
		if n < 0 && (n != Unlimited || !limitKeys[key]) {
			err = fmt.Errorf("%s.%s: must not be negative (-1 means no limit for a limit), got %d", ConfigPrefix, key, n)
			return
		}
		*dst = n
	}
	boolean := func(key string, dst *bool) {
		if err != nil || !sub.Exists(key) {
			return
		}
		v, ok := sub.Get(key).(bool)
		if !ok {
			err = fmt.Errorf("%s.%s: want true or false, got %T", ConfigPrefix, key, sub.Get(key))
			return
		}
		*dst = v
	}
	var maxProcs, uid, gid int64
	str("mode", &cfg.Mode)
	str("cgroup_root", &cfg.CgroupRoot)
	str("watchdog_path", &cfg.WatchdogPath)
	str("shim_path", &cfg.ShimPath)
	boolean("allow_shared_host", &cfg.AllowSharedHost)
	num("max_processes", &maxProcs)
	num("memory_max_bytes", &cfg.Limits.MemoryMaxBytes)
	num("cpu_quota_micros", &cfg.Limits.CPUQuotaMicros)
	num("tmpfs_max_bytes", &cfg.Limits.TmpfsMaxBytes)
	cfg.Limits.MaxProcesses = int(maxProcs)
	// Hardening: any key present switches from the defaults to an explicit
	// set that starts from DefaultHardening, so naming one layer to turn it
	// off keeps the others on.
	hasHardening := false
	for _, key := range keys {
		if strings.HasPrefix(key, "hardening.") {
			hasHardening = true
		}
	}
	if hasHardening {
		h := DefaultHardening()
		uid, gid = int64(h.UID), int64(h.GID)
		num("hardening.uid", &uid)
		num("hardening.gid", &gid)
		// Every run has its own network namespace; the old switch is
		// accepted only when it asks for what always happens.
		noNetwork := true
		boolean("hardening.no_network", &noNetwork)
		if err == nil && !noNetwork {
			err = fmt.Errorf("%s.hardening.no_network: false is not supported: every run has its own network namespace (egress goes through the egress proxy)", ConfigPrefix)
		}
		for _, key := range []string{"hardening.pid_namespace", "hardening.private_tmp"} {
			always := true
			boolean(key, &always)
			if err == nil && !always {
				err = fmt.Errorf("%s.%s: false is not supported: every run has its own PID and mount namespaces and root", ConfigPrefix, key)
			}
		}
		boolean("hardening.landlock", &h.Landlock)
		boolean("hardening.seccomp", &h.Seccomp)
		boolean("hardening.rlimits", &h.Rlimits)
		h.UID, h.GID = int(uid), int(gid)
		cfg.Hardening = h
	}
	if err != nil {
		return Config{}, err
	}
	switch cfg.Mode {
	case "", ModeAuto, ModeRequired, ModeProcessGroup:
	default:
		return Config{}, fmt.Errorf("%s.mode: unknown mode %q (want auto, required or process_group)", ConfigPrefix, cfg.Mode)
	}
	return cfg, nil
}

// InstanceRoot is the cgroup_root "auto" means for the instance whose data
// lives in dataDir: "auto:i-" and a hash of the absolute data dir, so that
// two toolwarden instances with their own data dirs get exclusive roots of
// their own on one host, while a restart of one instance finds its root
// (and reaps the leftovers in it) again.
func InstanceRoot(dataDir string) string {
	if abs, err := filepath.Abs(dataDir); err == nil {
		dataDir = abs
	}
	sum := sha256.Sum256([]byte(filepath.Clean(dataDir)))
	return "auto:i-" + hex.EncodeToString(sum[:8])
}

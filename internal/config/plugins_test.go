package config

import (
	"strings"
	"testing"
	"time"
)

// TestPluginsKeys: the plugins.* keys load strictly, take their defaults,
// and out-of-range values are errors naming the key.
func TestPluginsKeys(t *testing.T) {
	c, err := Load(writeConfig(t, "plugins:\n  require_signature: true\n  trusted_keys: [RWQfake]\n  default_deadline: 400ms\n  allow_fail_open: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := c.Plugins
	if !p.Enabled || !p.RequireSignature || p.DefaultDeadline != 400*time.Millisecond || !p.AllowFailOpen ||
		p.MaxModuleBytes != 16<<20 || p.DefaultPoolSize != 2 || p.ReconcileInterval != time.Second || len(p.TrustedKeys) != 1 {
		t.Fatalf("plugins: %+v", p)
	}
	for doc, key := range map[string]string{
		"plugins:\n  require_signatur: true\n":    "require_signatur",
		"plugins:\n  reconcile_interval: 5s\n":    "plugins.reconcile_interval",
		"plugins:\n  default_memory_pages: 0\n":   "plugins.default_memory_pages",
		"plugins:\n  max_module_bytes: 10\n":      "plugins.max_module_bytes",
		"plugins:\n  require_signature: true\n":   "plugins.trusted_keys",
		"plugins:\n  default_deadline: forever\n": "default_deadline",
		"plugins:\n  default_pool_size: 1000\n":   "plugins.default_pool_size",
	} {
		if _, err := Load(writeConfig(t, doc)); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%q: error %v, want one naming %s", doc, err, key)
		}
	}
}

package main

import "testing"

// TestServeRefusesBadConfig: a typo'd key or a negative limit in the
// service config makes serve exit before listening, naming the file and
// the key (a dropped limit would otherwise run with its default).
func TestServeRefusesBadConfig(t *testing.T) {
	for _, tc := range []struct{ doc, key string }{
		{"executor_concurency: 9\n", "executor_concurency"},
		{"rate_burst: -5\n", "rate_burst"},
	} {
		dir := t.TempDir()
		cfg := writeFile(t, dir, "toolwarden.yaml", tc.doc)
		r := tw(t, "serve", "--config", cfg, "--data-dir", dir+"/data", "--listen", "127.0.0.1:0")
		if r.code == 0 {
			t.Fatalf("%q: serve exited 0:\n%s", tc.doc, r)
		}
		wantContains(t, "stderr", r.stderr, cfg, tc.key)
	}
}

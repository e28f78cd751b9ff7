package runner

import (
	"net"
	"slices"
	"testing"
)

// TestEgressEnv: a run with an egress proxy gets the proxy variables every
// common client reads, over any value the request set; a run without one
// gets none.
func TestEgressEnv(t *testing.T) {
	proxy := func(net.Listener) error { return nil }
	env := buildEnv(Options{Dir: "/w", EgressProxy: proxy, EnvAllowlist: []string{},
		Env: map[string]string{"HTTPS_PROXY": "http://attacker.example:1", "no_proxy": "*", "KEEP": "1"}})
	const url = "http://127.0.0.1:3128"
	for _, want := range []string{
		"HTTP_PROXY=" + url, "HTTPS_PROXY=" + url, "ALL_PROXY=" + url, "http_proxy=" + url, "https_proxy=" + url,
		"all_proxy=" + url, "npm_config_proxy=" + url, "npm_config_https_proxy=" + url,
		"NO_PROXY=localhost,127.0.0.1,::1", "no_proxy=localhost,127.0.0.1,::1", "KEEP=1",
	} {
		if !slices.Contains(env, want) {
			t.Errorf("env lacks %s: %v", want, env)
		}
	}
	for _, e := range buildEnv(Options{Dir: "/w", EnvAllowlist: []string{}}) {
		for _, name := range []string{"HTTP_PROXY=", "HTTPS_PROXY=", "http_proxy=", "ALL_PROXY="} {
			if len(e) >= len(name) && e[:len(name)] == name {
				t.Errorf("run without a proxy got %s", e)
			}
		}
	}
}

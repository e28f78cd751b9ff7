package egress

// NoProxy is the exemption list runs get: only the run's own loopback,
// which is inside its private network namespace (its own local servers),
// never an external host.
const NoProxy = "localhost,127.0.0.1,::1"

// Env returns the environment that points a run's clients at the proxy at
// proxyURL ("http://127.0.0.1:3128"): HTTP_PROXY, HTTPS_PROXY, ALL_PROXY
// and NO_PROXY in both cases (curl reads lower-case http_proxy only; Go,
// pip, git, wget and requests read one case or the other), and npm's own
// npm_config_proxy / npm_config_https_proxy. ALL_PROXY carries the HTTP
// proxy URL, which curl accepts for every scheme; the proxy speaks no
// SOCKS. A client that ignores all of these has no route out: the run's
// network namespace holds only its loopback.
func Env(proxyURL string) map[string]string {
	return map[string]string{
		"HTTP_PROXY":             proxyURL,
		"HTTPS_PROXY":            proxyURL,
		"ALL_PROXY":              proxyURL,
		"NO_PROXY":               NoProxy,
		"http_proxy":             proxyURL,
		"https_proxy":            proxyURL,
		"all_proxy":              proxyURL,
		"no_proxy":               NoProxy,
		"npm_config_proxy":       proxyURL,
		"npm_config_https_proxy": proxyURL,
		"npm_config_noproxy":     NoProxy,
	}
}

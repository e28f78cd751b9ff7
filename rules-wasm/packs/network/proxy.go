package network

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/catalog"
	"github.com/toolwarden/toolwarden/sdk"
)

// proxyURL finds URLs inside a folded proxies mapping's text.
var proxyURL = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^'"\s,}]+`)

// proxyCalls are Python APIs whose argument is a proxy mapping or URL.
var proxyCalls = map[string]int{"urllib.request.ProxyHandler": 0, "urllib2.ProxyHandler": 0,
	"httpx.Proxy": 0, "aiohttp.ProxyConnector.from_url": 0, "socks.set_default_proxy": 1}

// proxyEnv are the environment variables Python HTTP clients take a proxy
// from.
var proxyEnv = map[string]bool{"HTTP_PROXY": true, "HTTPS_PROXY": true, "ALL_PROXY": true, "http_proxy": true,
	"https_proxy": true, "all_proxy": true}

// proxyUses returns the proxies the Python code routes its requests
// through — ProxyHandler({…}), proxies={…} / proxy=… keyword arguments,
// `session.proxies = {…}`, os.environ['HTTPS_PROXY'] = … — as network
// destinations: the connection goes to the proxy, so the proxy is judged.
func proxyUses(e *catalog.Env) []sdk.NetworkUse {
	var out []sdk.NetworkUse
	add := func(text, via, ev string, pos sdk.Pos) {
		for _, m := range proxyURL.FindAllString(text, 8) {
			u, err := url.Parse(m)
			if err != nil || u.Hostname() == "" {
				continue
			}
			out = append(out, sdk.NetworkUse{URL: m, Host: strings.ToLower(u.Hostname()), Scheme: u.Scheme,
				Via: via, Evidence: ev, Pos: pos})
		}
	}
	valueText := func(v sdk.Value) string {
		var sb strings.Builder
		sb.WriteString(v.Str)
		for _, it := range v.Items {
			sb.WriteString(" " + it.Str)
		}
		return sb.String()
	}
	for i := range e.Facts.Calls {
		c := &e.Facts.Calls[i]
		if k, ok := proxyCalls[c.Name]; ok && k < len(c.Args) {
			add(valueText(c.Args[k]), c.Name, c.Evidence, c.Pos)
		}
		for _, kw := range []string{"proxies", "proxy", "proxy_url"} {
			if v, ok := c.Kwargs[kw]; ok {
				add(valueText(v), c.Name, c.Evidence, c.Pos)
			}
		}
	}
	for _, as := range e.Facts.Assignments {
		if proxyEnv[as.Name] && !as.Dynamic && e.FactLang(as.Pos) == "python" {
			add(as.Value, "proxy environment", as.Name+"="+as.Value, as.Pos)
		}
	}
	return out
}

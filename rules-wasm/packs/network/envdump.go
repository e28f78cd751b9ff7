package network

import (
	"fmt"
	"strings"

	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/catalog"
	"github.com/toolwarden/toolwarden/sdk"
)

// isEnvDump reports a command that prints the whole environment: env or
// printenv without operands, `export -p`, `declare -x`, bare `set`.
func isEnvDump(c *sdk.Command) bool {
	switch c.Name {
	case "env", "printenv":
		for _, a := range c.Args {
			if !strings.HasPrefix(a, "-") {
				return false
			}
		}
		return true
	case "export", "declare", "typeset":
		return len(c.Args) == 1 && (c.Args[0] == "-p" || c.Args[0] == "-x" || c.Args[0] == "-px")
	case "set":
		return len(c.Args) == 0
	}
	return false
}

// pySenders are Python calls that send a body to a host.
var pySenders = map[string]bool{"requests.post": true, "requests.put": true, "requests.patch": true,
	"requests.request": true, "requests.get": true, "httpx.post": true, "httpx.put": true, "httpx.patch": true,
	"httpx.request": true, "urllib.request.Request": true, "urllib.request.urlopen": true, "aiohttp.ClientSession.post": true,
	"http.client.HTTPConnection.request": true, "http.client.HTTPSConnection.request": true, "smtplib.SMTP.sendmail": true}

// checkPyEnvSent reports Python code that sends the whole environment
// (os.environ, dict(os.environ), os.environ.copy(), str(os.environ)) to any
// host: DATA_EXFILTRATION whatever the host (RULES.md).
func checkPyEnvSent(e *catalog.Env, add func(ev string, pos sdk.Pos, key, msg string, meta map[string]any)) {
	wholeEnv := func(v sdk.Value) bool {
		if v.Const {
			return false
		}
		t := strings.ReplaceAll(v.Str, " ", "")
		for _, w := range []string{"os.environ)", "os.environ.copy()", "os.environ}", "os.environ]", "os.environ,"} {
			if strings.Contains(t+",", w) || t == "os.environ" || strings.HasSuffix(t, "(os.environ") {
				return true
			}
		}
		return t == "os.environ" || t == "dict(os.environ)" || t == "str(os.environ)" || t == "os.environ.copy()" ||
			strings.Contains(t, "dumps(os.environ") || strings.Contains(t, "dumps(dict(os.environ")
	}
	for i := range e.Facts.Calls {
		c := &e.Facts.Calls[i]
		if !pySenders[c.Name] {
			continue
		}
		sent := false
		for _, a := range c.Args {
			sent = sent || wholeEnv(a)
		}
		for k, v := range c.Kwargs {
			if k == "data" || k == "json" || k == "params" || k == "body" || k == "headers" || k == "files" {
				sent = sent || wholeEnv(v)
			}
		}
		if sent {
			add(c.Evidence, c.Pos, "environ", fmt.Sprintf("The whole environment (os.environ) is sent out by %s.", c.Name),
				map[string]any{"api": c.Name, "dump": "os.environ"})
		}
	}
}

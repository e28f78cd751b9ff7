// Package network is the built-in rule pack for network egress: requests to
// hosts outside allowed_domains, destinations that cannot be resolved,
// downloaded code executed by an interpreter, reverse shells, data
// exfiltration and raw sockets.
package network

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/catalog"
	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/match"
	"github.com/toolwarden/toolwarden/sdk"
)

var ruleIDs = []string{"NETWORK_NON_WHITELIST_DOMAIN", "NETWORK_DYNAMIC_URL_REVIEW", "BASH_REMOTE_CODE_EXEC",
	"REVERSE_SHELL", "DATA_EXFILTRATION", "PY_SOCKET_NETWORK_ACCESS"}

// Info describes the pack for the host's describe call.
func Info() sdk.PluginInfo {
	return sdk.PluginInfo{Name: "toolwarden-network", Version: catalog.Version, Rules: catalog.Infos(ruleIDs...)}
}

// Scan judges the network facts of one scan input.
func Scan(in *sdk.ScanInput) ([]sdk.Finding, error) {
	var env catalog.Env
	if err := env.Init(in); err != nil {
		return nil, fmt.Errorf("network pack: %w", err)
	}
	e := &env
	uses := collect(e)
	checkDestinations(e, append(uses, proxyUses(e)...))
	checkRemoteCode(e)
	checkReverseShell(e, uses)
	checkExfiltration(e, uses)
	checkSockets(e, uses)
	return e.Findings(), nil
}

// collect returns the recorded network uses plus uses derived from commands
// and Python calls on lines where the analyzer recorded none, so that a
// request is judged even when a tool or API is unknown to the analyzer.
// Without derived uses it returns the recorded ones themselves, uncopied:
// the checks only read them.
func collect(e *catalog.Env) []sdk.NetworkUse {
	f := e.Facts
	uses := f.Network
	// A line counts as covered when the analyzer resolved at least a host
	// suffix there; host-less dynamic uses are re-derived from the command
	// words, which may still reveal a static suffix ("`cmd`.evil.tld").
	var resolvedLines, useLines lineSet
	for _, i := range e.Commands(kindNetTool) {
		c := &f.Commands[i]
		if resolvedLines.has(f.Network, c.Pos, true) {
			continue
		}
		uses = appendCommandUses(e, uses, len(f.Network), i)
	}
	for i := range f.Calls {
		c := &f.Calls[i]
		if _, ok := netAPIs[c.Name]; !ok || useLines.has(f.Network, c.Pos, false) {
			continue
		}
		if n, ok := callUse(c); ok {
			uses = appendUse(uses, len(f.Network), n)
		}
	}
	return uses
}

// appendUse appends n to uses, copying the recorded uses (the first
// recorded of them, still f.Network) into a new slice first.
func appendUse(uses []sdk.NetworkUse, recorded int, n sdk.NetworkUse) []sdk.NetworkUse {
	if len(uses) == recorded {
		uses = append(make([]sdk.NetworkUse, 0, recorded+4), uses...)
	}
	return append(uses, n)
}

// lineSet answers whether a recorded network use is on a line (and
// depth): by a scan of the few uses most scripts have, by a map built on
// first use beyond that.
type lineSet struct {
	lines map[[2]int]bool
}

// has reports whether a use of network is at pos's line and depth; with
// resolved, only uses that resolved a host or are static count.
func (s *lineSet) has(network []sdk.NetworkUse, pos sdk.Pos, resolved bool) bool {
	if len(network) <= 16 {
		for i := range network {
			n := &network[i]
			if n.Pos.Line == pos.Line && n.Pos.Depth == pos.Depth && (!resolved || n.Host != "" || !n.Dynamic) {
				return true
			}
		}
		return false
	}
	if s.lines == nil {
		s.lines = make(map[[2]int]bool, len(network))
		for i := range network {
			if n := &network[i]; !resolved || n.Host != "" || !n.Dynamic {
				s.lines[[2]int{n.Pos.Line, n.Pos.Depth}] = true
			}
		}
	}
	return s.lines[[2]int{pos.Line, pos.Depth}]
}

var downloaders = map[string]bool{"curl": true, "wget": true, "fetch": true, "aria2c": true, "http": true,
	"https": true, "xh": true, "lwp-download": true, "GET": true, "POST": true, "lynx": true, "w3m": true}

// The commands each check walks (see catalog.Kind).
var (
	kindNetTool = catalog.NamesKind(append([]string{"curl", "wget", "aria2c", "http", "https", "xh", "fetch", "git"},
		hostTools...)...)
	kindDownload = catalog.NamesKind("curl", "wget", "aria2c", "http", "https", "xh", "fetch")
	kindHostTool = catalog.NamesKind(hostTools...)
	kindGit      = catalog.NamesKind("git")
	kindNc       = catalog.NamesKind("nc", "ncat", "netcat", "nc.traditional", "nc.openbsd", "pwncat", "cryptcat")
	kindNetcat   = catalog.NamesKind(netcats...)
	kindSocat    = catalog.NamesKind("socat")
	// kindRunner: commands that run code they read (interpreters, eval,
	// source) and, with kindScript, those whose word is a script path.
	kindRunner = catalog.NewKind(catalog.KindSpec{Names: append(catalog.InterpreterNames(), "eval", "source", "."),
		Prefixes: catalog.InterpreterPrefixes, ScriptPath: true})
	// kindShellOrNet: what checkReverseShell asks about per command.
	kindShellOrNet = catalog.NewKind(catalog.KindSpec{
		Names: append(append(catalog.InterpreterNames(), netcats...), "nc", "ncat", "netcat", "nc.traditional",
			"nc.openbsd", "pwncat", "cryptcat", "socat", "exec"),
		Prefixes: catalog.InterpreterPrefixes})
	kindSender = catalog.NamesKind(netSenders...)
)

// appendCommandUses appends the network uses of a download, host or git
// command.
func appendCommandUses(e *catalog.Env, out []sdk.NetworkUse, recorded int, i int32) []sdk.NetworkUse {
	c := &e.Facts.Commands[i]
	switch {
	case e.Of(i, kindDownload):
		ops, idx := catalog.Operands(c)
		for k, o := range ops {
			dyn := catalog.ArgDynamic(c, idx[k])
			if strings.Contains(o, "://") || dyn {
				n := parseDest(o, dyn)
				n.Via, n.Evidence, n.Pos = c.Name, c.Evidence, c.Pos
				out = appendUse(out, recorded, n)
			}
		}
	case e.Of(i, kindHostTool):
		ops, idx := catalog.Operands(c)
		for k, o := range ops {
			o = strings.TrimPrefix(o, "@")
			if strings.HasPrefix(o, "+") || !looksLikeHost(o) {
				continue
			}
			n := parseDest(o, catalog.ArgDynamic(c, idx[k]))
			n.Via, n.Evidence, n.Pos = c.Name, c.Evidence, c.Pos
			out = appendUse(out, recorded, n)
			break
		}
	case e.Of(i, kindGit):
		sub, _ := catalog.FirstOperand(c.Args, "-C", "-c")
		if sub != "clone" && sub != "ls-remote" && sub != "fetch" && sub != "pull" && sub != "push" {
			return out
		}
		ops, idx := catalog.Operands(c)
		for k, o := range ops {
			if k == 0 || (sub != "clone" && !strings.Contains(o, "://")) {
				continue
			}
			if k > 1 {
				break // the clone directory
			}
			n := parseDest(o, catalog.ArgDynamic(c, idx[k]))
			n.Via, n.Evidence, n.Pos = "git", c.Evidence, c.Pos
			out = appendUse(out, recorded, n)
		}
	}
	return out
}

// hostTools take a bare host name operand.
var hostTools = []string{"ping", "ping6", "dig", "nslookup", "host", "traceroute", "tracepath", "whois", "mtr",
	"nc", "ncat", "netcat", "telnet", "ssh", "sftp", "ftp", "drill", "nping", "hping3"}

// looksLikeHost accepts "example.com", "user@host.tld", "10.0.0.1" and
// partly dynamic names ("$(whoami).evil.tld"); it rejects paths and numbers.
func looksLikeHost(s string) bool {
	if s == "" || strings.HasPrefix(s, "/") || strings.HasPrefix(s, ".") || strings.Contains(s, "://") {
		return false
	}
	if i := strings.IndexByte(s, '@'); i >= 0 {
		s = s[i+1:]
	}
	return strings.Contains(s, ".") || s == "localhost" || strings.ContainsAny(s, "$`")
}

// parseDest derives a destination from a URL, "user@host:path" or a bare
// host. For a partly dynamic host it keeps the static suffix after the last
// expansion ("$(whoami).attacker.tld" → "attacker.tld", DataInHost).
func parseDest(s string, dynamic bool) sdk.NetworkUse {
	n := sdk.NetworkUse{URL: s, Dynamic: dynamic || strings.ContainsAny(s, "$`")}
	rest := s
	if i := strings.Index(s, "://"); i >= 0 && !strings.ContainsAny(s[:i], "$`/") {
		n.Scheme = strings.ToLower(s[:i])
		rest = s[i+3:]
	}
	host := authority(rest)
	host = host[sdk.UserinfoEnd(host):]
	if n.Scheme == "" {
		// scp-like "host:path" (git@github.com:org/repo.git).
		if i := strings.IndexByte(host, ':'); i >= 0 && !strings.Contains(host[i+1:], ":") {
			if _, err := strconv.Atoi(host[i+1:]); err != nil {
				host = host[:i]
			}
		}
	}
	if n.Dynamic {
		suffix, expanded := staticSuffix(host)
		if expanded {
			suffix = strings.TrimPrefix(suffix, ".")
			if strings.Contains(suffix, ".") {
				n.DataInHost = true
				host = suffix
			} else {
				host = ""
			}
		}
	}
	if u, err := url.Parse("//" + host); err == nil && u.Host != "" {
		host = u.Hostname()
	}
	n.Host = match.NormalizeHost(host)
	return n
}

// authority returns the host[:port] part of rest, ending at the first "/",
// "?" or "#" outside a shell expansion.
func authority(rest string) string {
	depth, tick := 0, false
	for i := 0; i < len(rest); i++ {
		switch c := rest[i]; {
		case c == '`':
			tick = !tick
		case c == '$' && i+1 < len(rest) && (rest[i+1] == '(' || rest[i+1] == '{'):
			depth++
			i++
		case (c == ')' || c == '}') && depth > 0:
			depth--
		case (c == '/' || c == '?' || c == '#') && depth == 0 && !tick:
			return rest[:i]
		}
	}
	return rest
}

// staticSuffix returns the text after the last shell expansion in s and
// whether s has one ($NAME, ${...}, $(...), backticks).
func staticSuffix(s string) (string, bool) {
	end, found := 0, false
	depth, tick := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '`':
			tick = !tick
			if !tick {
				end, found = i+1, true
			}
		case tick:
		case c == '$' && i+1 < len(s) && (s[i+1] == '(' || s[i+1] == '{'):
			depth++
			i++
		case (c == ')' || c == '}') && depth > 0:
			depth--
			if depth == 0 {
				end, found = i+1, true
			}
		case depth > 0:
		case c == '$':
			j := i + 1
			for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			end, found = j, true
			i = j - 1
		}
	}
	return s[end:], found
}

// netAPIs maps Python calls to the argument index of their destination.
var netAPIs = map[string]int{
	"requests.get": 0, "requests.post": 0, "requests.put": 0, "requests.patch": 0, "requests.delete": 0,
	"requests.head": 0, "requests.options": 0, "requests.request": 1,
	"httpx.get": 0, "httpx.post": 0, "httpx.put": 0, "httpx.patch": 0, "httpx.delete": 0, "httpx.head": 0,
	"httpx.stream": 1, "httpx.request": 1,
	"urllib.request.urlopen": 0, "urllib.request.Request": 0, "urllib.request.urlretrieve": 0,
	"urllib2.urlopen": 0, "http.client.HTTPConnection": 0, "http.client.HTTPSConnection": 0,
	"socket.create_connection": 0, "socket.gethostbyname": 0, "socket.getaddrinfo": 0,
	"ftplib.FTP": 0, "smtplib.SMTP": 0, "smtplib.SMTP_SSL": 0, "telnetlib.Telnet": 0,
	"aiohttp.request": 1, "urllib3.request": 1, "websocket.create_connection": 0, "websockets.connect": 0,
	"pycurl.Curl": -1,
}

func callUse(c *sdk.Call) (sdk.NetworkUse, bool) {
	i, ok := netAPIs[c.Name]
	if !ok || i < 0 {
		return sdk.NetworkUse{}, false
	}
	n := sdk.NetworkUse{Via: c.Name, Evidence: c.Evidence, Pos: c.Pos}
	if i >= len(c.Args) {
		if v, ok := c.Kwargs["url"]; ok {
			return fromValue(n, v), true
		}
		if c.Name == "urllib.request.urlopen" {
			// urlopen(req): the Request call was judged on its own line.
			return sdk.NetworkUse{}, false
		}
		n.Dynamic = true
		return n, true
	}
	return fromValue(n, c.Args[i]), true
}

func fromValue(n sdk.NetworkUse, v sdk.Value) sdk.NetworkUse {
	if (v.Kind == "tuple" || v.Kind == "list") && len(v.Items) > 0 {
		v = v.Items[0] // (host, port)
	}
	if v.Const && v.Kind == "str" {
		d := parseDest(v.Str, false)
		d.Via, d.Evidence, d.Pos = n.Via, n.Evidence, n.Pos
		return d
	}
	if v.Kind == "name" || v.Kind == "call" || v.Kind == "expr" {
		// Objects like Request instances: the destination was judged where
		// they were built; an unresolved name stays dynamic.
		if v.Kind == "name" && strings.HasSuffix(n.Via, "urlopen") {
			return sdk.NetworkUse{Via: n.Via, Evidence: n.Evidence, Pos: n.Pos, Dynamic: true, Port: -1}
		}
	}
	n.Dynamic = true
	return n
}

func checkDestinations(e *catalog.Env, uses []sdk.NetworkUse) {
	for _, n := range uses {
		if n.Port == -1 {
			continue // urlopen of a request object built elsewhere
		}
		host := match.NormalizeHost(n.Host)
		if n.Listen {
			checkListen(e, n, host)
			continue
		}
		if host == "" {
			if !n.Dynamic || !e.Policy.ReviewUnknownNetwork {
				continue
			}
			dest := n.URL
			if dest == "" {
				dest = n.Evidence
			}
			e.Add(catalog.Finding{Rule: "NETWORK_DYNAMIC_URL_REVIEW", Evidence: n.Evidence, Pos: n.Pos, Key: n.URL,
				Message:  fmt.Sprintf("Network request via %s has a destination that cannot be resolved statically.", n.Via),
				Metadata: map[string]any{"via": n.Via, "url": n.URL}})
			continue
		}
		if e.M.Domains.Allowed(host) && !match.IsMetadataHost(host) {
			continue
		}
		meta := map[string]any{"domain": host, "via": n.Via}
		if n.URL != "" {
			meta["url"] = n.URL
		}
		f := catalog.Finding{Rule: "NETWORK_NON_WHITELIST_DOMAIN", Evidence: n.Evidence, Pos: n.Pos, Key: host,
			Metadata: meta, Message: fmt.Sprintf("Network request targets non-whitelisted domain %s.", host),
			Recommendation: fmt.Sprintf("Add %s to allowed_domains only if this destination is trusted.", host)}
		switch {
		case match.IsMetadataHost(host):
			f.Message = fmt.Sprintf("Network request targets cloud metadata address %s, which is never allowed.", host)
			f.Recommendation = "Do not read instance metadata (credentials) from a tool call."
		case match.IsLocalHost(host):
			// Local and private services (Redis, the API itself, other
			// machines of the network) are hosts like any other.
			f.Message = fmt.Sprintf("Network request targets local or private host %s, which is not in allowed_domains.", host)
			f.Recommendation = "A tool call must not reach local services; list the host in allowed_domains only if it is meant to."
		case match.IsIPLiteral(host):
			f.Message = fmt.Sprintf("Network request targets IP address %s; IP literals are never allowed.", host)
			f.Recommendation = "Use a host name listed in allowed_domains instead of an IP address."
		case !asciiHost(host):
			f.Message = fmt.Sprintf("Network request targets non-ASCII host %s, which imitates an allowed domain or is not allowed.", host)
			f.Recommendation = "Use the exact ASCII host name of a domain in allowed_domains."
		}
		e.Add(f)
	}
}

func asciiHost(h string) bool {
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 {
			return false
		}
	}
	return true
}

func isDownloader(c *sdk.Command) bool {
	for _, n := range catalog.Names(c) {
		if downloaders[n] {
			return true
		}
	}
	return false
}

func checkRemoteCode(e *catalog.Env) {
	for _, d := range e.Facts.DynamicExec {
		if d.Downloaded {
			meta := map[string]any{"kind": d.Kind, "interpreter": d.Interpreter}
			for _, n := range e.Facts.Network {
				if n.Pos.Line == d.Pos.Line && n.Host != "" {
					meta["domain"] = n.Host
					break
				}
			}
			e.Add(catalog.Finding{Rule: "BASH_REMOTE_CODE_EXEC", Evidence: d.Evidence, Pos: d.Pos, Key: "dl",
				Message:  fmt.Sprintf("Downloaded content is executed by %s.", orKind(d.Interpreter, d.Kind)),
				Metadata: meta})
		}
	}
	for _, i := range e.Commands(kindRunner) {
		c := &e.Facts.Commands[i]
		runs := false
		for _, n := range catalog.Names(c) {
			if catalog.IsInterpreter(n) || n == "eval" || n == "source" || n == "." {
				runs = true
			}
		}
		if !runs {
			continue
		}
		for s := range catalog.Feeders(e.Facts, c) {
			if isDownloader(s) {
				e.Add(catalog.Finding{Rule: "BASH_REMOTE_CODE_EXEC", Evidence: c.Evidence, Pos: c.Pos, Key: "dl",
					Message:  fmt.Sprintf("Output of %s is executed by %s.", s.Name, c.Name),
					Metadata: map[string]any{"downloader": s.Name, "interpreter": c.Name}})
				break
			}
		}
	}
	// Downloaded to a file, then run: `curl -o i.sh URL && sh i.sh`. The
	// files' writers are looked up only once some command runs a file.
	for _, i := range e.Commands(kindRunner) {
		c := &e.Facts.Commands[i]
		p := catalog.ExecutedFile(c)
		if p == "" {
			continue
		}
		for _, s := range catalog.FileSources(e.Facts)[p] {
			if isDownloader(s) {
				e.Add(catalog.Finding{Rule: "BASH_REMOTE_CODE_EXEC", Evidence: c.Evidence, Pos: c.Pos, Key: "dl",
					Message:  fmt.Sprintf("File %s downloaded by %s is executed.", p, s.Name),
					Metadata: map[string]any{"downloader": s.Name, "file": p}})
				break
			}
		}
	}
	// Python: a file saved by urlretrieve, then run by a command the
	// content starts (os.system, subprocess).
	var pyFetched map[string]bool
	for i := range e.Facts.Calls {
		c := &e.Facts.Calls[i]
		if c.Name == "urllib.request.urlretrieve" || c.Name == "urllib.urlretrieve" || c.Name == "wget.download" {
			if p, ok := catalog.ArgStr(c, 1); ok && p != "" {
				if pyFetched == nil {
					pyFetched = map[string]bool{}
				}
				pyFetched[match.CleanPath(p)] = true
			}
		}
	}
	if pyFetched != nil {
		for _, i := range e.Commands(kindRunner) {
			c := &e.Facts.Commands[i]
			if p := catalog.ExecutedFile(c); p != "" && pyFetched[match.CleanPath(p)] {
				e.Add(catalog.Finding{Rule: "BASH_REMOTE_CODE_EXEC", Evidence: c.Evidence, Pos: c.Pos, Key: "dl",
					Message:  fmt.Sprintf("File %s downloaded by urlretrieve is executed.", p),
					Metadata: map[string]any{"downloader": "urlretrieve", "file": p}})
			}
		}
	}
	for i := range e.Facts.Calls {
		c := &e.Facts.Calls[i]
		if !runsCode[c.Name] {
			continue
		}
		for _, a := range c.Args {
			if !a.Const && (strings.Contains(a.Str, "urlopen(") || strings.Contains(a.Str, "requests.get(") ||
				strings.Contains(a.Str, "httpx.get(") || strings.Contains(a.Str, "urlretrieve(")) {
				e.Add(catalog.Finding{Rule: "BASH_REMOTE_CODE_EXEC", Evidence: c.Evidence, Pos: c.Pos, Key: "dl",
					Message:  fmt.Sprintf("Downloaded content is executed by Python %s.", c.Name),
					Metadata: map[string]any{"api": c.Name}})
			}
		}
	}
}

// runsCode are the Python calls that run (or deserialize into running)
// the content they are given: downloaded bytes given to them are remote code.
var runsCode = map[string]bool{"exec": true, "eval": true, "compile": true, "pickle.loads": true, "pickle.load": true,
	"_pickle.loads": true, "cPickle.loads": true, "marshal.loads": true, "marshal.load": true, "dill.loads": true,
	"dill.load": true, "cloudpickle.loads": true, "cloudpickle.load": true, "joblib.load": true, "shelve.open": true}

func orKind(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

var netcats = []string{"nc", "ncat", "netcat", "nc.traditional", "nc.openbsd", "telnet", "socat", "openssl", "cryptcat", "pwncat"}

// connects reports whether a netcat-like command opens a connection:
// openssl only does with s_client/s_server or -connect (`openssl base64 -d`
// is a decoder, not a socket).
func connects(c *sdk.Command) bool {
	if !catalog.Is(c, "openssl") {
		return true
	}
	for _, a := range c.Args {
		if a == "s_client" || a == "s_server" || a == "-connect" || strings.HasPrefix(a, "-connect=") {
			return true
		}
	}
	return false
}

func checkReverseShell(e *catalog.Env, uses []sdk.NetworkUse) {
	add := func(ev string, pos sdk.Pos, msg string, meta map[string]any) {
		e.Add(catalog.Finding{Rule: "REVERSE_SHELL", Evidence: ev, Pos: pos, Key: "rs", Message: msg, Metadata: meta})
	}
	for _, n := range uses {
		if n.ExecShell {
			add(n.Evidence, n.Pos, fmt.Sprintf("%s attaches a shell to a network connection.", n.Via),
				map[string]any{"via": n.Via, "domain": n.Host})
		}
	}
	for _, i := range e.Commands(kindShellOrNet) {
		c := &e.Facts.Commands[i]
		switch {
		case e.Of(i, kindNc):
			for _, a := range c.Args {
				if a == "-e" || a == "-c" || strings.HasPrefix(a, "--exec") || strings.HasPrefix(a, "--sh-exec") ||
					strings.HasPrefix(a, "--lua-exec") || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "e") && len(a) <= 5) {
					add(c.Evidence, c.Pos, fmt.Sprintf("%s runs a program on a network connection.", c.Name),
						map[string]any{"command": c.Name})
					break
				}
			}
		case e.Of(i, kindSocat):
			prog, sock := false, false
			for _, a := range c.Args {
				l := strings.ToLower(a)
				if strings.HasPrefix(l, "exec:") || strings.HasPrefix(l, "system:") {
					prog = true
				}
				if strings.HasPrefix(l, "tcp") || strings.HasPrefix(l, "udp") || strings.HasPrefix(l, "openssl") ||
					strings.HasPrefix(l, "ssl") || strings.HasPrefix(l, "sctp") {
					sock = true
				}
			}
			if prog && sock {
				add(c.Evidence, c.Pos, "socat attaches a program to a network socket.", map[string]any{"command": "socat"})
			}
		}
		shell := false
		for _, n := range catalog.Names(c) {
			if catalog.Shells[n] || catalog.IsInterpreter(n) || n == "exec" {
				shell = true
			}
		}
		if shell {
			for _, r := range c.Redirects {
				if strings.HasPrefix(r.Target, "/dev/tcp/") || strings.HasPrefix(r.Target, "/dev/udp/") {
					add(c.Evidence, c.Pos, fmt.Sprintf("%s is connected to %s.", c.Name, r.Target),
						map[string]any{"command": c.Name, "target": r.Target})
				}
			}
			for s := range catalog.Feeders(e.Facts, c) {
				if catalog.Is(s, netcats...) && connects(s) {
					add(c.Evidence, c.Pos, fmt.Sprintf("%s executes what %s receives from the network.", c.Name, s.Name),
						map[string]any{"command": c.Name, "source": s.Name})
				}
			}
		}
		if e.Of(i, kindNetcat) {
			for s := range catalog.Feeders(e.Facts, c) {
				interactive := false
				for _, a := range s.Args {
					if a == "-i" || a == "-li" || a == "-il" {
						interactive = true
					}
				}
				if interactive && catalog.Is(s, "sh", "bash", "zsh", "dash", "ksh") {
					add(c.Evidence, c.Pos, fmt.Sprintf("An interactive shell is piped into %s.", c.Name),
						map[string]any{"command": c.Name, "source": s.Name})
				}
			}
		}
	}
	// Python: socket + dup2 onto stdio + a spawned shell.
	var dup, spawn *sdk.Call
	sock := false
	for i := range e.Facts.Calls {
		c := &e.Facts.Calls[i]
		switch {
		case c.Name == "os.dup2":
			dup = c
		case c.Name == "pty.spawn" || catalog.IsPythonProcessAPI(c.Name):
			spawn = c
		case strings.HasPrefix(c.Name, "socket."):
			sock = true
		}
	}
	for _, n := range uses {
		if strings.HasPrefix(n.Via, "socket") {
			sock = true
		}
	}
	if dup != nil && spawn != nil && sock {
		add(spawn.Evidence, spawn.Pos, "Python duplicates a socket onto stdin/stdout and spawns a process.",
			map[string]any{"api": spawn.Name})
	}
}

var netSenders = []string{"curl", "wget", "nc", "ncat", "netcat", "socat", "telnet", "ssh", "scp", "rsync",
	"sftp", "ftp", "mail", "sendmail", "mutt", "openssl", "http", "xh", "aws", "gsutil", "rclone"}

func checkExfiltration(e *catalog.Env, uses []sdk.NetworkUse) {
	// One finding per line: the most specific explanation is added first.
	add := func(ev string, pos sdk.Pos, _ string, msg string, meta map[string]any) {
		e.Add(catalog.Finding{Rule: "DATA_EXFILTRATION", Evidence: ev, Pos: pos, Key: "exfil", Message: msg, Metadata: meta})
	}
	// Pipelines and substitutions that feed a denied file into a sender.
	for _, i := range e.Commands(kindSender) {
		c := &e.Facts.Commands[i]
		if !catalog.Is(c, netSenders...) {
			continue
		}
		for s := range catalog.Feeders(e.Facts, c) {
			if isEnvDump(s) {
				add(c.Evidence, c.Pos, s.Name, fmt.Sprintf("The whole environment (%s) is sent out by %s.", s.Name, c.Name),
					map[string]any{"dump": s.Name, "command": c.Name})
			}
			ops, _ := catalog.Operands(s)
			for _, o := range ops {
				if pat, ok := e.M.Paths.Match(o, match.HasGlob(o)); ok {
					add(c.Evidence, c.Pos, o, fmt.Sprintf("Denied path %s is read and sent out by %s.", o, c.Name),
						map[string]any{"path": o, "pattern": pat, "command": c.Name})
				}
			}
			for _, r := range s.Redirects {
				if r.Op == "<" {
					if pat, ok := e.M.Paths.Match(r.Target, false); ok {
						add(c.Evidence, c.Pos, r.Target, fmt.Sprintf("Denied path %s is read and sent out by %s.", r.Target, c.Name),
							map[string]any{"path": r.Target, "pattern": pat, "command": c.Name})
					}
				}
			}
		}
	}
	checkPyEnvSent(e, add)
	// Whether content reads a denied path matters only for uploads to hosts
	// not allowed: it is found out on the first such use.
	deniedRead, known := false, false
	readsDenied := func() bool {
		if !known {
			known = true
			for i := range e.Facts.Files {
				fa := &e.Facts.Files[i]
				if fa.Op == "ref" {
					continue
				}
				if _, ok := e.M.Paths.Match(fa.Path, fa.Glob); ok {
					deniedRead = true
					break
				}
			}
		}
		return deniedRead
	}
	for _, n := range uses {
		host := match.NormalizeHost(n.Host)
		allowed := host != "" && e.M.Domains.Allowed(host)
		switch {
		case n.DataInHost && host != "" && !allowed:
			add(n.Evidence, n.Pos, host, fmt.Sprintf("Command output or variables are encoded into host names under %s (DNS exfiltration).", host),
				map[string]any{"domain": host, "via": n.Via})
		case n.Upload && n.UploadFrom != "" && n.UploadFrom != "-":
			if pat, ok := e.M.Paths.Match(n.UploadFrom, match.HasGlob(n.UploadFrom)); ok {
				add(n.Evidence, n.Pos, n.UploadFrom, fmt.Sprintf("Denied path %s is sent over the network.", n.UploadFrom),
					map[string]any{"path": n.UploadFrom, "pattern": pat, "domain": host})
			} else if !allowed {
				add(n.Evidence, n.Pos, n.UploadFrom, fmt.Sprintf("Local file %s is uploaded to non-whitelisted host %s.", n.UploadFrom, orKind(host, "(unresolved)")),
					map[string]any{"path": n.UploadFrom, "domain": host})
			}
		case (n.Upload || n.DataInHost) && !allowed && readsDenied():
			add(n.Evidence, n.Pos, host, fmt.Sprintf("Content reads a denied path and sends data to %s.", orKind(host, "an unresolved host")),
				map[string]any{"domain": host, "via": n.Via})
		}
	}
	// A secret-named variable or the whole environment sent in a request is exfiltration whatever
	// the host, allowed ones included (RULES.md DATA_EXFILTRATION): an
	// allowed host is where code may come from, not where secrets may go.
	for _, o := range e.Facts.Outputs {
		if o.Sink != "network" {
			continue
		}
		for _, v := range o.Vars {
			switch {
			case v == "*":
				// the whole environment (dict(os.environ), /proc/self/environ)
				// holds every secret-named variable's value
				add(o.Evidence, o.Pos, v, "The whole environment is sent over the network.",
					map[string]any{"variable": v})
			case match.IsSecretName(v):
				add(o.Evidence, o.Pos, v, fmt.Sprintf("Secret variable %s is sent over the network.", v),
					map[string]any{"variable": v})
			}
		}
	}
}

// isSocketVia reports whether a network use is a raw socket (connect,
// sendto, bind) rather than a name lookup.
func isSocketVia(v string) bool {
	return strings.HasPrefix(v, "socket") && !strings.Contains(v, "gethostby") &&
		!strings.Contains(v, "getaddrinfo") && !strings.Contains(v, "getfqdn") && !strings.Contains(v, "getnameinfo")
}

func checkSockets(e *catalog.Env, uses []sdk.NetworkUse) {
	okHost := false
	reported := false
	for _, n := range uses {
		if !isSocketVia(n.Via) {
			continue
		}
		if n.Listen {
			okHost = true // a server socket: judged by the connect side
			continue
		}
		host := match.NormalizeHost(n.Host)
		if host != "" && e.M.Domains.Allowed(host) {
			okHost = true
			continue
		}
		what := host
		if what == "" {
			what = "an unresolved host"
		}
		reported = true
		f := catalog.Finding{Rule: "PY_SOCKET_NETWORK_ACCESS", Evidence: n.Evidence, Pos: n.Pos, Key: host,
			Message:  fmt.Sprintf("Raw socket connects to %s, which is not in allowed_domains.", what),
			Metadata: map[string]any{"domain": host, "via": n.Via}}
		e.Add(f)
	}
	if reported || okHost {
		return
	}
	for i := range e.Facts.Calls {
		c := &e.Facts.Calls[i]
		if c.Name == "socket.socket" || c.Name == "socket.create_connection" {
			e.Add(catalog.Finding{Rule: "PY_SOCKET_NETWORK_ACCESS", Evidence: c.Evidence, Pos: c.Pos, Key: "sock",
				Message:  fmt.Sprintf("Raw socket via %s to a host that cannot be verified against allowed_domains.", c.Name),
				Metadata: map[string]any{"api": c.Name}})
			return
		}
	}
}

// checkListen reports a listening socket on any address other than
// loopback: a workload must not open a port to the network.
func checkListen(e *catalog.Env, n sdk.NetworkUse, host string) {
	if host != "" && match.IsLoopback(host) {
		return
	}
	what := host
	if what == "" || what == "0.0.0.0" || what == "::" {
		what = "every interface"
	}
	e.Add(catalog.Finding{Rule: "PY_SOCKET_NETWORK_ACCESS", Evidence: n.Evidence, Pos: n.Pos, Key: "listen:" + host,
		Message:        fmt.Sprintf("Listening socket on %s opens a port to the network.", what),
		Recommendation: "Bind servers to 127.0.0.1 only, or do not listen from a tool call.",
		Metadata:       map[string]any{"domain": host, "via": n.Via, "listen": true}})
}

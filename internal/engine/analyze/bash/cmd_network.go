package bash

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/toolwarden/toolwarden/sdk"
)

// The network topic: the clients whose operands are hosts and URLs —
// curl, wget, nc, socat, ssh, scp/rsync, telnet, DNS and HTTP tools — and
// the parsing of destinations and proxies they share.

// registerNetworkCommands registers the network aspect of the clients.
func registerNetworkCommands(r *registry) {
	const topic = "network"
	r.net(topic, (*analyzer).curl, "curl")
	r.net(topic, (*analyzer).wget, "wget")
	r.net(topic, (*analyzer).netcat, "nc", "ncat", "netcat")
	r.net(topic, (*analyzer).socat, "socat")
	r.net(topic, (*analyzer).sshNet, "ssh")
	r.net(topic, (*analyzer).copyRemote, "scp", "sftp", "rsync")
	r.net(topic, (*analyzer).telnetNet, "telnet", "ftp")
	r.net(topic, (*analyzer).dns, "nslookup", "dig", "host", "drill", "ping", "ping6", "traceroute", "mtr", "whois")
	r.net(topic, (*analyzer).httpieNet, "http", "https", "xh", "xhs", "httpie")
	r.net(topic, (*analyzer).opensslNet, "openssl")
	r.net(topic, (*analyzer).urlArgsNet, "aria2c", "fetch")
}

// sshNet: ssh [opts] HOST [CMD…]: the host, the key and config files it
// reads, and the remote command.
func (a *analyzer) sshNet(s *syntax.Stmt, _ string, args []field, c *ctx) {
	ops := scanOpts(args, "bcDEeFIiJLlmOopQRSWw", nil, func(opt string, v *field) {
		if (opt == "-i" || opt == "-F") && v != nil {
			a.fileAccess(s, *v, "read", "ssh", c)
		}
	})
	if len(ops) > 0 {
		a.addNet(s, ops[0], "ssh", "ssh", func(n *sdk.NetworkUse) {
			if n.URL == "" {
				n.Scheme = "ssh"
			}
		})
	}
	if rest := sshCommand(args); len(rest) > 0 {
		// ssh HOST CMD…: the remote shell runs CMD; what it does is
		// judged like local shell code (`ssh localhost 'rm -rf /'`).
		code := spaceJoin(rest)
		a.dynExec(s, "shell_c", "ssh", code, code, true)
	}
}

// telnetNet: telnet/ftp HOST [PORT].
func (a *analyzer) telnetNet(s *syntax.Stmt, name string, args []field, _ *ctx) {
	ops := scanOpts(args, "bels", nil, func(string, *field) {})
	if len(ops) > 0 {
		a.addNet(s, ops[0], "", name, func(n *sdk.NetworkUse) {
			if len(ops) > 1 {
				n.Port, _ = strconv.Atoi(ops[1].s)
			}
		})
	}
}

// httpieNet: http [METHOD] URL [ITEM…]; request items (a=b, f@file) are
// an upload.
func (a *analyzer) httpieNet(s *syntax.Stmt, name string, args []field, _ *ctx) {
	var vars []string
	ops := scanOpts(args, "aAv", []string{"--auth", "--session", "--output", "--verify"}, func(opt string, v *field) {
		if v != nil && (opt == "-a" || opt == "--auth") {
			vars = append(vars, v.varNames()...)
		}
	})
	// The URL and every request item (Header:value, field=value,
	// field:=json, param==value) are sent.
	defer func() { a.sentVars(s, vars) }()
	for _, f := range ops {
		vars = append(vars, f.varNames()...)
	}
	for i, f := range ops {
		if i == 0 && isUpperWord(f.s) {
			continue
		}
		scheme := "http"
		if name == "https" || name == "xhs" {
			scheme = "https"
		}
		upload := false
		for _, it := range ops[i+1:] {
			if strings.Contains(it.s, "=") || strings.Contains(it.s, "@") {
				upload = true
			}
		}
		a.addNet(s, f, scheme, name, func(n *sdk.NetworkUse) { n.Upload = upload })
		break
	}
}

// opensslNet: openssl s_client -connect HOST:PORT.
func (a *analyzer) opensslNet(s *syntax.Stmt, _ string, args []field, _ *ctx) {
	a.serveWith(s, "openssl s_server", serverCommands["openssl"], args)
	for i, f := range args {
		if f.s == "-connect" && i+1 < len(args) {
			a.addNet(s, args[i+1], "", "openssl", nil)
		}
	}
}

// urlArgsNet: every URL operand is a destination (aria2c, fetch).
func (a *analyzer) urlArgsNet(s *syntax.Stmt, name string, args []field, _ *ctx) {
	for _, f := range args {
		if strings.Contains(f.s, "://") {
			a.addNet(s, f, "", name, nil)
		}
	}
}

// netTools are commands that move data over the network; output piped into
// them leaves the machine, and their output piped into an interpreter is
// downloaded code.
var netTools = map[string]bool{"curl": true, "wget": true, "nc": true, "ncat": true, "netcat": true,
	"socat": true, "telnet": true, "ssh": true, "scp": true, "sftp": true, "rsync": true, "ftp": true,
	"http": true, "https": true, "xh": true, "aria2c": true, "fetch": true, "lwp-request": true, "openssl": true}

// downloaders produce remote content on stdout.
var downloaders = map[string]bool{"curl": true, "wget": true, "nc": true, "ncat": true, "netcat": true,
	"socat": true, "http": true, "https": true, "xh": true, "fetch": true, "aria2c": true, "lwp-request": true,
	"lynx": true, "telnet": true}

// dest is a parsed network destination.
type dest struct {
	url, host, scheme string
	port              int
	dynamic, dataIn   bool
}

// parseDest parses a URL or host[:port] from field f. Dynamic parts of the
// host make it Dynamic and keep only the static suffix after them.
func parseDest(f field, defScheme string) dest {
	s := f.s
	d := dest{}
	hostStart := 0
	rest := s
	if k := strings.Index(s, "://"); k > 0 && isScheme(s[:k]) {
		d.scheme = strings.ToLower(s[:k])
		d.url = s
		hostStart = k + 3
		rest = s[hostStart:]
	} else if defScheme != "" {
		d.scheme = defScheme
	}
	end := len(rest)
	if k := strings.IndexAny(rest, "/?#"); k >= 0 {
		end = k
	}
	auth := rest[:end]
	if k := sdk.UserinfoEnd(auth); k > 0 {
		hostStart += k
		auth = auth[k:]
	}
	hostEnd := hostStart + len(auth)
	host := auth
	if strings.HasPrefix(host, "[") {
		if k := strings.IndexByte(host, ']'); k > 0 {
			if p, err := strconv.Atoi(strings.TrimPrefix(host[k+1:], ":")); err == nil {
				d.port = p
			}
			host = host[1:k]
		}
	} else if k := strings.LastIndexByte(host, ':'); k >= 0 {
		if p, err := strconv.Atoi(host[k+1:]); err == nil {
			d.port = p
		}
		host = host[:k]
		hostEnd = hostStart + k
	}
	// Dynamic parts inside the host.
	lastDyn := -1
	for _, r := range f.dynSpans() {
		if r[0] < hostEnd && r[1] > hostStart {
			if r[1] > lastDyn {
				lastDyn = r[1]
			}
		}
	}
	if lastDyn >= 0 {
		d.dynamic = true
		suffix := ""
		if lastDyn < hostEnd {
			suffix = s[lastDyn:hostEnd]
		}
		suffix = strings.TrimLeft(suffix, ".")
		if k := strings.LastIndexByte(suffix, ':'); k >= 0 {
			suffix = suffix[:k]
		}
		if strings.Contains(suffix, ".") || (suffix != "" && lastDyn < hostEnd && s[lastDyn] == '.') {
			d.dataIn = true
			d.host = strings.ToLower(suffix)
		}
	} else if f.dyn && hostStart == 0 && len(f.dynSpans()) == 0 {
		d.dynamic = true
	} else {
		d.host = strings.ToLower(host)
	}
	return d
}

func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return s != ""
}

// addNet records a NetworkUse for destination f.
func (a *analyzer) addNet(s *syntax.Stmt, f field, defScheme, via string, adjust func(*sdk.NetworkUse)) {
	d := parseDest(f, defScheme)
	n := sdk.NetworkUse{URL: d.url, Host: d.host, Port: d.port, Scheme: d.scheme, Via: via,
		Dynamic: d.dynamic, DataInHost: d.dataIn, Evidence: a.evidence(s.Pos()), Pos: a.pos(s.Pos())}
	if adjust != nil {
		adjust(&n)
	}
	a.b.Facts.Network = append(a.b.Facts.Network, n)
}

// devTCP records bash's /dev/tcp/host/port redirection.
func (a *analyzer) devTCP(s *syntax.Stmt, f field, cmdName string) int {
	rest := strings.TrimPrefix(strings.TrimPrefix(f.s, "/dev/tcp/"), "/dev/udp/")
	scheme := "tcp"
	if strings.HasPrefix(f.s, "/dev/udp/") {
		scheme = "udp"
	}
	host, port, _ := strings.Cut(rest, "/")
	hf := field{s: host}
	off := len(f.s) - len(rest)
	var spans [][2]int
	for _, r := range f.dynSpans() {
		spans = append(spans, [2]int{r[0] - off, r[1] - off})
	}
	hf.setSpans(spans)
	d := parseDest(hf, "")
	n := sdk.NetworkUse{Host: d.host, Scheme: scheme, Via: "dev_tcp", Dynamic: d.dynamic, DataInHost: d.dataIn,
		ExecShell: isShell(cmdName), Evidence: a.evidence(s.Pos()), Pos: a.pos(s.Pos())}
	if p, err := strconv.Atoi(port); err == nil {
		n.Port = p
	}
	a.b.Facts.Network = append(a.b.Facts.Network, n)
	return len(a.b.Facts.Network) - 1
}

// optHandler sees every option of a command with its value (nil for
// flags).
type optHandler func(opt string, val *field)

// scanOpts walks the options of a command, calling onOpt for each, and
// returns its operands. shortVal and longVal name options taking a value.
func scanOpts(args []field, shortVal string, longVal []string, onOpt optHandler) []field {
	var operands []field
	for i := 0; i < len(args); i++ {
		f := args[i]
		if !strings.HasPrefix(f.s, "-") || f.s == "-" {
			operands = append(operands, f)
			continue
		}
		if f.s == "--" {
			operands = append(operands, args[i+1:]...)
			break
		}
		if strings.HasPrefix(f.s, "--") {
			opt, val, has := strings.Cut(f.s, "=")
			if has {
				v := subField(f, val, len(opt)+1)
				onOpt(opt, &v)
			} else if contains(longVal, opt) && i+1 < len(args) {
				i++
				onOpt(opt, &args[i])
			} else {
				onOpt(opt, nil)
			}
			continue
		}
		for j := 1; j < len(f.s); j++ {
			ch := f.s[j]
			opt := "-" + string(ch)
			if strings.IndexByte(shortVal, ch) >= 0 {
				if j+1 < len(f.s) {
					v := subField(f, f.s[j+1:], j+1)
					onOpt(opt, &v)
				} else if i+1 < len(args) {
					i++
					onOpt(opt, &args[i])
				}
				break
			}
			onOpt(opt, nil)
		}
	}
	return operands
}

func shiftRanges(rs [][2]int, off int) [][2]int {
	var out [][2]int
	for _, r := range rs {
		if r[1]-off > 0 {
			out = append(out, [2]int{max(r[0]-off, 0), r[1] - off})
		}
	}
	return out
}

// remoteSpec splits scp/rsync operands "[user@]host:path".
func remoteSpec(s string) (host string, ok bool) {
	if strings.Contains(s, "://") {
		return "", true
	}
	k := strings.IndexByte(s, ':')
	if k <= 0 {
		return "", false
	}
	if sl := strings.IndexByte(s, '/'); sl >= 0 && sl < k {
		return "", false
	}
	return s[:k], true
}

func isUpperWord(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

func (a *analyzer) curl(s *syntax.Stmt, _ string, args []field, c *ctx) {
	upload, remoteName := false, false
	var saved []string
	from := ""
	var vars []string
	var urls, routes []field
	ops := scanOpts(args, "dFTouHXAexKbcDEmrwyYzCUQtP", []string{"--socks4", "--socks4a", "--preproxy", "--data", "--data-raw", "--data-binary",
		"--data-urlencode", "--data-ascii", "--json", "--form", "--form-string", "--upload-file", "--output",
		"--user", "--header", "--request", "--user-agent", "--referer", "--proxy", "--config", "--cookie",
		"--cookie-jar", "--dump-header", "--cert", "--key", "--cacert", "--max-time", "--connect-timeout",
		"--retry", "--url", "--output-dir", "--resolve", "--connect-to", "--write-out", "--limit-rate", "--range",
		"--interface", "--local-port", "--unix-socket", "--socks5", "--socks5-hostname", "--proxy-user",
		"--max-filesize", "--retry-delay", "--retry-max-time", "--variable", "--trace", "--trace-ascii", "--stderr",
		// The rest of curl's value-taking options: their value is never a URL
		// (a `--noproxy '*'` must not be read as a destination named "*").
		"--noproxy", "--proxy-header", "--capath", "--ciphers", "--keepalive-time", "--expect100-timeout",
		"--happy-eyeballs-timeout-ms", "--dns-servers", "--dns-interface", "--dns-ipv4-addr", "--dns-ipv6-addr",
		"--hostpubmd5", "--hostpubsha256", "--pinnedpubkey", "--proto", "--proto-redir", "--proto-default",
		"--tls-max", "--max-redirs", "--speed-limit", "--speed-time", "--time-cond", "--netrc-file", "--ftp-port",
		"--ftp-method", "--mail-from", "--mail-rcpt", "--mail-auth", "--oauth2-bearer", "--aws-sigv4", "--cert-type",
		"--key-type", "--pass", "--proxy-cacert", "--proxy-capath", "--proxy-cert", "--proxy-cert-type",
		"--proxy-key", "--proxy-key-type", "--proxy-pass", "--proxy-ciphers", "--proxy-tlsuser",
		"--proxy-tlspassword", "--proxy-service-name", "--abstract-unix-socket", "--etag-save", "--etag-compare",
		"--parallel-max", "--create-file-mode", "--continue-at", "--engine", "--krb", "--login-options",
		"--sasl-authzid", "--service-name", "--tlsuser", "--tlspassword", "--tls13-ciphers", "--crlfile",
		"--delegation", "--egd-file", "--random-file", "--socks5-gssapi-service", "--telnet-option", "--tftp-blksize",
		"--local-port", "--max-time", "--rate", "--ip-tos", "--vlan-priority", "--curves", "--ech",
		"--unix-socket", "--url-query", "--write-out", "--config", "--header"},
		func(opt string, v *field) {
			if opt == "-O" || opt == "--remote-name" || opt == "--remote-name-all" {
				remoteName = true
			}
			if v == nil {
				return
			}
			switch opt {
			case "-d", "--data", "--data-binary", "--data-urlencode", "--data-ascii", "--json", "--data-raw":
				upload = true
				vars = append(vars, v.varNames()...)
				if opt != "--data-raw" {
					val := v.s
					if k := strings.IndexByte(val, '@'); k >= 0 && (k == 0 || opt == "--data-urlencode") {
						p := val[k+1:]
						if from == "" {
							from = p
						}
						if p != "-" {
							a.fileAccess(s, field{s: p, dyn: v.dyn}, "read", "curl", c)
						}
					}
				}
			case "-F", "--form":
				upload = true
				vars = append(vars, v.varNames()...)
				if _, val, ok := strings.Cut(v.s, "="); ok && (strings.HasPrefix(val, "@") || strings.HasPrefix(val, "<")) {
					p := val[1:]
					if k := strings.IndexByte(p, ';'); k >= 0 {
						p = p[:k]
					}
					if from == "" {
						from = p
					}
					if p != "-" {
						a.fileAccess(s, field{s: p, dyn: v.dyn}, "read", "curl", c)
					}
				}
			case "--form-string":
				upload = true
				vars = append(vars, v.varNames()...)
			case "-T", "--upload-file":
				upload = true
				if from == "" {
					from = v.s
				}
				a.fileAccess(s, *v, "read", "curl", c)
			case "--output-dir":
				a.fileAccess(s, *v, "write", "curl", c)
			case "-o", "--output":
				a.fileAccess(s, *v, "write", "curl", c)
				if !v.dyn {
					saved = append(saved, v.s)
				}
			case "-c", "--cookie-jar", "-D", "--dump-header", "--trace", "--trace-ascii", "--stderr":
				a.fileAccess(s, *v, "write", "curl", c)
			case "-K", "--config", "-b", "--cookie", "--cert", "-E", "--key", "--cacert":
				if opt == "-b" || opt == "--cookie" {
					if !strings.Contains(v.s, "=") {
						a.fileAccess(s, *v, "read", "curl", c)
					} else {
						vars = append(vars, v.varNames()...) // NAME=VALUE cookies are sent
					}
					return
				}
				a.fileAccess(s, *v, "read", "curl", c)
			case "-H", "--header", "-u", "--user", "--oauth2-bearer", "--proxy-user", "--proxy-header",
				"--url-query", "-A", "--user-agent", "-e", "--referer", "--aws-sigv4",
				"--mail-auth", "--mail-from", "--mail-rcpt", "--login-options", "--sasl-authzid":
				// Sent to the server (or the proxy) with the request.
				vars = append(vars, v.varNames()...)
			case "--url":
				urls = append(urls, *v)
			case "-x", "--proxy", "--socks4", "--socks4a", "--socks5", "--socks5-hostname", "--preproxy":
				// The connection goes to the proxy: it is the
				// destination to judge.
				routes = append(routes, *v)
			case "--resolve", "--connect-to":
				// HOST:PORT:ADDR / HOST1:PORT1:HOST2:PORT2: the
				// connection goes to ADDR / HOST2.
				if r, ok := routeTarget(opt, *v); ok {
					routes = append(routes, r)
				}
			}
		})
	urls = append(urls, ops...)
	for _, r := range routes {
		a.addNet(s, r, "http", "curl", func(n *sdk.NetworkUse) {
			n.Upload = upload
			n.UploadFrom = from
		})
	}
	for _, u := range urls {
		a.addNet(s, u, "http", "curl", func(n *sdk.NetworkUse) {
			n.Upload = upload
			n.UploadFrom = from
		})
		if remoteName && !u.dyn {
			saved = append(saved, urlBase(u.s))
		}
	}
	for _, p := range saved {
		a.fetchedTo(p)
	}
	// A variable in the URL (query string, path, userinfo) is sent too.
	for _, u := range urls {
		vars = append(vars, u.varNames()...)
	}
	a.sentVars(s, vars)
}

// sentVars records the variables a client sends (in its URL, data or
// headers) as an Output to the network.
func (a *analyzer) sentVars(s *syntax.Stmt, vars []string) {
	if len(vars) > 0 {
		a.b.Facts.Outputs = append(a.b.Facts.Outputs, sdk.Output{Sink: "network", Vars: dedup(vars),
			Evidence: a.evidence(s.Pos()), Pos: a.pos(s.Pos())})
	}
}

func (a *analyzer) wget(s *syntax.Stmt, _ string, args []field, c *ctx) {
	upload, toStdout := false, false
	saved := ""
	dir := ""
	from := ""
	var vars []string
	ops := scanOpts(args, "OoaiPUetTwQlD", []string{"--output-document", "--post-data", "--post-file",
		"--body-data", "--body-file", "--header", "--user-agent", "--user", "--password", "--directory-prefix",
		"--input-file", "--method", "--tries", "--timeout", "--referer", "--load-cookies", "--save-cookies",
		"--output-file", "--append-output"},
		func(opt string, v *field) {
			if v == nil {
				return
			}
			switch opt {
			case "--post-data", "--body-data":
				upload = true
				vars = append(vars, v.varNames()...)
			case "--post-file", "--body-file":
				upload = true
				from = v.s
				a.fileAccess(s, *v, "read", "wget", c)
			case "-O", "--output-document":
				toStdout = v.s == "-"
				if v.s != "-" {
					a.fileAccess(s, *v, "write", "wget", c)
					if !v.dyn {
						saved = v.s
					}
				}
			case "-o", "--output-file", "-a", "--append-output", "--save-cookies":
				a.fileAccess(s, *v, "write", "wget", c)
			case "-P", "--directory-prefix":
				a.fileAccess(s, *v, "write", "wget", c)
				dir = v.s
			case "-i", "--input-file", "--load-cookies":
				a.fileAccess(s, *v, "read", "wget", c)
			case "--header", "--user", "--password":
				vars = append(vars, v.varNames()...)
			case "-e", "--execute":
				// -e https_proxy=HOST:PORT routes the download through it
				if p, ok := proxySetting(v.s); ok {
					a.addNet(s, proxyField(p, v.dyn), "http", "wget", nil)
				}
			}
		})
	for _, u := range ops {
		a.addNet(s, u, "http", "wget", func(n *sdk.NetworkUse) {
			n.Upload = upload
			n.UploadFrom = from
		})
		if saved == "" && !toStdout && !u.dyn {
			p := urlBase(u.s)
			if dir != "" {
				p = dir + "/" + p
			}
			a.fetchedTo(p)
		}
	}
	a.fetchedTo(saved)
	// A variable in the URL (query string, path, userinfo) is sent too.
	for _, u := range ops {
		vars = append(vars, u.varNames()...)
	}
	a.sentVars(s, vars)
}

func (a *analyzer) netcat(s *syntax.Stmt, name string, args []field, _ *ctx) {
	listen, execShell := false, false
	port := 0
	ops := scanOpts(args, "ecpswqixXOIWTgGm", []string{"--exec", "--sh-exec", "--lua-exec", "--source-port",
		"--source", "--wait", "--idle-timeout", "--proxy", "--proxy-type", "--max-conns", "--output", "--hex-dump"},
		func(opt string, v *field) {
			switch opt {
			case "-l", "--listen":
				listen = true
			case "-e", "-c", "--exec", "--sh-exec", "--lua-exec":
				execShell = true
			case "-p", "--source-port":
				if v != nil {
					port, _ = strconv.Atoi(v.s)
				}
			}
		})
	if listen && len(ops) == 1 {
		if p, err := strconv.Atoi(ops[0].s); err == nil {
			port, ops = p, nil
		}
	}
	if len(ops) == 0 {
		if listen {
			a.b.Facts.Network = append(a.b.Facts.Network, sdk.NetworkUse{Via: name, Port: port, Listen: true,
				ExecShell: execShell, Evidence: a.evidence(s.Pos()), Pos: a.pos(s.Pos())})
		}
		return
	}
	a.addNet(s, ops[0], "", name, func(n *sdk.NetworkUse) {
		n.Listen, n.ExecShell = listen, execShell
		if len(ops) > 1 {
			if p, err := strconv.Atoi(ops[1].s); err == nil {
				n.Port = p
			}
		}
		if n.Port == 0 {
			n.Port = port
		}
	})
}

func (a *analyzer) socat(s *syntax.Stmt, _ string, args []field, _ *ctx) {
	var addrs []field
	for _, f := range args {
		if strings.HasPrefix(f.s, "-") && f.s != "-" {
			continue
		}
		addrs = append(addrs, f)
	}
	execShell := false
	for _, f := range addrs {
		t := strings.ToLower(f.s)
		if strings.HasPrefix(t, "exec:") || strings.HasPrefix(t, "system:") {
			execShell = true
		}
	}
	for _, f := range addrs {
		typ, rest, ok := strings.Cut(f.s, ":")
		if !ok {
			continue
		}
		typ = strings.ToLower(typ)
		switch {
		case strings.HasSuffix(typ, "-listen") || strings.HasSuffix(typ, "-l"):
			p, _, _ := strings.Cut(rest, ",")
			port, _ := strconv.Atoi(p)
			a.b.Facts.Network = append(a.b.Facts.Network, sdk.NetworkUse{Via: "socat", Port: port, Listen: true,
				ExecShell: execShell, Evidence: a.evidence(s.Pos()), Pos: a.pos(s.Pos())})
		case strings.HasPrefix(typ, "tcp") || strings.HasPrefix(typ, "udp") || strings.HasPrefix(typ, "openssl") ||
			strings.HasPrefix(typ, "ssl") || strings.HasPrefix(typ, "sctp"):
			hp, _, _ := strings.Cut(rest, ",")
			hf := subField(f, hp, len(typ)+1)
			a.addNet(s, hf, "", "socat", func(n *sdk.NetworkUse) {
				n.Scheme = strings.TrimRight(typ, "46")
				n.ExecShell = execShell
			})
		}
	}
}

func (a *analyzer) copyRemote(s *syntax.Stmt, name string, args []field, c *ctx) {
	shortVal := "cFiJloPS"
	if name == "rsync" {
		shortVal = "eBfT"
	}
	ops := scanOpts(args, shortVal, []string{"--exclude", "--include", "--rsh", "--filter", "--exclude-from",
		"--include-from", "--files-from", "--port", "--password-file", "--chmod", "--chown", "--backup-dir",
		"--suffix", "--temp-dir", "--timeout", "--bwlimit", "--log-file", "--partial-dir", "--compare-dest"},
		func(opt string, v *field) {
			if v != nil && opt == "-i" && name != "rsync" {
				a.fileAccess(s, *v, "read", name, c)
			}
		})
	if len(ops) == 0 {
		return
	}
	remoteLast := false
	if _, ok := remoteSpec(ops[len(ops)-1].s); ok && len(ops) > 1 {
		remoteLast = true
	}
	from := ""
	for i, f := range ops {
		host, remote := remoteSpec(f.s)
		last := i == len(ops)-1 && len(ops) > 1
		if remote {
			hf := f
			if host != "" {
				hf = subField(f, host, 0)
			}
			scheme := "ssh"
			if name == "rsync" && strings.HasPrefix(f.s, "rsync://") {
				scheme = ""
			}
			a.addNet(s, hf, scheme, name, func(n *sdk.NetworkUse) {
				if last && remoteLast {
					n.Upload = true
				}
			})
			continue
		}
		if name == "sftp" {
			a.addNet(s, f, "ssh", name, nil)
			continue
		}
		if last {
			a.addFile(s, f, "copy_to", name, c, fileFlags{})
		} else {
			if from == "" {
				from = f.s
			}
			a.addFile(s, f, "copy_from", name, c, fileFlags{recursive: name == "rsync"})
		}
	}
	if !remoteLast && len(ops) >= 2 && name != "sftp" {
		var local []field
		for _, f := range ops[:len(ops)-1] {
			if _, remote := remoteSpec(f.s); !remote {
				local = append(local, f)
			}
		}
		a.landInRoot(s, name, local, ops[len(ops)-1], name == "rsync", name == "scp" && copiesTrees("cp", args) || name == "rsync" && copiesTrees(name, args), c)
	}
	if remoteLast && from != "" {
		for i := range a.b.Facts.Network {
			n := &a.b.Facts.Network[i]
			if n.Upload && n.UploadFrom == "" && n.Via == name {
				n.UploadFrom = normPath(from)
			}
		}
	}
}

// sshCommand returns the words after ssh's destination: the remote
// command line, options included (`ssh h rm -rf /`).
func sshCommand(args []field) []field {
	for i := 0; i < len(args); i++ {
		f := args[i].s
		if f == "--" {
			i++
			if i+1 < len(args) {
				return args[i+1:]
			}
			return nil
		}
		if strings.HasPrefix(f, "-") && len(f) > 1 {
			if len(f) == 2 && strings.IndexByte("bcDEeFIiJLlmOopQRSWw", f[1]) >= 0 {
				i++
			}
			continue
		}
		return args[i+1:]
	}
	return nil
}

func (a *analyzer) dns(s *syntax.Stmt, name string, args []field, _ *ctx) {
	via := "dns"
	if strings.HasPrefix(name, "ping") || name == "traceroute" || name == "mtr" || name == "whois" {
		via = name
	}
	shortVal := "tcpqfkbyWNRm"
	if via != "dns" {
		shortVal = "ciWwstIlpQMSFm"
	}
	ops := scanOpts(args, shortVal, nil, func(string, *field) {})
	for _, f := range ops {
		if strings.HasPrefix(f.s, "+") {
			continue
		}
		if strings.HasPrefix(f.s, "@") {
			continue
		}
		if isUpperWord(f.s) && len(f.s) <= 5 {
			continue
		}
		a.addNet(s, f, "", via, nil)
		return
	}
}

// urlBase is the file name a download of u is saved under by default.
func urlBase(u string) string {
	if k := strings.Index(u, "://"); k >= 0 {
		u = u[k+3:]
	}
	if k := strings.IndexAny(u, "?#"); k >= 0 {
		u = u[:k]
	}
	k := strings.IndexByte(u, '/')
	if k < 0 || k == len(u)-1 {
		return "index.html"
	}
	b := u[strings.LastIndexByte(u, '/')+1:]
	if b == "" {
		return "index.html"
	}
	return b
}

// subField is the part of f starting at byte off, with value s (a prefix
// of that part), keeping dynamic spans and variables.
func subField(f field, s string, off int) field {
	v := field{s: s, dyn: f.dyn}
	if f.x != nil {
		x := v.edit()
		x.vars = f.x.vars
		x.dynRanges = shiftRanges(f.x.dynRanges, off)
	}
	return v
}

// gitProxyKey reports a git configuration key that sets a proxy
// (http.proxy, https.proxy, http.<url>.proxy, core.gitProxy).
func gitProxyKey(k string) bool {
	k = strings.ToLower(k)
	return k == "core.gitproxy" || (strings.HasPrefix(k, "http") && strings.HasSuffix(k, ".proxy"))
}

// proxySetting returns the value of a NAME=VALUE proxy setting
// (https_proxy=…, http_proxy=…, ftp_proxy=…, all_proxy=…; either case).
func proxySetting(s string) (string, bool) {
	k, v, ok := strings.Cut(s, "=")
	if !ok || v == "" {
		return "", false
	}
	switch strings.ToLower(strings.TrimSpace(k)) {
	case "http_proxy", "https_proxy", "ftp_proxy", "all_proxy":
		return strings.TrimSpace(v), true
	}
	return "", false
}

// proxyField is a proxy value as a destination word: a bare HOST:PORT is
// an HTTP proxy URL.
func proxyField(v string, dyn bool) field {
	if !strings.Contains(v, "://") {
		v = "http://" + v
	}
	return field{s: v, dyn: dyn}
}

// routeTarget returns the host a curl --resolve / --connect-to value sends
// the connection to.
func routeTarget(opt string, v field) (field, bool) {
	if v.dyn {
		return field{s: v.s, dyn: true}, true
	}
	val := strings.TrimPrefix(v.s, "+")
	var host string
	if opt == "--resolve" {
		// HOST:PORT:ADDR[,ADDR…]; an IPv6 ADDR is bracketed.
		parts := strings.SplitN(val, ":", 3)
		if len(parts) < 3 {
			return field{}, false
		}
		host = strings.SplitN(parts[2], ",", 2)[0]
	} else {
		// HOST1:PORT1:HOST2:PORT2 (HOST2 may be an [IPv6] literal).
		parts := strings.SplitN(val, ":", 3)
		if len(parts) < 3 {
			return field{}, false
		}
		rest := parts[2]
		if strings.HasPrefix(rest, "[") {
			if k := strings.IndexByte(rest, ']'); k > 0 {
				host = rest[:k+1]
			}
		} else if k := strings.LastIndexByte(rest, ':'); k >= 0 {
			host = rest[:k]
		} else {
			host = rest
		}
	}
	if host == "" || host == "*" {
		return field{}, false
	}
	return field{s: host}, true
}

// proxyEnvNames are the variables network tools take a proxy from.
var proxyEnvNames = []string{"http_proxy", "https_proxy", "all_proxy", "ftp_proxy", "HTTP_PROXY", "HTTPS_PROXY",
	"ALL_PROXY", "FTP_PROXY"}

// proxyRoutes records the proxy a network command would connect to,
// taken from a proxy variable set before it (prefix assignment, export or
// plain assignment): the real destination of its requests.
func (a *analyzer) proxyRoutes(s *syntax.Stmt, name string) {
	seen := map[string]bool{}
	for _, n := range proxyEnvNames {
		val, ok := a.cmdEnv[n]
		if !ok {
			if v, set := a.vars[n]; set && v.static {
				val, ok = v.val, true
			}
		}
		if !ok || val == "" || seen[val] {
			continue
		}
		seen[val] = true
		a.addNet(s, field{s: val}, "http", name, nil)
	}
}

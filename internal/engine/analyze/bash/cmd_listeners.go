package bash

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/toolwarden/toolwarden/sdk"
)

// The listeners topic: programs and interpreter modules that open a
// listening server from the command line (`python3 -m http.server`, `php
// -S`, `ruby -run -e httpd`, busybox httpd, `openssl s_server`, the npm and
// Python web servers). Each is a row of data saying where the bind address
// and the port are given and what the server binds when they are omitted;
// the fact recorded is a NetworkUse with Listen set, which the rules judge
// like a listening socket from Python (RULES.md PY_SOCKET_NETWORK_ACCESS:
// any address other than loopback opens a port to the network). nc -l and
// socat LISTEN are the network topic's.

// serverSpec says how one server takes its address.
type serverSpec struct {
	// hostOpts take the bind host, or host:port; portOpts the port.
	hostOpts, portOpts []string
	// addrOperand: the first operand is host:port or a port (php -S's
	// value, gunicorn's -b are options with hostOpts instead).
	addrOperand bool
	// portOperand: the first numeric operand is the port.
	portOperand bool
	// defHost is the address bound when none is given ("" is every
	// interface); defPort the port.
	defHost string
	defPort int
	// needsOpt, when set, is an option without which the program is not a
	// server (iperf -s, openssl s_server is a subcommand: sub).
	needsOpt []string
	// sub is a subcommand that must come first (openssl s_server, flask
	// run, jupyter notebook).
	sub string
}

// serverCommands are the programs that serve by name.
var serverCommands = map[string]*serverSpec{
	"http-server":    {hostOpts: []string{"-a"}, portOpts: []string{"-p", "--port"}, defPort: 8080},
	"live-server":    {hostOpts: []string{"--host"}, portOpts: []string{"--port"}, defPort: 8080},
	"serve":          {hostOpts: []string{"-l", "--listen"}, defPort: 3000},
	"httpd":          {hostOpts: []string{"-p"}, defPort: 80}, // busybox httpd -p [IP:]PORT
	"darkhttpd":      {hostOpts: []string{"--addr"}, portOpts: []string{"--port"}, defPort: 8080},
	"mini_httpd":     {hostOpts: []string{"-h"}, portOpts: []string{"-p"}, defPort: 80},
	"iperf":          {hostOpts: []string{"-B", "--bind"}, portOpts: []string{"-p", "--port"}, needsOpt: []string{"-s", "--server"}, defPort: 5001},
	"iperf3":         {hostOpts: []string{"-B", "--bind"}, portOpts: []string{"-p", "--port"}, needsOpt: []string{"-s", "--server"}, defPort: 5201},
	"uvicorn":        {hostOpts: []string{"--host"}, portOpts: []string{"--port"}, defHost: "127.0.0.1", defPort: 8000},
	"gunicorn":       {hostOpts: []string{"-b", "--bind"}, defHost: "127.0.0.1", defPort: 8000},
	"hypercorn":      {hostOpts: []string{"-b", "--bind"}, defHost: "127.0.0.1", defPort: 8000},
	"waitress-serve": {hostOpts: []string{"--host", "--listen"}, portOpts: []string{"--port"}, defPort: 8080},
	"flask":          {sub: "run", hostOpts: []string{"-h", "--host"}, portOpts: []string{"-p", "--port"}, defHost: "127.0.0.1", defPort: 5000},
	"jupyter":        {sub: "notebook", hostOpts: []string{"--ip"}, portOpts: []string{"--port"}, defHost: "127.0.0.1", defPort: 8888},
	"jupyter-lab":    {hostOpts: []string{"--ip"}, portOpts: []string{"--port"}, defHost: "127.0.0.1", defPort: 8888},
	"php":            {hostOpts: []string{"-S"}, needsOpt: []string{"-S"}},
	"openssl":        {sub: "s_server", hostOpts: []string{"-accept"}, portOpts: []string{"-port"}, defPort: 4433},
	"twistd":         {sub: "web", hostOpts: []string{"--listen"}, portOpts: []string{"--port"}, defPort: 8080},
}

// pythonServerModules are the modules `python -m MODULE` serves with.
var pythonServerModules = map[string]*serverSpec{
	"http.server":      {hostOpts: []string{"-b", "--bind"}, portOperand: true, defPort: 8000},
	"SimpleHTTPServer": {portOperand: true, defPort: 8000},
	"CGIHTTPServer":    {portOperand: true, defPort: 8000},
	"pyftpdlib":        {hostOpts: []string{"-i", "--interface"}, portOpts: []string{"-p", "--port"}, defPort: 2121},
	"uvicorn":          serverCommands["uvicorn"],
	"gunicorn":         serverCommands["gunicorn"],
	"flask":            serverCommands["flask"],
	"aiohttp.web":      {hostOpts: []string{"-H", "--hostname"}, portOpts: []string{"-P", "--port"}, defHost: "localhost", defPort: 8080},
	"pydoc":            {hostOpts: []string{"-n"}, portOpts: []string{"-p"}, needsOpt: []string{"-p", "-b"}, defHost: "localhost"},
	"smtpd":            {addrOperand: true, defHost: "localhost", defPort: 8025},
	"jupyter":          serverCommands["jupyter"],
	"notebook":         {hostOpts: []string{"--ip"}, portOpts: []string{"--port"}, defHost: "127.0.0.1", defPort: 8888},
}

// rubyServerCode is inline ruby that serves: un.rb's httpd (`ruby -run -e
// httpd . -p 8000`, every interface by default).
var rubyServerCode = map[string]*serverSpec{
	"httpd": {hostOpts: []string{"-b", "--bind-address"}, portOpts: []string{"-p", "--port"}, defPort: 8080},
}

// registerListenerCommands registers the servers of serverCommands.
// openssl's network aspect is the network topic's, which calls serveWith
// for s_server; php -S is found by php's run aspect; python's module servers and ruby's un.rb httpd are found
// by their run aspects (cmd_interpreters.go).
func registerListenerCommands(r *registry) {
	const topic = "listeners"
	var names []string
	for n := range serverCommands {
		if n != "openssl" && n != "php" {
			names = append(names, n)
		}
	}
	r.net(topic, (*analyzer).serverNet, names...)
}

// serverNet records the listening socket of a serverCommands program.
func (a *analyzer) serverNet(s *syntax.Stmt, name string, args []field, _ *ctx) {
	if sp := serverCommands[name]; sp != nil {
		a.serveWith(s, name, sp, args)
	}
}

// pythonModuleServer records the server of `python -m MODULE ARGS`.
func (a *analyzer) pythonModuleServer(s *syntax.Stmt, name, module string, args []field) {
	if sp := pythonServerModules[module]; sp != nil {
		a.serveWith(s, name+" -m "+module, sp, args)
	}
}

// rubyServer records the server of `ruby -run -e CODE ARGS`.
func (a *analyzer) rubyServer(s *syntax.Stmt, code string, args []field) {
	code = strings.TrimSpace(code)
	if sp := rubyServerCode[code]; sp != nil {
		a.serveWith(s, "ruby -run -e "+code, sp, args)
	}
}

// serveWith reads the address of a server from its arguments by sp and
// records the listening socket. A dynamic host is recorded as such (the
// rules judge an unknown bind address like every interface).
func (a *analyzer) serveWith(s *syntax.Stmt, via string, sp *serverSpec, args []field) {
	if sp.sub != "" {
		i := 0
		for i < len(args) && strings.HasPrefix(args[i].s, "-") {
			i++
		}
		if i >= len(args) || args[i].s != sp.sub {
			return
		}
		args = args[i+1:]
	}
	has := func(list []string, opt string) (bool, string) {
		for _, o := range list {
			if opt == o {
				return true, ""
			}
			if strings.HasPrefix(o, "--") && strings.HasPrefix(opt, o+"=") {
				return true, opt[len(o)+1:]
			}
			if !strings.HasPrefix(o, "--") && len(o) == 2 && strings.HasPrefix(opt, o) && len(opt) > 2 && o != "-s" {
				return true, opt[2:]
			}
		}
		return false, ""
	}
	host, port, dyn := sp.defHost, sp.defPort, false
	needed := len(sp.needsOpt) == 0
	hostSet := false
	for i := 0; i < len(args); i++ {
		f := args[i]
		if ok, _ := has(sp.needsOpt, f.s); ok {
			needed = true
		}
		value := func(inline string) (field, bool) {
			if inline != "" {
				return field{s: inline, dyn: f.dyn}, true
			}
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			return field{}, false
		}
		if ok, inline := has(sp.hostOpts, f.s); ok {
			if v, ok := value(inline); ok {
				h, p := splitHostPort(v.s)
				host, hostSet, dyn = h, true, dyn || v.dyn
				if p > 0 {
					port = p
				}
			}
			continue
		}
		if ok, inline := has(sp.portOpts, f.s); ok {
			if v, ok := value(inline); ok {
				if p, err := strconv.Atoi(v.s); err == nil {
					port = p
				}
			}
			continue
		}
		if strings.HasPrefix(f.s, "-") {
			continue
		}
		if sp.portOperand {
			if p, err := strconv.Atoi(f.s); err == nil {
				port = p
			}
		}
		if sp.addrOperand && !hostSet {
			h, p := splitHostPort(f.s)
			host, hostSet, dyn = h, true, f.dyn
			if p > 0 {
				port = p
			}
		}
	}
	if !needed {
		return
	}
	a.b.Facts.Network = append(a.b.Facts.Network, sdk.NetworkUse{Host: strings.ToLower(host), Port: port,
		Scheme: "tcp", Via: via, Listen: true, Dynamic: dyn, Evidence: a.evidence(s.Pos()), Pos: a.pos(s.Pos())})
}

// splitHostPort splits "host:port", "[v6]:port", ":port" or "port" into
// the host ("" for every interface) and the port (0 when absent).
func splitHostPort(v string) (string, int) {
	if p, err := strconv.Atoi(v); err == nil {
		return "", p
	}
	if strings.HasPrefix(v, "[") {
		if k := strings.Index(v, "]"); k > 0 {
			h, rest := v[1:k], v[k+1:]
			p, _ := strconv.Atoi(strings.TrimPrefix(rest, ":"))
			return h, p
		}
	}
	if strings.Count(v, ":") == 1 {
		h, ps, _ := strings.Cut(v, ":")
		p, _ := strconv.Atoi(ps)
		if h == "*" {
			h = ""
		}
		return h, p
	}
	return v, 0
}

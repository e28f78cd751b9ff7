package python

import (
	"strings"
)

// The network topic: HTTP clients, urllib, sockets, mail and FTP clients.

var httpMethods = map[string]bool{"get": true, "post": true, "put": true, "patch": true, "delete": true, "head": true, "options": true, "request": true, "stream": true}

// ---- network ----

func (a *analyzer) netCall(c *callCtx) (*sym, bool) {
	n := c.name
	arg0 := c.arg(0, "")
	// The first and last dotted parts, and whether there are just two,
	// without splitting the name (this runs for every call).
	lib, _, _ := strings.Cut(n, ".")
	last := n[strings.LastIndexByte(n, '.')+1:]
	twoParts := strings.Count(n, ".") == 1
	switch {
	case (lib == "requests" || lib == "httpx" || lib == "aiohttp" || lib == "urllib3") && httpMethods[strings.ToLower(last)] &&
		(twoParts || strings.HasSuffix(n, ".Session."+last) || strings.HasSuffix(n, ".Client."+last) || strings.HasSuffix(n, ".ClientSession."+last) || strings.HasSuffix(n, ".PoolManager."+last)):
		method := strings.ToLower(last)
		u := c.arg(0, "url")
		if method == "request" || lib == "urllib3" {
			if m, ok := arg0.strVal(); ok && arg0 != nil {
				method = strings.ToLower(m)
			}
			u = c.arg(1, "url")
		}
		upload := false
		for _, k := range []string{"data", "json", "files", "content", "body", "fields"} {
			if _, ok := c.kws[k]; ok {
				upload = true
			}
		}
		if (method == "post" || method == "put" || method == "patch") && len(c.args) > 1 && last != "request" {
			upload = true
		}
		a.netURL(c, n, u, upload)
		// A session's method sends what the session carries (headers,
		// auth, cookies set on it): c.fn holds the session's marks.
		a.output(c, "network", append(a.allArgs(c), c.fn)...)
		return &sym{kind: "expr", inst: "requests.Response", download: true}, true
	case n == "requests.Session" || n == "requests.session" || n == "httpx.Client" || n == "aiohttp.ClientSession" || n == "urllib3.PoolManager" ||
		n == "httpx.AsyncClient":
		inst := n
		if n == "requests.session" {
			inst = "requests.Session"
		}
		r := &sym{kind: "expr", inst: inst}
		for _, k := range []string{"headers", "auth", "cookies", "params"} {
			sendTaint(r, c.kws[k])
		}
		return r, true
	case n == "urllib.request.Request":
		u := c.arg(0, "url")
		r := &sym{kind: "expr", inst: "urllib.request.Request", path: u}
		if d := c.arg(1, "data"); d != nil && d.kind != "none" {
			r.upload = true
			r.taint(d)
		}
		if h := c.kws["headers"]; h != nil {
			r.taint(h)
		}
		return r, true
	case n == "urllib.request.urlopen" || n == "urllib.request.OpenerDirector.open":
		u := c.arg(0, "url")
		d := c.arg(1, "data")
		upload := d != nil && d.kind != "none"
		a.netURL(c, n, u, upload)
		a.output(c, "network", u, d)
		return &sym{kind: "expr", inst: "http.client.HTTPResponse", download: true}, true
	case n == "http.client.HTTPConnection" || n == "http.client.HTTPSConnection":
		scheme := "http"
		if strings.HasSuffix(n, "SConnection") {
			scheme = "https"
		}
		i := a.netHost(c, n, scheme, c.arg(0, "host"), c.arg(1, "port"))
		if a.f.Network[i].Port == 0 {
			if scheme == "https" {
				a.f.Network[i].Port = 443
			} else {
				a.f.Network[i].Port = 80
			}
		}
		return &sym{kind: "expr", inst: "http.client.HTTPConnection", netIdx: []int{i}}, true
	case n == "http.client.HTTPConnection.request":
		if r := c.fn.recv; r != nil && (len(c.args) > 2 || c.kws["body"] != nil) {
			for _, i := range r.netIdx {
				a.f.Network[i].Upload = true
			}
		}
		a.output(c, "network", a.allArgs(c)...)
		return nil, true
	case n == "socket.socket" || n == "socket.socketpair" || n == "ssl.SSLSocket":
		return &sym{kind: "expr", inst: "socket.socket", sock: true}, true
	case n == "socket.create_connection":
		h, p := hostPort(c.arg(0, "address"))
		i := a.netHost(c, n, "tcp", h, p)
		return &sym{kind: "expr", inst: "socket.socket", sock: true, netIdx: []int{i}}, true
	case n == "socket.socket.connect" || n == "socket.socket.connect_ex" || n == "socket.socket.bind" || n == "socket.socket.sendto":
		addr := arg0
		if n == "socket.socket.sendto" {
			addr = c.arg(len(c.args)-1, "address")
			a.output(c, "network", arg0)
		}
		h, p := hostPort(addr)
		i := a.netHost(c, n, "tcp", h, p)
		if n == "socket.socket.bind" {
			a.f.Network[i].Listen = true
		}
		if r := c.fn.recv; r != nil {
			r.netIdx = append(r.netIdx, i)
		}
		return nil, true
	case n == "socket.socket.fileno" || n == "socket.socket.makefile" || n == "socket.socket.detach":
		r := &sym{kind: "expr", sock: true}
		if c.fn.recv != nil {
			r.netIdx = append(r.netIdx, c.fn.recv.netIdx...)
		}
		return r, true
	case n == "socket.socket.send" || n == "socket.socket.sendall":
		a.output(c, "network", arg0)
		return nil, true
	case n == "socket.socket.recv":
		return &sym{kind: "expr", download: true}, true
	case n == "ssl.wrap_socket" || n == "ssl.SSLContext.wrap_socket":
		if arg0 != nil {
			return arg0, true
		}
		return nil, true
	case n == "urllib.request.build_opener":
		return &sym{kind: "expr", inst: "urllib.request.OpenerDirector"}, true
	case n == "dns.resolver.resolve" || n == "dns.resolver.query" || n == "dns.resolver.Resolver.resolve" || n == "dns.resolver.Resolver.query":
		a.netHost(c, n, "dns", c.arg(0, "qname"), nil)
		return nil, true
	case n == "dns.resolver.Resolver":
		return &sym{kind: "expr", inst: n}, true
	case n == "ssl.create_default_context" || n == "ssl.SSLContext":
		return &sym{kind: "expr", inst: "ssl.SSLContext"}, true
	case n == "socket.gethostbyname" || n == "socket.gethostbyname_ex" || n == "socket.getaddrinfo" || n == "socket.gethostbyaddr":
		h := c.arg(0, "host")
		a.netHost(c, n, "dns", h, c.arg(1, "port"))
		if n == "socket.gethostbyname" && h != nil && h.isStr() {
			// the address of a name: later connections to it reach that host
			return h, true
		}
		return nil, true
	case n == "smtplib.SMTP" || n == "smtplib.SMTP_SSL" || n == "ftplib.FTP" || n == "ftplib.FTP_TLS" || n == "telnetlib.Telnet" || n == "poplib.POP3" || n == "imaplib.IMAP4" || n == "imaplib.IMAP4_SSL":
		inst := n
		if h := c.arg(0, "host"); h != nil && !(h.cnst && h.kind == "str" && h.s == "") {
			scheme := strings.ToLower(strings.SplitN(strings.TrimPrefix(n, lib+"."), "_", 2)[0])
			i := a.netHost(c, n, scheme, h, c.arg(1, "port"))
			return &sym{kind: "expr", inst: inst, netIdx: []int{i}}, true
		}
		return &sym{kind: "expr", inst: inst}, true
	case (strings.HasPrefix(n, "smtplib.") || strings.HasPrefix(n, "ftplib.") || strings.HasPrefix(n, "paramiko.")) && last == "connect":
		h := c.arg(0, "host")
		if h == nil {
			h = c.kws["hostname"]
		}
		scheme := "ssh"
		if lib != "paramiko" {
			scheme = lib[:len(lib)-3]
		}
		i := a.netHost(c, n, scheme, h, c.arg(1, "port"))
		if a.f.Network[i].Port == 0 && lib == "paramiko" {
			a.f.Network[i].Port = 22
		}
		return nil, true
	case n == "paramiko.SSHClient" || n == "paramiko.client.SSHClient":
		return &sym{kind: "expr", inst: "paramiko.SSHClient"}, true
	case strings.HasPrefix(n, "smtplib.SMTP") && (last == "sendmail" || last == "send_message"):
		a.output(c, "network", a.allArgs(c)...)
		return nil, true
	case n == "xmlrpc.client.ServerProxy" || n == "websocket.create_connection" || n == "websockets.connect" || n == "websocket.WebSocketApp" || n == "aiohttp.request" || n == "urllib3.request":
		u := c.arg(0, "url")
		if n == "aiohttp.request" || n == "urllib3.request" {
			u = c.arg(1, "url")
		}
		a.netURL(c, n, u, false)
		return &sym{kind: "expr", download: true}, true
	}
	return nil, false
}

// urlJoin resolves ref against base the way urllib.parse.urljoin does
// for the common cases (absolute, host-relative and path-relative refs).
func urlJoin(base, ref string) string {
	if strings.Contains(ref, "://") {
		return ref
	}
	i := strings.Index(base, "://")
	if i < 0 {
		return ref
	}
	rest := base[i+3:]
	hostEnd := strings.IndexByte(rest, '/')
	origin := base
	path := "/"
	if hostEnd >= 0 {
		origin = base[:i+3+hostEnd]
		path = rest[hostEnd:]
	}
	if strings.HasPrefix(ref, "//") {
		return base[:i+1] + ref
	}
	if strings.HasPrefix(ref, "/") {
		return origin + ref
	}
	if j := strings.LastIndexByte(path, '/'); j >= 0 {
		path = path[:j+1]
	}
	return origin + path + ref
}

func init() {
	registerAPI("network", apiServer, "socketserver.TCPServer", "socketserver.UDPServer", "socketserver.ThreadingTCPServer",
		"socketserver.ThreadingUDPServer", "socketserver.ForkingTCPServer", "socketserver.ForkingUDPServer",
		"http.server.HTTPServer", "http.server.ThreadingHTTPServer", "xmlrpc.server.SimpleXMLRPCServer",
		"xmlrpc.server.DocXMLRPCServer", "socket.create_server")
	registerAPI("network", apiStartServer, "asyncio.start_server", "asyncio.start_unix_server")
	registerAPI("network", apiMakeServer, "wsgiref.simple_server.make_server")
	registerAPI("network", apiRunApp, "aiohttp.web.run_app")
	registerAPI("network", apiProxyHandler, "urllib.request.ProxyHandler", "urllib3.ProxyManager", "urllib3.poolmanager.ProxyManager")
}

// listen records a listening socket on host:port (an empty or absent host
// is every interface).
func (a *analyzer) listen(c *callCtx, h, port *sym) *sym {
	if h == nil || h.kind == "none" {
		h = strSym("")
	}
	i := a.netHost(c, c.name, "tcp", h, port)
	a.f.Network[i].Listen = true
	return &sym{kind: "expr", inst: c.name, netIdx: []int{i}}
}

// apiServer handles the server classes that bind and listen on the address
// they are given: TCPServer((host, port), Handler) opens a port as
// socket.bind + listen does.
func apiServer(a *analyzer, c *callCtx) *sym {
	h, p := hostPort(c.arg(0, "server_address"))
	if c.name == "socket.create_server" {
		h, p = hostPort(c.arg(0, "address"))
	}
	return a.listen(c, h, p)
}

// apiStartServer handles asyncio.start_server(cb, host, port); a Unix
// socket is local and is not recorded.
func apiStartServer(a *analyzer, c *callCtx) *sym {
	if c.name == "asyncio.start_unix_server" {
		return nil
	}
	return a.listen(c, c.arg(1, "host"), c.arg(2, "port"))
}

// apiMakeServer handles wsgiref's make_server(host, port, app).
func apiMakeServer(a *analyzer, c *callCtx) *sym {
	return a.listen(c, c.arg(0, "host"), c.arg(1, "port"))
}

// apiRunApp handles aiohttp.web.run_app(app, host=…, port=…), which listens
// on every interface, port 8080, by default.
func apiRunApp(a *analyzer, c *callCtx) *sym {
	p := c.kws["port"]
	if p == nil {
		p = intSym(8080)
	}
	return a.listen(c, c.kws["host"], p)
}

// proxyURL is a proxy setting as a URL (a bare "host:port" is HTTP).
func proxyURL(v *sym) *sym {
	if v != nil && v.isStr() && v.s != "" && !strings.Contains(v.s, "://") {
		return strSym("http://" + v.s).taint(v)
	}
	return v
}

// proxyDestinations records every proxy a call is routed through as a
// destination of its own: with a proxy, the proxy is the host the
// connection really reaches (RULES.md principle 6). v is a proxies dict
// ({"https": URL}) or one URL.
func (a *analyzer) proxyDestinations(c *callCtx, v *sym) {
	if v == nil || v.kind == "none" {
		return
	}
	if v.kind == "dict" {
		for _, it := range v.items {
			if it != nil && it.kind != "none" {
				a.netURL(c, c.name+"(proxy)", proxyURL(it), false)
			}
		}
		return
	}
	a.netURL(c, c.name+"(proxy)", proxyURL(v), false)
}

// apiProxyHandler handles urllib's ProxyHandler({scheme: URL}) and urllib3's
// ProxyManager(URL): each proxy is a destination.
func apiProxyHandler(a *analyzer, c *callCtx) *sym {
	a.proxyDestinations(c, c.arg(0, ""))
	return &sym{kind: "expr", inst: c.name}
}

// proxyKeywords are the keyword arguments HTTP clients take a proxy in
// (requests' proxies=, httpx's proxy= / proxies=, aiohttp's proxy=).
var proxyKeywords = []string{"proxies", "proxy", "proxy_url"}

// observeProxies records the proxies of any call that names one by
// keyword; it runs before the call's own handler.
func (a *analyzer) observeProxies(c *callCtx) {
	for _, k := range proxyKeywords {
		if v := c.kws[k]; v != nil {
			a.proxyDestinations(c, v)
		}
	}
}

// proxyEnv are the environment variables HTTP clients read a proxy from.
var proxyEnv = map[string]bool{"HTTP_PROXY": true, "HTTPS_PROXY": true, "ALL_PROXY": true, "FTP_PROXY": true}

// isProxyEnv reports whether name is a proxy variable, in either case.
func isProxyEnv(name string) bool { return proxyEnv[strings.ToUpper(name)] }

func init() {
	registerAPI("network", apiConfigParser, "flask.Flask")
	registerAPI("network", apiAppRun, "flask.Flask.run", "uvicorn.run")
	registerAPI("network", apiSessionProxiesUpdate, "requests.Session.proxies.update", "httpx.Client.proxies.update",
		"requests.Session.proxies.setdefault")
}

// apiAppRun handles the development servers of web frameworks:
// app.run(host, port) for Flask (127.0.0.1:5000 by default) and
// uvicorn.run(app, host=…, port=…) (127.0.0.1:8000). Only a host given as
// something other than loopback opens a port to the network; the rules
// judge that from the recorded address.
func apiAppRun(a *analyzer, c *callCtx) *sym {
	host, port := c.arg(0, "host"), c.arg(1, "port")
	defPort := int64(5000)
	if c.name == "uvicorn.run" {
		host, port = c.kws["host"], c.kws["port"]
		defPort = 8000
	}
	if host == nil {
		host = strSym("127.0.0.1")
	}
	if port == nil {
		port = intSym(defPort)
	}
	return a.listen(c, host, port)
}

// argSpec names where a call takes one argument: its position (-1: keyword
// only) and its keyword.
type argSpec struct {
	pos int
	kw  string
}

// listenerAPI describes a server entry point as data: where it takes its
// address — one (host, port) tuple, or host and port apart — and what it
// listens on when they are omitted. An empty default host is every
// interface. Adding a framework's server is adding a row to listenerAPIs.
type listenerAPI struct {
	names      []string
	addr       *argSpec // a (host, port) tuple
	host, port argSpec
	defHost    string
	defPort    int64
}

// listenerAPIs are the servers known beyond the socket API and the classes
// above: standard-library and framework entry points that bind and listen.
var listenerAPIs = []listenerAPI{
	// http.server.test(HandlerClass, ServerClass, protocol, port=8000, bind=None): every interface.
	{names: []string{"http.server.test"}, host: argSpec{4, "bind"}, port: argSpec{3, "port"}, defPort: 8000},
	{names: []string{"werkzeug.serving.run_simple", "werkzeug.run_simple"}, host: argSpec{0, "hostname"}, port: argSpec{1, "port"}, defHost: "127.0.0.1", defPort: 5000},
	// waitress listens on 0.0.0.0:8080 unless told otherwise.
	{names: []string{"waitress.serve"}, host: argSpec{-1, "host"}, port: argSpec{-1, "port"}, defHost: "0.0.0.0", defPort: 8080},
	{names: []string{"bottle.run"}, host: argSpec{-1, "host"}, port: argSpec{-1, "port"}, defHost: "127.0.0.1", defPort: 8080},
	{names: []string{"gevent.pywsgi.WSGIServer", "gevent.server.StreamServer", "gevent.server.DatagramServer",
		"smtpd.SMTPServer", "smtpd.DebuggingServer", "multiprocessing.connection.Listener", "pyftpdlib.servers.FTPServer"},
		addr: &argSpec{0, "address"}},
	// tornado: app.listen(port, address=''), every interface by default.
	{names: []string{"tornado.web.Application.listen", "tornado.httpserver.HTTPServer.listen", "tornado.tcpserver.TCPServer.listen"},
		host: argSpec{1, "address"}, port: argSpec{0, "port"}},
	// aiohttp.web.TCPSite(runner, host=None, port=None): every interface, 8080.
	{names: []string{"aiohttp.web.TCPSite"}, host: argSpec{1, "host"}, port: argSpec{2, "port"}, defPort: 8080},
	{names: []string{"asyncio.AbstractEventLoop.create_server", "asyncio.BaseEventLoop.create_server"}, host: argSpec{1, "host"}, port: argSpec{2, "port"}},
}

func init() {
	for i := range listenerAPIs {
		l := &listenerAPIs[i]
		registerAPI("network", func(a *analyzer, c *callCtx) *sym { return a.listenAPI(c, l) }, l.names...)
	}
	// Instances whose listen method opens the port.
	registerAPI("network", apiConfigParser, "tornado.web.Application", "tornado.httpserver.HTTPServer", "tornado.tcpserver.TCPServer")
}

// listenAPI records the listening socket a listenerAPIs entry opens.
func (a *analyzer) listenAPI(c *callCtx, l *listenerAPI) *sym {
	var h, p *sym
	if l.addr != nil {
		h, p = hostPort(c.arg(l.addr.pos, l.addr.kw))
	} else {
		h, p = c.arg(l.host.pos, l.host.kw), c.arg(l.port.pos, l.port.kw)
	}
	if h == nil || h.kind == "none" {
		h = strSym(l.defHost)
	}
	if p == nil && l.defPort != 0 {
		p = intSym(l.defPort)
	}
	return a.listen(c, h, p)
}

// sessionAttrs are the attributes of an HTTP session whose value every
// request of the session sends.
var sessionAttrs = map[string]bool{"headers": true, "auth": true, "cookies": true, "params": true}

// isSessionInst reports an HTTP client session instance.
func isSessionInst(inst string) bool {
	switch inst {
	case "requests.Session", "httpx.Client", "httpx.AsyncClient", "aiohttp.ClientSession", "urllib3.PoolManager":
		return true
	}
	return false
}

// sessionPart returns the session whose sent attribute v is
// (`s.headers`, `s.cookies`), or nil.
func sessionPart(v *sym) *sym {
	if v == nil || v.recv == nil || !isSessionInst(v.recv.inst) {
		return nil
	}
	if i := strings.LastIndexByte(v.qual, '.'); i >= 0 && sessionAttrs[v.qual[i+1:]] {
		return v.recv
	}
	return nil
}

// sendTaint marks session r with the data-flow marks of v and of its
// items (a headers dict holding os.environ['TOKEN']).
func sendTaint(r, v *sym) {
	if r == nil || v == nil {
		return
	}
	r.taint(v)
	for _, it := range v.items {
		r.taint(it)
	}
}

// apiSessionProxiesUpdate: s.proxies.update({...}) routes the session's
// requests through the proxies given, like s.proxies = {...}.
func apiSessionProxiesUpdate(a *analyzer, c *callCtx) *sym {
	if strings.HasSuffix(c.name, ".setdefault") {
		a.proxyDestinations(c, c.arg(1, ""))
		return nil
	}
	a.proxyDestinations(c, c.arg(0, ""))
	for _, k := range c.kwList {
		a.proxyDestinations(c, c.kws[k])
	}
	return nil
}

package egress

import (
	"bufio"
	"net"
	"net/http"
	"strings"
)

// hopHeaders are the hop-by-hop headers (RFC 9110 7.6.1) a proxy must not
// forward, plus Proxy-Connection, which some clients still send.
var hopHeaders = []string{
	"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade",
}

// stripHop removes hop-by-hop headers and those the Connection header names.
func stripHop(h http.Header) {
	for _, v := range h.Values("Connection") {
		for _, name := range strings.Split(v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				h.Del(name)
			}
		}
	}
	for _, name := range hopHeaders {
		h.Del(name)
	}
}

// forward serves one plain HTTP request in absolute form
// ("GET http://host/path"). The Host header must name the same host and
// port as the request URI, so a virtual-hosted upstream cannot be asked for
// another site than the one checked. One request per client connection:
// the response says Connection: close.
func (p *Proxy) forward(c net.Conn, req *http.Request, hosts []string, entry *Connection) {
	u := req.URL
	if u == nil || u.Scheme != "http" || u.Host == "" || u.Opaque != "" {
		p.refuse(c, p.log.add(entry), http.StatusBadRequest, classProtocol,
			"plain requests must use an absolute http:// URI (use CONNECT for TLS)")
		return
	}
	host, port := splitHostPortDefault(u.Host, "80")
	h, n, class, reason := p.target(host, port)
	entry.Host, entry.Port = h, n
	e := p.log.add(entry)
	if reason != "" {
		p.refuse(c, e, http.StatusForbidden, class, reason)
		return
	}
	switch len(hosts) {
	case 0:
		hosts = []string{u.Host} // HTTP/1.0 without Host: the URI decides
	case 1:
	default:
		p.refuse(c, e, http.StatusBadRequest, classProtocol, "more than one Host header")
		return
	}
	hh, hp := splitHostPortDefault(hosts[0], "80")
	if normalizeHost(hh) != h || hp != port {
		p.refuse(c, e, http.StatusForbidden, classDomain, "Host header "+hosts[0]+" differs from the request URI host "+u.Host)
		return
	}
	if req.Header.Get("Upgrade") != "" {
		p.refuse(c, e, http.StatusForbidden, classProtocol, "protocol upgrades are not forwarded")
		return
	}
	addrs, class, reason := p.resolve(p.ctx, h)
	if reason != "" {
		status := http.StatusForbidden
		if class == classUpstream {
			status = http.StatusBadGateway
		}
		p.refuse(c, e, status, class, reason)
		return
	}
	up, err := p.dialChecked(p.ctx, addrs, n)
	if err != nil {
		p.refuse(c, e, http.StatusBadGateway, classUpstream, err.Error())
		return
	}
	up, ok := p.upstream(up)
	if !ok {
		p.refuse(c, e, http.StatusBadGateway, classUpstream, "proxy closed")
		return
	}
	defer p.untrack(up)
	p.allow(e)
	pp := newPipe(c, up, p.cfg.IdleTimeout)
	defer func() { p.counted(e, pp.sent.Load(), pp.recv.Load()) }()

	stripHop(req.Header)
	req.Header.Del("Host")
	req.Host = u.Host
	req.RequestURI = ""
	req.Close = true
	if req.Body != nil && req.Body != http.NoBody {
		req.Body = readCloser{clientReader{pp, req.Body}, req.Body}
	}
	if err := req.Write(upWriter{pp}); err != nil {
		return
	}
	resp, err := http.ReadResponse(bufio.NewReader(upReader{pp}), req)
	if err != nil {
		p.log.update(e, func(e *Connection) { e.Reason = "upstream sent no valid HTTP response" })
		return
	}
	defer resp.Body.Close()
	stripHop(resp.Header)
	resp.Close = true
	_ = resp.Write(c)
}

// readCloser keeps a body's Close while reading through the pipe.
type readCloser struct {
	r interface{ Read([]byte) (int, error) }
	c interface{ Close() error }
}

func (rc readCloser) Read(b []byte) (int, error) { return rc.r.Read(b) }
func (rc readCloser) Close() error               { return rc.c.Close() }

// splitHostPortDefault splits "host[:port]", defaulting the port.
func splitHostPortDefault(hp, def string) (string, string) {
	if h, p, err := net.SplitHostPort(hp); err == nil {
		return h, p
	}
	return hp, def
}

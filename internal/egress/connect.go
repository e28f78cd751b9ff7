package egress

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"time"
)

// connect serves a CONNECT tunnel. The destination is checked by name,
// port and resolved addresses before the tunnel is opened; then the
// client's TLS ClientHello is read (not terminated) and its SNI must be
// the CONNECT host. Only then is the upstream dialled and the hello
// forwarded. A tunnel that does not start with a ClientHello is refused:
// CONNECT carries TLS only, so every tunnel's destination name is checked
// twice.
func (p *Proxy) connect(c net.Conn, br *bufio.Reader, req *http.Request, entry *Connection) {
	host, port, err := net.SplitHostPort(req.RequestURI)
	if err != nil {
		p.refuse(c, p.log.add(entry), http.StatusBadRequest, classProtocol, "CONNECT target is not host:port")
		return
	}
	h, n, class, reason := p.target(host, port)
	entry.Host, entry.Port = h, n
	e := p.log.add(entry)
	if reason != "" {
		p.refuse(c, e, http.StatusForbidden, class, reason)
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
	_ = c.SetWriteDeadline(time.Now().Add(handshakeTimeout))
	if _, err := fmt.Fprint(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		p.refuse(c, e, 0, classProtocol, "client went away")
		return
	}
	_ = c.SetDeadline(time.Now().Add(handshakeTimeout))
	hi, first, err := peekClientHello(br)
	switch {
	case err != nil:
		p.refuse(c, e, 0, classSNI, "tunnel does not start with a TLS ClientHello")
		return
	case hi.ech:
		p.refuse(c, e, 0, classSNI, "TLS Encrypted Client Hello hides the destination")
		return
	case hi.serverName == "":
		p.refuse(c, e, 0, classSNI, "TLS ClientHello has no SNI")
		return
	case normalizeHost(hi.serverName) != h:
		p.refuse(c, e, 0, classSNI, fmt.Sprintf("TLS SNI %q differs from the CONNECT host %s", hi.serverName, h))
		return
	}
	up, err := p.dialChecked(p.ctx, addrs, n)
	if err != nil {
		p.refuse(c, e, 0, classUpstream, err.Error())
		return
	}
	up, ok := p.upstream(up)
	if !ok {
		p.refuse(c, e, 0, classUpstream, "proxy closed")
		return
	}
	defer p.untrack(up)
	p.allow(e)
	pp := newPipe(c, up, p.cfg.IdleTimeout)
	if _, err := (upWriter{pp}).Write(first); err == nil {
		pp.splice(br)
	}
	p.counted(e, pp.sent.Load(), pp.recv.Load())
}

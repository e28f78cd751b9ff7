package egress

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Resolver resolves destination names. The proxy resolves every name
// itself, always fully qualified (with a trailing dot), and checks each
// answer before dialling it; tests pass their own to control the answers.
// *net.Resolver implements it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Options are a Proxy's collaborators; zero fields take the system's.
type Options struct {
	// Resolver resolves destination names (default net.DefaultResolver).
	Resolver Resolver
	// Dial opens the upstream connection to an already checked "ip:port"
	// (default a net.Dialer bounded by Config.ConnectTimeout).
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
}

// Proxy is the egress proxy of one run. Start it on a listener inside the
// run's network namespace; Close it when the run has ended, then read its
// Connections.
type Proxy struct {
	cfg      Config
	domains  domains
	ports    []int
	resolver Resolver
	dial     func(ctx context.Context, network, address string) (net.Conn, error)
	sem      chan struct{}
	log      connLog
	// ctx bounds every resolution and dial; Close cancels it, so a run's
	// end never waits on a slow DNS server.
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	closed bool
	lns    []net.Listener
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
}

// New returns a proxy that lets a run reach the hosts of allowedDomains
// (the policy list the scan judged with), under cfg.
func New(cfg Config, allowedDomains []string, o Options) (*Proxy, error) {
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return nil, err
	}
	p := &Proxy{
		cfg:      cfg,
		domains:  newDomains(allowedDomains),
		ports:    slices.Clone(cfg.AllowedPorts),
		resolver: o.Resolver,
		dial:     o.Dial,
		sem:      make(chan struct{}, cfg.MaxConnections),
		log:      connLog{max: cfg.MaxLogEntries},
		conns:    map[net.Conn]struct{}{},
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	if p.resolver == nil {
		p.resolver = net.DefaultResolver
	}
	if p.dial == nil {
		d := &net.Dialer{Timeout: cfg.ConnectTimeout}
		p.dial = d.DialContext
	}
	return p, nil
}

// Start serves ln in its own goroutine and returns at once; its signature
// is isolation.Spec.EgressProxy's.
func (p *Proxy) Start(ln net.Listener) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errors.New("egress proxy: closed")
	}
	p.lns = append(p.lns, ln)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.serve(ln)
	}()
	return nil
}

// serve accepts until ln is closed.
func (p *Proxy) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return
		}
		if !p.track(c) {
			c.Close()
			return
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer p.untrack(c)
			p.handle(c)
		}()
	}
}

// track registers an open connection so Close can end it; false once the
// proxy is closed.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

// Close stops the proxy: its listeners and every open connection (client
// and upstream) are closed, and Close returns once all handlers are done,
// so the log is complete.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	p.cancel()
	for _, ln := range p.lns {
		ln.Close()
	}
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// Connections returns the logged connections (the first
// Config.MaxLogEntries) and how many more there were.
func (p *Proxy) Connections() ([]Connection, int) { return p.log.snapshot() }

// handle serves one client connection: one CONNECT tunnel or one plain
// HTTP request.
func (p *Proxy) handle(c net.Conn) {
	entry := &Connection{StartedAt: time.Now().UTC()}
	select {
	case p.sem <- struct{}{}:
		defer func() { <-p.sem }()
	default:
		p.refuse(c, p.log.add(entry), http.StatusServiceUnavailable, classLimit,
			fmt.Sprintf("more than %d concurrent connections", p.cfg.MaxConnections))
		return
	}
	_ = c.SetReadDeadline(time.Now().Add(handshakeTimeout))
	head := &headRecorder{r: c}
	br := bufio.NewReader(head)
	req, err := http.ReadRequest(br)
	head.done = true
	if err != nil {
		p.refuse(c, p.log.add(entry), http.StatusBadRequest, classProtocol, "malformed proxy request")
		return
	}
	if req.Method == http.MethodConnect {
		p.connect(c, br, req, entry)
		return
	}
	p.forward(c, req, head.hostHeaders(), entry)
}

// target checks a requested destination by name and port alone. It returns
// the normalized host and the port, or the refusal class and reason.
func (p *Proxy) target(host, port string) (string, int, string, string) {
	h := normalizeHost(host)
	n, err := strconv.Atoi(port)
	switch {
	case h == "":
		return h, n, classProtocol, "no destination host"
	case isIPLiteral(h):
		return h, n, classDomain, "IP literal destinations are never allowed"
	case !p.domains.allowed(h):
		return h, n, classDomain, fmt.Sprintf("%s is not in allowed_domains", h)
	case err != nil || !slices.Contains(p.ports, n):
		return h, n, classPort, fmt.Sprintf("port %s is not allowed (allowed: %v)", port, p.ports)
	}
	return h, n, classNone, ""
}

// resolve resolves host and checks every answer; a single refused answer
// refuses the destination (a name that mixes public and internal addresses
// is a rebinding attempt or a misconfiguration).
func (p *Proxy) resolve(ctx context.Context, host string) ([]netip.Addr, string, string) {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.ConnectTimeout)
	defer cancel()
	// The name is resolved as a fully qualified one: a search domain of
	// the host's resolv.conf must not turn an allowed name into another.
	addrs, err := p.resolver.LookupNetIP(ctx, "ip", host+".")
	if err != nil {
		return nil, classUpstream, fmt.Sprintf("cannot resolve %s: %v", host, err)
	}
	if len(addrs) == 0 {
		return nil, classUpstream, fmt.Sprintf("%s has no address", host)
	}
	for _, a := range addrs {
		if r := refuseAddr(a, p.cfg.AllowHostLoopback); r != "" {
			return nil, classAddress, fmt.Sprintf("%s resolves to %s: %s", host, a, r)
		}
	}
	return addrs, classNone, ""
}

// dialChecked dials the checked addresses in order, never the name.
func (p *Proxy) dialChecked(ctx context.Context, addrs []netip.Addr, port int) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.ConnectTimeout)
	defer cancel()
	var errs []error
	for _, a := range addrs {
		up, err := p.dial(ctx, "tcp", netip.AddrPortFrom(a.WithZone("").Unmap(), uint16(port)).String())
		if err == nil {
			return up, nil
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("dial: %w", errors.Join(errs...))
}

// refuse records a refusal and answers the client with status (0: just
// close, the tunnel is already open).
func (p *Proxy) refuse(c net.Conn, e *Connection, status int, class, reason string) {
	p.log.update(e, func(e *Connection) { e.Allowed, e.Reason = false, reason })
	connectionsTotal.WithLabelValues("refused", class).Inc()
	if status == 0 {
		return
	}
	body := "toolwarden egress: " + reason + "\n"
	_ = c.SetWriteDeadline(time.Now().Add(handshakeTimeout))
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s",
		status, http.StatusText(status), len(body), body)
}

// allow records that the connection was opened.
func (p *Proxy) allow(e *Connection) {
	p.log.update(e, func(e *Connection) { e.Allowed, e.Reason = true, "" })
	connectionsTotal.WithLabelValues("allowed", classNone).Inc()
}

// counted records the bytes a finished connection moved.
func (p *Proxy) counted(e *Connection, up, down int64) {
	p.log.update(e, func(e *Connection) { e.BytesUp, e.BytesDown = up, down })
	bytesTotal.WithLabelValues("up").Add(float64(up))
	bytesTotal.WithLabelValues("down").Add(float64(down))
}

// upstream registers an upstream connection so Close ends it too.
func (p *Proxy) upstream(up net.Conn) (net.Conn, bool) {
	if !p.track(up) {
		up.Close()
		return nil, false
	}
	return up, true
}

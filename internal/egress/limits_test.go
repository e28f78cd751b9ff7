package egress

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestLogBounded: the log keeps the first MaxLogEntries connections and
// counts the rest.
func TestLogBounded(t *testing.T) {
	tp := startProxy(t, Config{MaxLogEntries: 3}, []string{"example.com"}, nil)
	for i := 0; i < 7; i++ {
		tp.raw(t, fmt.Sprintf("CONNECT evil%d.com:443 HTTP/1.1\r\n\r\n", i))
	}
	es, omitted := tp.entries(t)
	if len(es) != 3 || omitted != 4 {
		t.Fatalf("kept %d, omitted %d", len(es), omitted)
	}
	if es[0].Host != "evil0.com" || es[2].Host != "evil2.com" {
		t.Fatalf("kept %+v, want the first three", es)
	}
}

// TestPortRefused: an allowed name on a port outside allowed_ports.
func TestPortRefused(t *testing.T) {
	tp := startProxy(t, Config{}, []string{"example.com"}, map[string][]string{"example.com": {"1.1.1.1"}})
	for _, target := range []string{"example.com:22", "example.com:6379", "example.com:0", "example.com:x"} {
		if got := tp.raw(t, "CONNECT "+target+" HTTP/1.1\r\n\r\n"); !strings.Contains(got, "403") && !strings.Contains(got, "400") {
			t.Errorf("%s: %q", target, got)
		}
	}
	if got := tp.raw(t, "GET http://example.com:8080/ HTTP/1.1\r\nHost: example.com:8080\r\n\r\n"); !strings.Contains(got, "403") {
		t.Errorf("GET :8080: %q", got)
	}
	if tp.dials.Load() != 0 || len(tp.res.called()) != 0 {
		t.Fatal("refused ports were resolved or dialled")
	}
}

// TestMaxConnections: one connection more than the cap is refused (503)
// while the others are open.
func TestMaxConnections(t *testing.T) {
	tp := startProxy(t, Config{MaxConnections: 1}, []string{"example.com"}, nil)
	held, err := net.Dial("tcp", tp.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	io.WriteString(held, "CONNECT exa") // an unfinished request holds the slot
	for len(tp.sem) == 0 {
		time.Sleep(5 * time.Millisecond) // until the held connection has its slot
	}
	if got := tp.raw(t, "CONNECT example.com:443 HTTP/1.1\r\n\r\n"); !strings.Contains(got, "503") {
		t.Fatalf("second connection: %q", got)
	}
	es, _ := tp.entries(t)
	if len(es) != 2 || es[0].Allowed || !strings.Contains(es[0].Reason, "concurrent connections") {
		t.Fatalf("log %+v", es)
	}
}

// TestHopHeadersStripped: hop-by-hop headers and those named by
// Connection do not reach the upstream; end-to-end ones do.
func TestHopHeadersStripped(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan http.Header, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		req, err := http.ReadRequest(bufio.NewReader(c))
		if err != nil {
			got <- nil
			return
		}
		got <- req.Header
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nKeep-Alive: timeout=5\r\n\r\n")
	}()
	port := portOf(t, ln.Addr().String())
	tp := startProxy(t, loopbackCfg(port), []string{"svc.test"}, map[string][]string{"svc.test": {"127.0.0.1"}})
	status := tp.raw(t, fmt.Sprintf("GET http://svc.test:%d/ HTTP/1.1\r\nHost: svc.test:%d\r\nProxy-Authorization: Basic c2VjcmV0\r\n"+
		"Connection: X-Secret, keep-alive\r\nX-Secret: 1\r\nProxy-Connection: keep-alive\r\nX-Keep: yes\r\n\r\n", port, port))
	if !strings.Contains(status, "200") {
		t.Fatalf("status %q", status)
	}
	h := <-got
	for _, name := range []string{"Proxy-Authorization", "X-Secret", "Proxy-Connection", "Keep-Alive"} {
		if h.Get(name) != "" {
			t.Errorf("%s reached the upstream", name)
		}
	}
	if h.Get("X-Keep") != "yes" {
		t.Errorf("end-to-end header lost: %v", h)
	}
}

// TestCloseEndsTunnels: Close ends an open tunnel and returns.
func TestCloseEndsTunnels(t *testing.T) {
	tp := startProxy(t, Config{}, []string{"example.com"}, nil)
	c, err := net.Dial("tcp", tp.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "CONNECT exa")
	time.Sleep(50 * time.Millisecond)
	tp.Close()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("connection still open after Close")
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("connection still open after Close")
	}
}

// TestRefuseAddr: the address classes a run never reaches, and their
// IPv4-mapped and translated forms.
func TestRefuseAddr(t *testing.T) {
	refused := []string{"127.0.0.1", "127.255.0.1", "::1", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.0.1",
		"169.254.1.1", "169.254.169.254", "fd00:ec2::254", "100.64.0.1", "100.127.255.255", "0.0.0.0", "::",
		"224.0.0.1", "255.255.255.255", "fc00::1", "fdff::1", "fe80::1", "ff02::1", "::ffff:127.0.0.1",
		"::ffff:169.254.169.254", "::ffff:10.0.0.1", "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "2002:a00:1::", "100.100.100.200"}
	for _, a := range refused {
		if refuseAddr(netip.MustParseAddr(a), false) == "" {
			t.Errorf("%s allowed", a)
		}
	}
	for _, a := range []string{"1.1.1.1", "8.8.8.8", "2606:4700::1111", "172.32.0.1", "100.128.0.1", "2002:808:808::"} {
		if r := refuseAddr(netip.MustParseAddr(a), false); r != "" {
			t.Errorf("%s refused: %s", a, r)
		}
	}
	// allow_host_loopback opens loopback and nothing else.
	for _, a := range []string{"127.0.0.1", "::1", "::ffff:127.0.0.1"} {
		if r := refuseAddr(netip.MustParseAddr(a), true); r != "" {
			t.Errorf("%s refused with loopback allowed: %s", a, r)
		}
	}
	for _, a := range []string{"169.254.169.254", "fd00:ec2::254", "10.0.0.1", "64:ff9b::7f00:1"} {
		if refuseAddr(netip.MustParseAddr(a), true) == "" {
			t.Errorf("%s allowed with loopback allowed", a)
		}
	}
}

// TestConfigRejectsBadValues: configuration errors name the key.
func TestConfigRejectsBadValues(t *testing.T) {
	_, err := Config{AllowedPorts: []int{443, 70000}, MaxConnections: -1}.WithDefaults()
	if err == nil || !strings.Contains(err.Error(), "allowed_ports[1]") || !strings.Contains(err.Error(), "max_connections") {
		t.Fatalf("err = %v", err)
	}
	c, err := Config{}.WithDefaults()
	if err != nil || c.AllowHostLoopback || len(c.AllowedPorts) != 2 {
		t.Fatalf("defaults %+v, %v", c, err)
	}
}

// TestIdleTimeout: a tunnel on which nothing moves is closed after the
// idle timeout, and what it moved is still logged.
func TestIdleTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(io.Discard, c); c.Close() }()
		}
	}()
	port := portOf(t, ln.Addr().String())
	tp := startProxy(t, Config{AllowHostLoopback: true, AllowedPorts: []int{port}, IdleTimeout: 200 * time.Millisecond},
		[]string{"example.com"}, map[string][]string{"example.com": {"127.0.0.1"}})
	c, status := tp.connect(t, fmt.Sprintf("example.com:%d", port))
	if c == nil {
		t.Fatal(status)
	}
	defer c.Close()
	// A ClientHello naming the host opens the tunnel; the server never
	// answers, so the handshake blocks until the proxy closes it.
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	err = tlsHandshake(c, "example.com", &tlsConfigInsecure)
	if ne, ok := err.(net.Error); err == nil || (ok && ne.Timeout()) {
		t.Fatalf("tunnel not closed by the idle timeout: %v", err)
	}
	e := tp.onlyEntry(t)
	if !e.Allowed || e.BytesUp == 0 {
		t.Fatalf("entry %+v", e)
	}
}

var tlsConfigInsecure = tls.Config{InsecureSkipVerify: true}

// TestMetricsCount: refusals and allowed connections are counted by
// outcome and class.
func TestMetricsCount(t *testing.T) {
	before := testutil.ToFloat64(connectionsTotal.WithLabelValues("refused", classDomain))
	tp := startProxy(t, Config{}, []string{"example.com"}, nil)
	tp.raw(t, "CONNECT evil.test:443 HTTP/1.1\r\n\r\n")
	tp.Close()
	if after := testutil.ToFloat64(connectionsTotal.WithLabelValues("refused", classDomain)); after != before+1 {
		t.Fatalf("refused/domain %v → %v", before, after)
	}
}

// blockingResolver never answers until its context ends.
type blockingResolver struct{ started chan struct{} }

func (r blockingResolver) LookupNetIP(ctx context.Context, _, _ string) ([]netip.Addr, error) {
	close(r.started)
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestCloseCancelsResolution: Close does not wait for a DNS server that
// never answers (the run has ended; its record must not wait).
func TestCloseCancelsResolution(t *testing.T) {
	res := blockingResolver{started: make(chan struct{})}
	p, err := New(Config{ConnectTimeout: time.Hour}, []string{"example.com"}, Options{Resolver: res})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(ln); err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "CONNECT example.com:443 HTTP/1.1\r\n\r\n")
	<-res.started
	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(time.Minute):
		t.Fatal("Close waits for the resolver")
	}
	es, _ := p.Connections()
	if len(es) != 1 || es[0].Allowed {
		t.Fatalf("log %+v", es)
	}
}

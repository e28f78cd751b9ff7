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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// mapResolver answers from a fixed table, so a test decides what a name
// resolves to (a rebinding attacker's DNS).
type mapResolver struct {
	mu    sync.Mutex
	names map[string][]string
	calls []string
}

func (r *mapResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !strings.HasSuffix(host, ".") {
		return nil, fmt.Errorf("%s is not fully qualified: a search domain could apply", host)
	}
	host = strings.TrimSuffix(host, ".")
	r.calls = append(r.calls, host)
	addrs, ok := r.names[host]
	if !ok {
		return nil, fmt.Errorf("no such host %s", host)
	}
	var out []netip.Addr
	for _, a := range addrs {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

func (r *mapResolver) called() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.calls...)
}

// testProxy is a proxy on a loopback listener with a counting dialer.
type testProxy struct {
	*Proxy
	addr  string
	dials atomic.Int64
	res   *mapResolver
}

func startProxy(t *testing.T, cfg Config, allowed []string, names map[string][]string) *testProxy {
	t.Helper()
	tp := &testProxy{res: &mapResolver{names: names}}
	var d net.Dialer
	p, err := New(cfg, allowed, Options{Resolver: tp.res, Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
		tp.dials.Add(1)
		return d.DialContext(ctx, network, addr)
	}})
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
	t.Cleanup(p.Close)
	tp.Proxy, tp.addr = p, ln.Addr().String()
	return tp
}

// raw sends a request head to the proxy and returns the status line of the
// answer ("" when the connection closed without one).
func (tp *testProxy) raw(t *testing.T, head string) string {
	t.Helper()
	c, err := net.Dial("tcp", tp.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, head); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line)
}

// connect opens a CONNECT tunnel and returns it once the proxy said 200.
func (tp *testProxy) connect(t *testing.T, target string) (net.Conn, string) {
	t.Helper()
	c, err := net.Dial("tcp", tp.addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		c.Close()
		return nil, "no response: " + err.Error()
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		c.Close()
		return nil, resp.Status
	}
	if br.Buffered() != 0 {
		t.Fatalf("proxy sent %d bytes after 200", br.Buffered())
	}
	return c, resp.Status
}

// onlyEntry returns the single logged connection after closing the proxy.
func (tp *testProxy) entries(t *testing.T) ([]Connection, int) {
	t.Helper()
	tp.Close()
	return tp.Connections()
}

func (tp *testProxy) onlyEntry(t *testing.T) Connection {
	t.Helper()
	es, omitted := tp.entries(t)
	if len(es) != 1 || omitted != 0 {
		t.Fatalf("log = %+v (+%d), want one entry", es, omitted)
	}
	return es[0]
}

// tlsClient runs a TLS handshake with serverName over c.
func tlsHandshake(c net.Conn, serverName string, pool *tls.Config) error {
	cfg := pool.Clone()
	cfg.ServerName = serverName
	tc := tls.Client(c, cfg)
	return tc.Handshake()
}

func portOf(t *testing.T, addr string) int {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(p)
	return n
}

package executor

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/egress"
	"github.com/toolwarden/toolwarden/internal/execution"
)

// staticResolver answers from a table: the test decides what every name
// resolves to.
type staticResolver map[string]string

func (r staticResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	a, ok := r[strings.TrimSuffix(host, ".")]
	if !ok {
		return nil, fmt.Errorf("no such host %s", host)
	}
	return []netip.Addr{netip.MustParseAddr(a)}, nil
}

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("network namespaces need root, and CI runs as root")
		}
		t.Skip("network namespaces need root")
	}
}

// upstream is a test HTTP server on the host's loopback: the only address
// a test has for "the outside". A run reaches it through its proxy only
// when the executor opens host loopback (allow_host_loopback) and the
// record lists the name the test resolver maps to it.
func upstream(t *testing.T) (int, func() int) {
	t.Helper()
	hits := make(chan struct{}, 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits <- struct{}{}
		io.WriteString(w, "hello from upstream "+r.Host)
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().(*net.TCPAddr).Port, func() int { return len(hits) }
}

func runRecord(t *testing.T, b execution.Backend, r *execution.Record) *execution.Record {
	t.Helper()
	r.ToolName, r.Language, r.Cwd = "exec", "bash", workspace(t)
	if err := b.Create(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return waitTerminal(t, b, r.ExecutionID)
}

// TestEgressProxyEndToEnd: a run whose scan saw network use reaches a
// listed name through its egress proxy (curl reads the proxy variables);
// an unlisted name is refused; a client that ignores the proxy
// (--noproxy '*', /dev/tcp) has no route; the record lists every
// connection with its bytes.
func TestEgressProxyEndToEnd(t *testing.T) {
	needRoot(t)
	port, hits := upstream(t)
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello over tls "+r.TLS.ServerName)
	}))
	defer tlsSrv.Close()
	tlsPort := tlsSrv.Listener.Addr().(*net.TCPAddr).Port
	b := openEmbedded(t, 3e9)
	cfg := fastConfig()
	// The upstream listens on the host's loopback (no other address exists
	// in a test), so this executor opens host loopback for listed names; the
	// default refuses it, as TestEgressRefusesHostLoopbackByDefault shows.
	cfg.Egress = egress.Config{AllowHostLoopback: true, AllowedPorts: []int{port, tlsPort}}
	cfg.EgressResolver = staticResolver{"upstream.test": "127.0.0.1", "evil.test": "127.0.0.1"}
	start(t, b, openIso(t), cfg)

	script := fmt.Sprintf(`
curl -sS --max-time 20 http://upstream.test:%[1]d/ok; echo
curl -sS -k --max-time 20 https://upstream.test:%[2]d/tls; echo
curl -sS --max-time 20 -o /dev/null -w 'evil:%%{http_code}\n' http://evil.test:%[1]d/ || true
if curl -sS --max-time 5 --noproxy '*' http://127.0.0.1:%[1]d/ >/dev/null 2>&1; then echo direct:open; else echo direct:none; fi
if (exec 3<>/dev/tcp/127.0.0.1/%[1]d) 2>/dev/null; then echo tcp:open; else echo tcp:none; fi
echo "env:$HTTPS_PROXY|$http_proxy|$ALL_PROXY|$NO_PROXY|$npm_config_https_proxy"
`, port, tlsPort)
	got := runRecord(t, b, &execution.Record{Content: script, NetworkUse: true, AllowedDomains: []string{"upstream.test"},
		Env: map[string]string{"HTTPS_PROXY": "http://attacker.example:1"}})
	want := []string{
		fmt.Sprintf("hello from upstream upstream.test:%d", port),
		"hello over tls upstream.test", "evil:403", "direct:none", "tcp:none",
		"env:http://127.0.0.1:3128|http://127.0.0.1:3128|http://127.0.0.1:3128|localhost,127.0.0.1,::1|http://127.0.0.1:3128",
	}
	for _, w := range want {
		if !strings.Contains(got.Result, w) {
			t.Fatalf("result lacks %q: %s %q (%s)", w, got.Status, got.Result, got.Error)
		}
	}
	if hits() != 1 {
		t.Fatalf("upstream saw %d requests, want only the proxied one", hits())
	}
	stored, err := b.Get(context.Background(), got.ExecutionID)
	if err != nil {
		t.Fatal(err)
	}
	conns := stored.Public().NetworkConnections
	if len(conns) != 3 {
		t.Fatalf("connections %+v", conns)
	}
	ok, tunnel, evil := conns[0], conns[1], conns[2]
	if !ok.Allowed || ok.Host != "upstream.test" || ok.Port != port || ok.BytesUp == 0 || ok.BytesDown == 0 {
		t.Fatalf("allowed connection %+v", ok)
	}
	if !tunnel.Allowed || tunnel.Host != "upstream.test" || tunnel.Port != tlsPort || tunnel.BytesUp == 0 || tunnel.BytesDown == 0 {
		t.Fatalf("allowed tunnel %+v", tunnel)
	}
	if evil.Allowed || evil.Host != "evil.test" || !strings.Contains(evil.Reason, "allowed_domains") || evil.BytesDown != 0 {
		t.Fatalf("refused connection %+v", evil)
	}
}

// TestEgressRefusesHostLoopbackByDefault: under the default config a
// listed name that resolves to the host's loopback (DNS rebinding, or a
// policy listing localhost) is refused, and the record says why.
func TestEgressRefusesHostLoopbackByDefault(t *testing.T) {
	needRoot(t)
	port, hits := upstream(t)
	b := openEmbedded(t, 3e9)
	cfg := fastConfig()
	cfg.Egress = egress.Config{AllowedPorts: []int{port}}
	cfg.EgressResolver = staticResolver{"upstream.test": "127.0.0.1", "localhost": "127.0.0.1", "meta.test": "169.254.169.254"}
	start(t, b, openIso(t), cfg)
	script := fmt.Sprintf(`for h in upstream.test localhost meta.test; do
curl -sS --max-time 20 -o /dev/null -w "$h:%%{http_code}\n" http://$h:%d/ || true; done`, port)
	got := runRecord(t, b, &execution.Record{Content: script, NetworkUse: true,
		AllowedDomains: []string{"upstream.test", "localhost", "meta.test"}})
	// NO_PROXY exempts localhost: curl goes direct to the run's own
	// loopback, where nothing listens (000), never to the host's.
	for _, w := range []string{"upstream.test:403", "localhost:000", "meta.test:403"} {
		if !strings.Contains(got.Result, w) {
			t.Fatalf("result lacks %q: %q (%s)", w, got.Result, got.Error)
		}
	}
	if hits() != 0 {
		t.Fatalf("the host's loopback server was reached %d times", hits())
	}
	stored, _ := b.Get(context.Background(), got.ExecutionID)
	if len(stored.NetworkConnections) != 2 || stored.NetworkConnections[0].Allowed ||
		!strings.Contains(stored.NetworkConnections[0].Reason, "loopback") ||
		!strings.Contains(stored.NetworkConnections[1].Reason, "metadata") {
		t.Fatalf("connections %+v", stored.NetworkConnections)
	}
}

// TestNoProxyWithoutNetworkUse: a run whose scan saw no network use (or
// whose policy allows no domain) gets no proxy at all: no proxy variables,
// nothing listening on the proxy address, no connection log.
func TestNoProxyWithoutNetworkUse(t *testing.T) {
	needRoot(t)
	b := openEmbedded(t, 3e9)
	start(t, b, openIso(t), fastConfig())
	script := `echo "env:${HTTPS_PROXY:-none}"; if (exec 3<>/dev/tcp/127.0.0.1/3128) 2>/dev/null; then echo proxy:open; else echo proxy:none; fi`
	for _, r := range []*execution.Record{
		{Content: script, NetworkUse: false, AllowedDomains: []string{"example.com"}},
		{Content: script, NetworkUse: true, AllowedDomains: []string{}},
		{Content: script, NetworkUse: true}, // a record from before allowed_domains was stored
	} {
		got := runRecord(t, b, r)
		if !strings.Contains(got.Result, "env:none") || !strings.Contains(got.Result, "proxy:none") {
			t.Fatalf("network_use=%v domains=%v: %q (%s)", r.NetworkUse, r.AllowedDomains, got.Result, got.Error)
		}
		if got.NetworkConnections != nil {
			t.Fatalf("connection log without a proxy: %+v", got.NetworkConnections)
		}
	}
}

// TestEgressProxySelection: which records get a proxy (no root needed).
func TestEgressProxySelection(t *testing.T) {
	d := &Daemon{}
	for _, c := range []struct {
		rec  execution.Record
		want bool
	}{
		{execution.Record{NetworkUse: true, AllowedDomains: []string{"pypi.org"}}, true},
		{execution.Record{NetworkUse: false, AllowedDomains: []string{"pypi.org"}}, false},
		{execution.Record{NetworkUse: true, AllowedDomains: []string{}}, false},
		{execution.Record{NetworkUse: true}, false},
	} {
		p, err := d.egressProxy(&c.rec)
		if err != nil {
			t.Fatal(err)
		}
		if (p != nil) != c.want {
			t.Errorf("%+v: proxy %v, want %v", c.rec, p != nil, c.want)
		}
		if p != nil {
			p.Close()
		}
	}
}

// TestCloseEgressRecordsLog: the proxy's log lands on the final record,
// bounded, and the omitted count with it.
func TestCloseEgressRecordsLog(t *testing.T) {
	p, err := egress.New(egress.Config{MaxLogEntries: 1}, []string{"example.com"}, egress.Options{})
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
	for i := 0; i < 3; i++ {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "CONNECT evil%d.test:443 HTTP/1.1\r\n\r\n", i)
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		io.ReadAll(c)
		c.Close()
	}
	final := &execution.Record{}
	closeEgress(p, final)
	if len(final.NetworkConnections) != 1 || final.NetworkConnectionsOmitted != 2 || final.NetworkConnections[0].Host != "evil0.test" ||
		final.NetworkConnections[0].Allowed {
		t.Fatalf("final %+v (+%d)", final.NetworkConnections, final.NetworkConnectionsOmitted)
	}
}

// TestEgressRefusesFrontingFromRun: from inside a run, a CONNECT tunnel to
// a listed name whose TLS hello names another host is closed before the
// upstream sees anything, and the record says why.
func TestEgressRefusesFrontingFromRun(t *testing.T) {
	needRoot(t)
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "reached")
	}))
	defer tlsSrv.Close()
	tlsPort := tlsSrv.Listener.Addr().(*net.TCPAddr).Port
	b := openEmbedded(t, 3e9)
	cfg := fastConfig()
	cfg.Egress = egress.Config{AllowHostLoopback: true, AllowedPorts: []int{tlsPort}} // see TestEgressProxyEndToEnd
	cfg.EgressResolver = staticResolver{"upstream.test": "127.0.0.1"}
	start(t, b, openIso(t), cfg)
	code := fmt.Sprintf(`import socket, ssl
s = socket.create_connection(("127.0.0.1", 3128), timeout=20)
s.sendall(b"CONNECT upstream.test:%d HTTP/1.1\r\nHost: upstream.test\r\n\r\n")
print("connect:" + s.recv(64).split(b"\r\n")[0].decode())
ctx = ssl.create_default_context()
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
try:
    ctx.wrap_socket(s, server_hostname="evil.test")
    print("sni:open")
except Exception as e:
    print("sni:refused")
`, tlsPort)
	r := &execution.Record{ToolName: "exec", Language: "python", Content: code, Cwd: workspace(t), NetworkUse: true,
		AllowedDomains: []string{"upstream.test"}}
	if err := b.Create(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	got := waitTerminal(t, b, r.ExecutionID)
	if !strings.Contains(got.Result, "connect:HTTP/1.1 200") || !strings.Contains(got.Result, "sni:refused") {
		t.Fatalf("result %s %q (%s)", got.Status, got.Result, got.Error)
	}
	if len(got.NetworkConnections) != 1 || got.NetworkConnections[0].Allowed ||
		!strings.Contains(got.NetworkConnections[0].Reason, "SNI") || got.NetworkConnections[0].BytesUp != 0 {
		t.Fatalf("connections %+v", got.NetworkConnections)
	}
}

// TestRedisEgressFollowsRecord: through Redis (the executor may be on
// another host) the run's proxy enforces the allowed_domains stored on the
// record, and the connection log comes back on it.
func TestRedisEgressFollowsRecord(t *testing.T) {
	needRoot(t)
	port, hits := upstream(t)
	b := openRedis(t, redisPrefix(t), 3e9)
	cfg := fastConfig()
	cfg.Egress = egress.Config{AllowHostLoopback: true, AllowedPorts: []int{port}} // see TestEgressProxyEndToEnd
	cfg.EgressResolver = staticResolver{"listed.test": "127.0.0.1", "unlisted.test": "127.0.0.1"}
	start(t, b, openIso(t), cfg)
	script := fmt.Sprintf(`for h in listed.test unlisted.test; do curl -sS --max-time 20 -o /dev/null -w "$h:%%{http_code}\n" http://$h:%d/ || true; done`, port)
	got := runRecord(t, b, &execution.Record{Content: script, NetworkUse: true, AllowedDomains: []string{"listed.test"}})
	if !strings.Contains(got.Result, "listed.test:200") || !strings.Contains(got.Result, "unlisted.test:403") || hits() != 1 {
		t.Fatalf("result %q (%s), upstream hits %d", got.Result, got.Error, hits())
	}
	if len(got.NetworkConnections) != 2 || !got.NetworkConnections[0].Allowed || got.NetworkConnections[1].Allowed {
		t.Fatalf("connections %+v", got.NetworkConnections)
	}
}

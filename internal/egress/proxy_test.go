package egress

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// loopbackCfg lets tests reach their own loopback servers (the only
// upstreams a unit test has) on the servers' ports.
func loopbackCfg(ports ...int) Config {
	return Config{AllowHostLoopback: true, AllowedPorts: ports}
}

// TestAllowedHTTPS: a listed name reaches its TLS upstream through a
// CONNECT tunnel whose SNI is that name; the log says so.
func TestAllowedHTTPS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello over tls")
	}))
	defer srv.Close()
	port := portOf(t, srv.Listener.Addr().String())
	tp := startProxy(t, loopbackCfg(port), []string{"example.com"}, map[string][]string{"example.com": {"127.0.0.1"}})

	tr := srv.Client().Transport.(*http.Transport).Clone()
	tr.Proxy = http.ProxyURL(&url.URL{Scheme: "http", Host: tp.addr})
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get(fmt.Sprintf("https://example.com:%d/", port))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "hello over tls" {
		t.Fatalf("body %q", body)
	}
	tr.CloseIdleConnections()
	e := tp.onlyEntry(t)
	if !e.Allowed || e.Host != "example.com" || e.Port != port || e.BytesUp == 0 || e.BytesDown == 0 || e.StartedAt.IsZero() {
		t.Fatalf("entry %+v", e)
	}
}

// TestNotListedRefused: names outside allowed_domains, including a
// look-alike suffix, are refused before any resolution or dial.
func TestNotListedRefused(t *testing.T) {
	tp := startProxy(t, Config{}, []string{"github.com"}, map[string][]string{"github.com.evil.io": {"1.1.1.1"}, "evil.com": {"1.1.1.1"}})
	for _, target := range []string{"evil.com:443", "github.com.evil.io:443", "xgithub.com:443", "githuB.com.evil.io:443"} {
		if got := tp.raw(t, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n"); !strings.Contains(got, "403") {
			t.Errorf("CONNECT %s: %q", target, got)
		}
	}
	if got := tp.raw(t, "GET http://evil.com/ HTTP/1.1\r\nHost: evil.com\r\n\r\n"); !strings.Contains(got, "403") {
		t.Errorf("GET evil.com: %q", got)
	}
	if c := tp.res.called(); len(c) != 0 || tp.dials.Load() != 0 {
		t.Fatalf("refused names were resolved %v or dialled %d", c, tp.dials.Load())
	}
	es, _ := tp.entries(t)
	if len(es) != 5 {
		t.Fatalf("log %+v", es)
	}
	for _, e := range es {
		if e.Allowed || !strings.Contains(e.Reason, "not in allowed_domains") {
			t.Errorf("entry %+v", e)
		}
	}
}

// TestSubdomainAllowed: a subdomain of a listed name passes; its parent
// does not.
func TestSubdomainAllowed(t *testing.T) {
	d := newDomains([]string{"github.com", "*.pypi.org"})
	for h, want := range map[string]bool{
		"github.com": true, "api.github.com": true, "a.b.github.com": true, "pypi.org": true, "files.pypi.org": true,
		"github.com.evil.io": false, "xgithub.com": false, "com": false, "": false, "gіthub.com": false,
		"127.0.0.1": false, "github.com/": false,
	} {
		if got := d.allowed(h); got != want {
			t.Errorf("allowed(%q) = %v, want %v", h, got, want)
		}
	}
}

// TestIPLiteralRefused: an IP literal in any notation is refused, even
// when the policy lists it and even with loopback opened.
func TestIPLiteralRefused(t *testing.T) {
	targets := []string{"127.0.0.1", "[::1]", "2130706433", "0x7f.0.0.1", "0x7f000001", "0177.0.0.1", "127.1",
		"[::ffff:127.0.0.1]", "8.8.8.8", "[2606:4700::1111]", "[fe80::1%25eth0]"}
	allowed := []string{"127.0.0.1", "8.8.8.8", "2130706433", "127.1"}
	tp := startProxy(t, Config{AllowHostLoopback: true, AllowedPorts: []int{443, 80}}, allowed, nil)
	for _, h := range targets {
		if got := tp.raw(t, "CONNECT "+h+":443 HTTP/1.1\r\nHost: "+h+":443\r\n\r\n"); !strings.Contains(got, "403") && !strings.Contains(got, "400") {
			t.Errorf("CONNECT %s: %q", h, got)
		}
		if got := tp.raw(t, "GET http://"+h+"/ HTTP/1.1\r\nHost: "+h+"\r\n\r\n"); !strings.Contains(got, "403") && !strings.Contains(got, "400") {
			t.Errorf("GET %s: %q", h, got)
		}
	}
	if c := tp.res.called(); len(c) != 0 || tp.dials.Load() != 0 {
		t.Fatalf("IP literals were resolved %v or dialled %d", c, tp.dials.Load())
	}
	for _, h := range []string{"127.0.0.1", "::1", "2130706433", "0x7f.0.0.1", "0177.0.0.1", "127.1", "1.2.3", "::ffff:1.2.3.4"} {
		if !isIPLiteral(h) {
			t.Errorf("isIPLiteral(%q) = false", h)
		}
	}
	for _, h := range []string{"example.com", "1.example", "0xzz.com"} {
		if isIPLiteral(h) {
			t.Errorf("isIPLiteral(%q) = true", h)
		}
	}
}

// TestSNIMismatchRefused: a tunnel to an allowed name whose TLS hello names
// another host (domain fronting), has no SNI, uses ECH or is not TLS at all
// is closed before anything reaches the upstream.
func TestSNIMismatchRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 10)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	port := portOf(t, ln.Addr().String())
	tp := startProxy(t, loopbackCfg(port), []string{"example.com"}, map[string][]string{"example.com": {"127.0.0.1"}})
	target := fmt.Sprintf("example.com:%d", port)
	cases := map[string]func(c net.Conn) error{
		"other SNI": func(c net.Conn) error { return tlsHandshake(c, "evil.com", &tls.Config{InsecureSkipVerify: true}) },
		"no SNI":    func(c net.Conn) error { return tlsHandshake(c, "127.0.0.1", &tls.Config{InsecureSkipVerify: true}) },
		"plain text": func(c net.Conn) error {
			io.WriteString(c, "GET / HTTP/1.1\r\nHost: evil.com\r\n\r\n")
			_, err := bufio.NewReader(c).ReadByte()
			return err
		},
	}
	for name, hs := range cases {
		c, status := tp.connect(t, target)
		if c == nil {
			t.Fatalf("%s: CONNECT %s", name, status)
		}
		if err := hs(c); err == nil {
			t.Errorf("%s: handshake succeeded", name)
		}
		c.Close()
	}
	if tp.dials.Load() != 0 {
		t.Fatalf("upstream dialled %d times", tp.dials.Load())
	}
	select {
	case <-accepted:
		t.Fatal("upstream accepted a connection")
	default:
	}
	es, _ := tp.entries(t)
	if len(es) != len(cases) {
		t.Fatalf("log %+v", es)
	}
	for _, e := range es {
		if e.Allowed || e.Reason == "" {
			t.Errorf("entry %+v", e)
		}
	}
}

// TestHostMismatchRefused: a plain request whose Host header names another
// host or port than its URI, or that carries two, is refused.
func TestHostMismatchRefused(t *testing.T) {
	tp := startProxy(t, Config{}, []string{"example.com", "evil.com"}, map[string][]string{"example.com": {"1.1.1.1"}})
	for _, head := range []string{
		"GET http://example.com/ HTTP/1.1\r\nHost: evil.com\r\n\r\n",
		"GET http://example.com/ HTTP/1.1\r\nHost: example.com:8080\r\n\r\n",
		"GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\nHost: evil.com\r\n\r\n",
		"GET /relative HTTP/1.1\r\nHost: example.com\r\n\r\n",
		"GET https://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n",
	} {
		if got := tp.raw(t, head); !strings.Contains(got, "403") && !strings.Contains(got, "400") {
			t.Errorf("%q: %q", head, got)
		}
	}
	if tp.dials.Load() != 0 {
		t.Fatalf("dialled %d", tp.dials.Load())
	}
}

// TestRebindingRefused: an allowed name whose DNS answer is internal is
// refused, whatever the other answers are; nothing is dialled.
func TestRebindingRefused(t *testing.T) {
	answers := map[string][]string{
		"loop.example.com":   {"127.0.0.1"},
		"loop6.example.com":  {"::1"},
		"ten.example.com":    {"10.1.2.3"},
		"meta.example.com":   {"169.254.169.254"},
		"meta6.example.com":  {"fd00:ec2::254"},
		"mapped.example.com": {"::ffff:10.0.0.1"},
		"mixed.example.com":  {"1.1.1.1", "192.168.1.1"},
		"cgnat.example.com":  {"100.64.0.1"},
		"ula.example.com":    {"fd12::1"},
		"ll.example.com":     {"fe80::1"},
		"zero.example.com":   {"0.0.0.0"},
		"mcast.example.com":  {"224.0.0.1"},
		"bcast.example.com":  {"255.255.255.255"},
		"nat64.example.com":  {"64:ff9b::a00:1"},
		"empty.example.com":  {},
	}
	tp := startProxy(t, Config{}, []string{"example.com"}, answers)
	for name := range answers {
		if got := tp.raw(t, "CONNECT "+name+":443 HTTP/1.1\r\nHost: "+name+":443\r\n\r\n"); !strings.Contains(got, "403") && !strings.Contains(got, "502") {
			t.Errorf("CONNECT %s: %q", name, got)
		}
		if got := tp.raw(t, "GET http://"+name+"/ HTTP/1.1\r\nHost: "+name+"\r\n\r\n"); !strings.Contains(got, "403") && !strings.Contains(got, "502") {
			t.Errorf("GET %s: %q", name, got)
		}
	}
	if tp.dials.Load() != 0 {
		t.Fatalf("dialled %d", tp.dials.Load())
	}
	es, _ := tp.entries(t)
	for _, e := range es {
		if e.Allowed {
			t.Errorf("allowed: %+v", e)
		}
	}
}

// TestAllowHostLoopback: with allow_host_loopback a listed name reaches a
// loopback server; an unlisted one still does not, and metadata stays
// refused.
func TestAllowHostLoopback(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "local "+r.Host+" "+r.URL.Path)
	}))
	defer srv.Close()
	port := portOf(t, srv.Listener.Addr().String())
	tp := startProxy(t, loopbackCfg(port, 80), []string{"svc.test"},
		map[string][]string{"svc.test": {"127.0.0.1"}, "meta.svc.test": {"169.254.169.254"}, "other.test": {"127.0.0.1"}})
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: tp.addr})}}
	resp, err := client.Get(fmt.Sprintf("http://svc.test:%d/x", port))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := fmt.Sprintf("local svc.test:%d /x", port); string(body) != want {
		t.Fatalf("body %q, want %q", body, want)
	}
	for _, u := range []string{"http://meta.svc.test/latest/meta-data/", fmt.Sprintf("http://other.test:%d/", port)} {
		resp, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %s", u, resp.Status)
		}
	}
	es, _ := tp.entries(t)
	if len(es) != 3 || !es[0].Allowed || es[1].Allowed || !strings.Contains(es[1].Reason, "metadata") || es[2].Allowed {
		t.Fatalf("log %+v", es)
	}
}

// TestDefaultRefusesLoopback: without allow_host_loopback even a listed
// name that resolves to loopback (a policy listing localhost) is refused.
func TestDefaultRefusesLoopback(t *testing.T) {
	tp := startProxy(t, Config{}, []string{"localhost"}, map[string][]string{"localhost": {"127.0.0.1", "::1"}})
	if got := tp.raw(t, "GET http://localhost/ HTTP/1.1\r\nHost: localhost\r\n\r\n"); !strings.Contains(got, "403") {
		t.Fatalf("got %q", got)
	}
	if e := tp.onlyEntry(t); e.Allowed || !strings.Contains(e.Reason, "loopback") {
		t.Fatalf("entry %+v", e)
	}
}

// TestByteCounts: the log counts exactly the bytes the upstream received
// and sent.
func TestByteCounts(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	const respBody = "0123456789"
	response := "HTTP/1.1 200 OK\r\nContent-Length: 10\r\nConnection: close\r\n\r\n" + respBody
	received := make(chan int64, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		cr := &countingReader{r: c}
		req, err := http.ReadRequest(bufio.NewReader(cr))
		if err != nil {
			received <- -1
			return
		}
		io.Copy(io.Discard, req.Body)
		// The proxy sends the request only (Connection: close), so every
		// byte read so far is the request.
		received <- cr.n
		io.WriteString(c, response)
	}()
	port := portOf(t, ln.Addr().String())
	tp := startProxy(t, loopbackCfg(port), []string{"svc.test"}, map[string][]string{"svc.test": {"127.0.0.1"}})
	payload := strings.Repeat("x", 1000)
	c, err := net.Dial("tcp", tp.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST http://svc.test:%d/up HTTP/1.1\r\nHost: svc.test:%d\r\nContent-Length: %d\r\n\r\n%s", port, port, len(payload), payload)
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	up := <-received
	if !strings.HasSuffix(string(got), respBody) {
		t.Fatalf("response %q", got)
	}
	e := tp.onlyEntry(t)
	if up <= int64(len(payload)) || e.BytesUp != up || e.BytesDown != int64(len(response)) {
		t.Fatalf("bytes up %d down %d, upstream received %d and sent %d", e.BytesUp, e.BytesDown, up, len(response))
	}
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

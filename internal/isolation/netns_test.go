//go:build linux

package isolation

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// runOutput starts spec on b and waits for it, returning stdout+stderr.
func runOutput(t *testing.T, b Backend, spec Spec) (string, Exit) {
	t.Helper()
	var out bytes.Buffer
	spec.Stdout, spec.Stderr = &out, &out
	if spec.Env == nil {
		spec.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin"}
	}
	p, err := b.Start(context.Background(), spec)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	ex, err := p.Wait()
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	return out.String(), ex
}

// hostListener opens a TCP listener on the host loopback that counts the
// connections it accepts.
func hostListener(t *testing.T) (net.Listener, chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	accepted := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
			accepted <- struct{}{}
		}
	}()
	return ln, accepted
}

// TestEveryRunHasOwnNetns: with no hardening asked for at all, a run
// cannot reach a TCP listener or an abstract unix socket on the host, and
// its own loopback works (local servers and clients inside the run).
func TestEveryRunHasOwnNetns(t *testing.T) {
	for name, b := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ln, accepted := hostListener(t)
			port := ln.Addr().(*net.TCPAddr).Port
			abstract := fmt.Sprintf("tw-test-%d-%s", port, name)
			uln, err := net.Listen("unix", "@"+abstract)
			if err != nil {
				t.Fatal(err)
			}
			defer uln.Close()
			go func() {
				for {
					c, err := uln.Accept()
					if err != nil {
						return
					}
					c.Close()
					accepted <- struct{}{}
				}
			}()
			script := fmt.Sprintf(`
import socket
try:
    socket.create_connection(("127.0.0.1", %d), timeout=2); print("TCP_REACHED")
except OSError as e: print("tcp refused", e)
try:
    u = socket.socket(socket.AF_UNIX); u.settimeout(2); u.connect("\0%s"); print("ABSTRACT_REACHED")
except OSError as e: print("abstract refused", e)
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
c = socket.create_connection(s.getsockname()); a, _ = s.accept()
c.sendall(b"LOOPBACK_OK"); print(a.recv(32).decode())
`, port, abstract)
			for _, h := range []Hardening{bare, DefaultHardening()} {
				out, ex := runOutput(t, b, Spec{Path: "/usr/bin/python3", Args: []string{"python3", "-c", script}, Hardening: h})
				t.Logf("exit %+v output %q", ex, out)
				if strings.Contains(out, "TCP_REACHED") || strings.Contains(out, "ABSTRACT_REACHED") {
					t.Fatalf("run reached the host: %q", out)
				}
				if !strings.Contains(out, "LOOPBACK_OK") {
					t.Fatalf("loopback inside the run does not work: %q", out)
				}
			}
			select {
			case <-accepted:
				t.Fatal("a host listener accepted a connection from a run")
			default:
			}
		})
	}
}

// pongServer is a host-side TCP server that answers one line with
// "pong:<line>"; it stands for the world behind the egress proxy.
func pongServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				line, _ := bufio.NewReader(c).ReadString('\n')
				fmt.Fprintf(c, "pong:%s", line)
			}()
		}
	}()
	return ln.Addr().String()
}

// forwarder is a minimal EgressProxy for tests: it relays every
// connection to target, dialled from the daemon (host) side.
type forwarder struct {
	target string
	mu     sync.Mutex
	ln     net.Listener
	served chan error // Accept's final error, once the listener closes
}

func (f *forwarder) proxy(ln net.Listener) error {
	f.mu.Lock()
	f.ln = ln
	f.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				f.served <- err
				return
			}
			go func() {
				defer c.Close()
				up, err := net.Dial("tcp4", f.target)
				if err != nil {
					return
				}
				defer up.Close()
				go func() { _, _ = io.Copy(up, c) }()
				_, _ = io.Copy(c, up)
			}()
		}
	}()
	return nil
}

// TestEgressProxyListener: a run with Spec.EgressProxy reaches a host
// server through 127.0.0.1:3128 (the daemon's listener inside the run's
// namespace) and cannot reach that same server directly; the listener is
// in the run's namespace, not the host's, and is closed when the run ends.
func TestEgressProxyListener(t *testing.T) {
	for name, b := range backends(t) {
		t.Run(name, func(t *testing.T) {
			target := pongServer(t)
			_, port, _ := net.SplitHostPort(target)
			f := &forwarder{target: target, served: make(chan error, 1)}
			script := fmt.Sprintf(`
exec 3<>/dev/tcp/127.0.0.1/3128 || exit 3
echo ping >&3
read -r line <&3
echo "via proxy: $line"
if (echo hi > /dev/tcp/127.0.0.1/%s) 2>/dev/null; then echo DIRECT_REACHED; fi
`, port)
			out, ex := runOutput(t, b, Spec{Path: "/usr/bin/bash", Args: []string{"bash", "-c", script}, Hardening: DefaultHardening(), EgressProxy: f.proxy})
			t.Logf("exit %+v output %q", ex, out)
			if !strings.Contains(out, "via proxy: pong:ping") {
				t.Fatalf("run did not reach the server through the egress listener: %q", out)
			}
			if strings.Contains(out, "DIRECT_REACHED") {
				t.Fatalf("run reached the host server directly: %q", out)
			}
			f.mu.Lock()
			addr := f.ln.Addr().String()
			f.mu.Unlock()
			if addr != EgressProxyAddr {
				t.Errorf("listener address %s, want %s", addr, EgressProxyAddr)
			}
			select {
			case err := <-f.served:
				if !errors.Is(err, net.ErrClosed) {
					t.Errorf("listener ended with %v, want closed", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("egress listener still open after the run ended")
			}
			// The listener never existed in the host namespace.
			if c, err := net.DialTimeout("tcp4", EgressProxyAddr, time.Second); err == nil {
				c.Close()
				t.Log("note: something on the host listens on", EgressProxyAddr)
			}
		})
	}
}

// TestEgressProxyErrorRefusesRun: an EgressProxy error means no workload
// code runs.
func TestEgressProxyErrorRefusesRun(t *testing.T) {
	for name, b := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ws := workspace(t)
			marker := ws + "/ran"
			_, err := b.Start(context.Background(), Spec{Path: "/usr/bin/touch", Args: []string{"touch", marker}, Workspace: ws,
				Hardening: DefaultHardening(), EgressProxy: func(net.Listener) error { return errors.New("no proxy today") }})
			if err == nil || !strings.Contains(err.Error(), "no proxy today") {
				t.Fatalf("Start error = %v, want the proxy's refusal", err)
			}
			if fileExists(marker) {
				t.Fatal("the workload ran although the egress proxy refused")
			}
		})
	}
}

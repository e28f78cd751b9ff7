package redisconn_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/execution/redisq"
	"github.com/toolwarden/toolwarden/internal/redisconn"
)

// needRedisServer returns the redis-server binary; without one the test
// is skipped, except under CI=true where it must run.
func needRedisServer(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("redis-server is required in CI: %v", err)
		}
		t.Skipf("redis-server not installed: %v", err)
	}
	return p
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startRedis runs a private redis-server with args until the test ends and
// waits until it accepts connections on port.
func startRedis(t *testing.T, port int, args ...string) {
	t.Helper()
	bin := needRedisServer(t)
	all := append([]string{"--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir()}, args...)
	cmd := exec.Command(bin, all...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; i < 200; i++ {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("redis-server did not start:\n%s", out.String())
}

func ping(t *testing.T, o redisconn.Options) error {
	t.Helper()
	c, err := redisconn.NewClient(o)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.Ping(ctx).Err()
}

// TestPasswordAndACLUser: requirepass and ACL users work through URLs, and
// wrong or missing credentials are refused.
func TestPasswordAndACLUser(t *testing.T) {
	port := freePort(t)
	startRedis(t, port, "--port", fmt.Sprint(port), "--requirepass", "s3cret-default",
		"--user", "alice", "on", ">alice-pw-77", "~*", "&*", "+@all")
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for _, ok := range []string{"redis://:s3cret-default@" + addr + "/0", "redis://alice:alice-pw-77@" + addr + "/0"} {
		if err := ping(t, redisconn.Options{URL: ok}); err != nil {
			t.Fatalf("%s: %v", redisconn.Redact(ok), err)
		}
	}
	for _, bad := range []string{"redis://" + addr + "/0", "redis://:wrong@" + addr + "/0", "redis://alice:wrong@" + addr + "/0",
		"redis://bob:alice-pw-77@" + addr + "/0"} {
		err := ping(t, redisconn.Options{URL: bad})
		if err == nil {
			t.Fatalf("%s: authenticated", redisconn.Redact(bad))
		}
		if !strings.Contains(err.Error(), "NOAUTH") && !strings.Contains(err.Error(), "WRONGPASS") {
			t.Fatalf("%s: %v, want an auth error", redisconn.Redact(bad), err)
		}
	}
	// The execution store opens through the same builder.
	b, err := redisq.Open(context.Background(), redisq.Options{URL: "redis://alice:alice-pw-77@" + addr + "/0",
		Prefix: "t:", SecretsKey: bytes.Repeat([]byte{1}, 32)})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Create(context.Background(), &execution.Record{Language: "bash", Content: "true"}); err != nil {
		t.Fatal(err)
	}
	if _, err := redisq.Open(context.Background(), redisq.Options{URL: "redis://alice:nope-pw@" + addr + "/0"}); err == nil ||
		strings.Contains(err.Error(), "nope-pw") {
		t.Fatalf("store with a wrong password: %v (must fail without echoing the password)", err)
	}
}

// TestRedact: passwords never reach messages, even from URLs that do not
// parse.
func TestRedact(t *testing.T) {
	if got := redisconn.Redact("redis://alice:pw-secret-1@h:6379/0"); strings.Contains(got, "pw-secret-1") {
		t.Fatal(got)
	}
	_, err := redisconn.ClientOptions(redisconn.Options{URL: "redis://alice:pw-secret-2@h:notaport/0"})
	if err == nil || strings.Contains(err.Error(), "pw-secret-2") {
		t.Fatalf("parse error leaks the password: %v", err)
	}
}

// writeCert writes a self-signed CA and a server certificate for
// 127.0.0.1 signed by it; it returns the CA, cert and key paths.
func writeCert(t *testing.T) (ca, cert, key string) {
	t.Helper()
	dir := t.TempDir()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "toolwarden test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	srvKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	srvTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caCert, &srvKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(srvKey)
	ca, cert, key = filepath.Join(dir, "ca.pem"), filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600)
	os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srvDER}), 0o600)
	os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
	return ca, cert, key
}

// TestTLS: rediss:// with the CA trusted reaches a TLS-only server with
// its password; without the CA the certificate is refused; plain redis://
// to the TLS port fails.
func TestTLS(t *testing.T) {
	bin := needRedisServer(t)
	if out, _ := exec.Command(bin, "--version").CombinedOutput(); !bytes.Contains(out, []byte("v=")) {
		t.Skip("redis-server --version unreadable")
	}
	ca, cert, key := writeCert(t)
	port := freePort(t)
	startRedis(t, port, "--port", "0", "--tls-port", fmt.Sprint(port), "--tls-cert-file", cert, "--tls-key-file", key,
		"--tls-ca-cert-file", ca, "--tls-auth-clients", "no", "--requirepass", "tls-pw-9")
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	if err := ping(t, redisconn.Options{URL: "rediss://:tls-pw-9@" + addr + "/0", TLSCAFile: ca}); err != nil {
		t.Fatalf("TLS with the CA: %v", err)
	}
	if err := ping(t, redisconn.Options{URL: "rediss://:tls-pw-9@" + addr + "/0"}); err == nil ||
		!strings.Contains(err.Error(), "certificate") {
		t.Fatalf("TLS without trusting the CA: %v, want a certificate error", err)
	}
	if err := ping(t, redisconn.Options{URL: "rediss://:wrong@" + addr + "/0", TLSCAFile: ca}); err == nil {
		t.Fatal("TLS with a wrong password authenticated")
	}
	if err := ping(t, redisconn.Options{URL: "redis://:tls-pw-9@" + addr + "/0"}); err == nil {
		t.Fatal("plain text to the TLS port worked")
	}
	if _, err := redisconn.ClientOptions(redisconn.Options{URL: "redis://" + addr, TLSCAFile: ca}); err == nil {
		t.Fatal("a CA file with a non-TLS URL was accepted")
	}
}

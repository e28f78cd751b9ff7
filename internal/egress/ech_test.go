package egress

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"crypto/tls"
	"encoding/binary"
	"testing"
)

// echConfigList builds a one-entry ECHConfigList (X25519, HKDF-SHA256,
// AES-128-GCM) whose public name is publicName, so a Go client sends an
// Encrypted Client Hello with that outer SNI.
func echConfigList(t *testing.T, publicName string) []byte {
	t.Helper()
	key, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	u16 := func(b *bytes.Buffer, v int) { _ = binary.Write(b, binary.BigEndian, uint16(v)) }
	var c bytes.Buffer
	c.WriteByte(1)  // config_id
	u16(&c, 0x0020) // DHKEM(X25519, HKDF-SHA256)
	pub := key.PublicKey().Bytes()
	u16(&c, len(pub))
	c.Write(pub)
	u16(&c, 4)      // cipher_suites length
	u16(&c, 0x0001) // HKDF-SHA256
	u16(&c, 0x0001) // AES-128-GCM
	c.WriteByte(0)  // maximum_name_length
	c.WriteByte(byte(len(publicName)))
	c.WriteString(publicName)
	u16(&c, 0) // extensions
	var cfg bytes.Buffer
	u16(&cfg, 0xfe0d)
	u16(&cfg, c.Len())
	cfg.Write(c.Bytes())
	var list bytes.Buffer
	u16(&list, cfg.Len())
	list.Write(cfg.Bytes())
	return list.Bytes()
}

// TestECHRefused: a ClientHello with Encrypted Client Hello hides the real
// destination behind its outer SNI, so even an outer SNI equal to the
// CONNECT host is refused.
func TestECHRefused(t *testing.T) {
	tp := startProxy(t, loopbackCfg(443), []string{"example.com"}, map[string][]string{"example.com": {"127.0.0.1"}})
	c, status := tp.connect(t, "example.com:443")
	if c == nil {
		t.Fatal(status)
	}
	defer c.Close()
	cfg := &tls.Config{ServerName: "inner.example.com", MinVersion: tls.VersionTLS13, InsecureSkipVerify: true,
		EncryptedClientHelloConfigList: echConfigList(t, "example.com")}
	if err := tls.Client(c, cfg).Handshake(); err == nil {
		t.Fatal("ECH handshake went through")
	}
	e := tp.onlyEntry(t)
	if e.Allowed || e.Reason != "TLS Encrypted Client Hello hides the destination" {
		t.Fatalf("entry %+v", e)
	}
	if tp.dials.Load() != 0 {
		t.Fatal("upstream dialled")
	}
}

package egress

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"slices"
	"time"
)

// maxClientHello bounds what is read to find the SNI: a ClientHello with
// post-quantum key shares is a few KiB, far below this.
const maxClientHello = 64 << 10

// extensionECH is the encrypted_client_hello extension: with it the SNI is
// only an outer, public name and the real destination is hidden, so such a
// hello cannot be checked and is refused.
const extensionECH = 0xfe0d

// errHelloRead stops the TLS handshake once the ClientHello is parsed.
var errHelloRead = errors.New("client hello read")

// hello is what peekClientHello learned.
type hello struct {
	serverName string
	ech        bool
}

// peekClientHello reads the TLS ClientHello a client sends first on r,
// without terminating TLS: it returns the hello's SNI and every byte read,
// which the caller forwards unchanged to the upstream. The standard TLS
// stack parses the hello (through GetConfigForClient) and the handshake is
// abandoned right after; nothing is written to the client.
func peekClientHello(r io.Reader) (hello, []byte, error) {
	var buf bytes.Buffer
	rd := io.TeeReader(io.LimitReader(r, maxClientHello), &buf)
	var h hello
	var got bool
	cfg := &tls.Config{GetConfigForClient: func(ch *tls.ClientHelloInfo) (*tls.Config, error) {
		h.serverName = ch.ServerName
		h.ech = slices.Contains(ch.Extensions, extensionECH)
		got = true
		return nil, errHelloRead
	}}
	err := tls.Server(readOnlyConn{r: rd}, cfg).HandshakeContext(context.Background())
	if !got {
		if err == nil {
			err = errors.New("no client hello")
		}
		return h, buf.Bytes(), err
	}
	return h, buf.Bytes(), nil
}

// readOnlyConn feeds the TLS stack from a reader and swallows its writes
// (an alert at most, never meant for the client).
type readOnlyConn struct{ r io.Reader }

func (c readOnlyConn) Read(p []byte) (int, error)         { return c.r.Read(p) }
func (c readOnlyConn) Write(p []byte) (int, error)        { return len(p), nil }
func (c readOnlyConn) Close() error                       { return nil }
func (c readOnlyConn) LocalAddr() net.Addr                { return &net.TCPAddr{} }
func (c readOnlyConn) RemoteAddr() net.Addr               { return &net.TCPAddr{} }
func (c readOnlyConn) SetDeadline(t time.Time) error      { return nil }
func (c readOnlyConn) SetReadDeadline(t time.Time) error  { return nil }
func (c readOnlyConn) SetWriteDeadline(t time.Time) error { return nil }

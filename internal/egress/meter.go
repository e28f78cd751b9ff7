package egress

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// pipe is the pair of connections of one allowed destination: it counts
// the bytes written to and read from the upstream, and pushes both
// deadlines forward whenever either side moves, so a connection ends after
// IdleTimeout of silence in both directions, not one.
type pipe struct {
	client, up net.Conn
	idle       time.Duration
	sent, recv atomic.Int64
}

func newPipe(client, up net.Conn, idle time.Duration) *pipe {
	p := &pipe{client: client, up: up, idle: idle}
	p.touch()
	return p
}

func (p *pipe) touch() {
	t := time.Now().Add(p.idle)
	_ = p.client.SetDeadline(t)
	_ = p.up.SetDeadline(t)
}

// upWriter writes to the upstream, counting bytes up.
type upWriter struct{ p *pipe }

func (w upWriter) Write(b []byte) (int, error) {
	n, err := w.p.up.Write(b)
	w.p.sent.Add(int64(n))
	return n, err
}

// upReader reads from the upstream, counting bytes down.
type upReader struct{ p *pipe }

func (r upReader) Read(b []byte) (int, error) {
	n, err := r.p.up.Read(b)
	if n > 0 {
		r.p.recv.Add(int64(n))
		r.p.touch()
	}
	return n, err
}

// clientReader reads from the client, keeping the pipe alive.
type clientReader struct {
	p *pipe
	r io.Reader // the client connection, or its buffered reader
}

func (r clientReader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	if n > 0 {
		r.p.touch()
	}
	return n, err
}

// splice copies both ways until both directions are done. A clean end of
// one direction is passed on as a half close; an error ends both.
func (p *pipe) splice(fromClient io.Reader) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		_, err := io.Copy(upWriter{p}, clientReader{p, fromClient})
		p.halfClose(p.up, err)
	}()
	go func() {
		defer wg.Done()
		_, err := io.Copy(p.client, upReader{p})
		p.halfClose(p.client, err)
	}()
	wg.Wait()
}

func (p *pipe) halfClose(dst net.Conn, err error) {
	if err == nil || errors.Is(err, io.EOF) {
		if cw, ok := dst.(interface{ CloseWrite() error }); ok && cw.CloseWrite() == nil {
			return
		}
	}
	p.client.Close()
	p.up.Close()
}

package client

import (
	"context"
	"io"
)

// OutputReader reads a finished execution's full output as a stream,
// fetching it chunk by chunk (the persisted file when the result was
// reduced).
type OutputReader struct {
	ctx    context.Context
	c      *Client
	id     string
	offset int64
	chunk  int
	buf    []byte
	eof    bool
}

// OutputReader returns a reader of execution id's full output; chunk is
// the size of one request (the server's default, 1 MiB, when 0).
func (c *Client) OutputReader(ctx context.Context, id string, chunk int) *OutputReader {
	return &OutputReader{ctx: ctx, c: c, id: id, chunk: chunk}
}

// Read implements io.Reader.
func (r *OutputReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.eof {
			return 0, io.EOF
		}
		ch, err := r.c.Output(r.ctx, r.id, r.offset, r.chunk)
		if err != nil {
			return 0, err
		}
		r.buf = []byte(ch.Data)
		r.offset = ch.Offset + int64(len(r.buf))
		r.eof = ch.EOF || len(r.buf) == 0
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

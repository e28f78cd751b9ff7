package egress

import (
	"bytes"
	"errors"
	"io"
	"strings"
)

// maxHeaderBytes bounds a proxy request's head (request line and headers).
const maxHeaderBytes = 64 << 10

// errHeaderTooLarge refuses a request head longer than maxHeaderBytes.
var errHeaderTooLarge = errors.New("request head too large")

// headRecorder reads from a client and keeps what was read until the
// request head is parsed, because net/http drops the Host header of an
// absolute-URI request (it trusts the URI) and the proxy must compare the
// two. Until done, reading past maxHeaderBytes fails.
type headRecorder struct {
	r    io.Reader
	buf  bytes.Buffer
	done bool
}

func (h *headRecorder) Read(p []byte) (int, error) {
	if h.done {
		return h.r.Read(p)
	}
	room := maxHeaderBytes - h.buf.Len()
	if room <= 0 {
		return 0, errHeaderTooLarge
	}
	if len(p) > room {
		p = p[:room]
	}
	n, err := h.r.Read(p)
	h.buf.Write(p[:n])
	return n, err
}

// hostHeaders returns the values of every Host header in the recorded head.
func (h *headRecorder) hostHeaders() []string {
	head := h.buf.Bytes()
	if i := bytes.Index(head, []byte("\r\n\r\n")); i >= 0 {
		head = head[:i]
	}
	lines := strings.Split(string(head), "\n")
	var out []string
	for _, l := range lines[1:] {
		name, value, ok := strings.Cut(strings.TrimRight(l, "\r"), ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "host") {
			out = append(out, strings.TrimSpace(value))
		}
	}
	return out
}

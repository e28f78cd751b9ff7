package egress

import (
	"sync"
	"time"
)

// Connection is one connection a run asked the proxy for: where to, whether
// it was allowed and why not, and how many bytes moved each way.
type Connection struct {
	Host      string    `json:"host"`
	Port      int       `json:"port"`
	BytesUp   int64     `json:"bytes_up"`
	BytesDown int64     `json:"bytes_down"`
	Allowed   bool      `json:"allowed"`
	Reason    string    `json:"reason,omitempty"`
	StartedAt time.Time `json:"started_at"`
}

// connLog keeps the first max connections of a run and counts the rest, so
// a run that opens a million connections cannot grow its record.
type connLog struct {
	mu      sync.Mutex
	max     int
	entries []*Connection
	omitted int
}

// add returns the entry to fill in, or nil when the log is full (the
// connection is then only counted).
func (l *connLog) add(c *Connection) *Connection {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.entries) >= l.max {
		l.omitted++
		return nil
	}
	l.entries = append(l.entries, c)
	return c
}

// update runs f on an entry under the log's lock (entries are read while
// connections are still open).
func (l *connLog) update(c *Connection, f func(*Connection)) {
	if c == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	f(c)
}

// snapshot returns copies of the kept entries and the count of the others.
func (l *connLog) snapshot() ([]Connection, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Connection, len(l.entries))
	for i, c := range l.entries {
		out[i] = *c
	}
	return out, l.omitted
}

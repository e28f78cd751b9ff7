package reduction

import (
	"time"
)

// PartialOutput is a bounded preview of output produced so far by a run
// that has not finished: the tail of the output, how much there is in
// total, and when it last changed. It is not the final result; that is
// Result once the run ends.
type PartialOutput struct {
	// Text is the last bytes of the output, cut on a rune boundary.
	Text string `json:"text"`
	// TotalBytes counts every byte written so far.
	TotalBytes int64 `json:"total_bytes"`
	// Truncated reports that Text is shorter than the output so far.
	Truncated bool `json:"truncated"`
	// UpdatedAt is when output was last written (the Writer's creation time
	// before any output).
	UpdatedAt time.Time `json:"updated_at"`
}

// ClampPartial maps a requested preview size (partial_output_max_bytes) to
// the one served: DefaultPartialBytes when n <= 0, at most MaxPartialBytes.
func ClampPartial(n int) int {
	if n <= 0 {
		return DefaultPartialBytes
	}
	return min(n, MaxPartialBytes)
}

// Partial returns the last ClampPartial(maxBytes) bytes of the output so
// far. It is safe to call while the output is being written.
func (w *Writer) Partial(maxBytes int) PartialOutput {
	n := ClampPartial(maxBytes)
	w.mu.Lock()
	defer w.mu.Unlock()
	avail := int(min(w.total, int64(len(w.ring))))
	n = min(n, avail)
	text := cutTail(w.tailLocked(avail), n)
	return PartialOutput{
		Text:       string(text),
		TotalBytes: w.total,
		Truncated:  int64(len(text)) < w.total,
		UpdatedAt:  w.updated,
	}
}

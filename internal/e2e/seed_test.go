package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The scenarios of the execution-governance design's test advice: a long
// task returns an execution_id within the bounded wait, a wait that times
// out is an observation rather than a failure, cancel ends the task and its
// process, and a huge output comes back reduced with the full output
// persisted and readable.

// TestSeedLongTaskBoundedWaitThenCancel runs `sleep 120` with a short
// bounded wait (the design uses 10 s; 2 s keeps the shape), waits on it
// once more without it finishing, then cancels it.
func TestSeedLongTaskBoundedWaitThenCancel(t *testing.T) {
	s := startServer(t, serverOpts{})
	// A unique fractional duration marks this run's process in /proc.
	marker := fmt.Sprintf("sleep 120.%s", randDigits(6))

	start := time.Now()
	r := s.api.mustSubmit(t, marker, 2)
	if r.Status != "running" {
		t.Fatalf("after the bounded wait: status %q, want running (record %+v)", r.Status, r)
	}
	if !strings.HasPrefix(r.ExecutionID, "exe_") {
		t.Errorf("execution_id %q: want an exe_ id", r.ExecutionID)
	}
	if time.Since(start) > 60*time.Second {
		t.Errorf("the bounded wait of 2 s took %s", time.Since(start))
	}
	if pids, ok := awaitProcesses(marker, true, 30*time.Second); !ok {
		t.Fatalf("no %q process while the execution is running (pids %v)", marker, pids)
	}

	// wait_tool_execution: the timeout is a successful observation.
	code, w, body, err := s.api.wait(context.Background(), r.ExecutionID, 2)
	if err != nil || code != http.StatusOK {
		t.Fatalf("wait: HTTP %d %v: %s", code, err, body)
	}
	if w.Status != "running" || w.IsError || w.Error != "" {
		t.Fatalf("wait that timed out: status %q is_error %v error %q; want running, not an error", w.Status, w.IsError, w.Error)
	}

	code, body, err = s.api.do(context.Background(), http.MethodPost, "/v1/executions/"+r.ExecutionID+"/cancel",
		map[string]string{"reason": "e2e: not waiting any longer"})
	if err != nil || code != http.StatusOK {
		t.Fatalf("cancel: HTTP %d %v: %s", code, err, body)
	}
	final := s.api.awaitTerminal(t, r.ExecutionID, 60*time.Second)
	if final.Status != "cancelled" {
		t.Fatalf("after cancel: status %q (%s), want cancelled", final.Status, final.Error)
	}
	if pids, ok := awaitProcesses(marker, false, 30*time.Second); !ok {
		t.Fatalf("cancelled execution left processes %v running %q", pids, marker)
	}
	if again := s.api.mustGet(t, r.ExecutionID); again.Status != "cancelled" {
		t.Fatalf("stored status %q after cancel, want cancelled", again.Status)
	}
}

// TestSeedLargeOutputReducedAndPersisted prints 200000 characters from a
// python heredoc: the result stays within the 50000-byte cap with the
// <persisted-output> notice, it is the same bytes in every response, and
// the full 200001 bytes read back through the output endpoint.
func TestSeedLargeOutputReducedAndPersisted(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		need(t, "python3 is not installed")
	}
	s := startServer(t, serverOpts{})
	cmd := "python3 - <<'PY'\nprint(\"A\" * 200000)\nPY\n"
	r := s.api.mustSubmit(t, cmd, 60)
	if !terminal(r.Status) {
		r = s.api.awaitTerminal(t, r.ExecutionID, 2*time.Minute)
	}
	if r.Status != "completed" {
		t.Fatalf("status %q (%s), want completed", r.Status, r.Error)
	}
	const limit = 50000
	if len(r.Result) > limit {
		t.Errorf("result is %d bytes, over reduction_max_length_for_trunc %d", len(r.Result), limit)
	}
	if !strings.Contains(r.Result, "<persisted-output>") || !strings.Contains(r.Result, "200001") {
		t.Errorf("result lacks the <persisted-output> notice with the full size 200001: %.300q", r.Result)
	}
	// The canonical result is the same bytes in the store and in a wait.
	if got := s.api.mustGet(t, r.ExecutionID); got.Result != r.Result {
		t.Errorf("stored result (%d bytes) differs from the submit response (%d bytes)", len(got.Result), len(r.Result))
	}
	if code, w, body, err := s.api.wait(context.Background(), r.ExecutionID, 1); err != nil || code != http.StatusOK || w.Result != r.Result {
		t.Errorf("wait result differs from the submit response: HTTP %d %v %.200s", code, err, body)
	}

	full := readOutput(t, s.api, r.ExecutionID, 65536)
	want := strings.Repeat("A", 200000) + "\n"
	if len(full) != len(want) || full != want {
		t.Fatalf("full output is %d bytes, want %d bytes of 'A' and a newline", len(full), len(want))
	}
}

// outputChunk is one response of GET /v1/executions/{id}/output.
type outputChunk struct {
	Offset    int64  `json:"offset"`
	Size      int64  `json:"size"`
	EOF       bool   `json:"eof"`
	Data      string `json:"data"`
	Persisted bool   `json:"persisted"`
}

// readOutput reads the whole output of id in chunks of limit bytes.
func readOutput(t *testing.T, c *client, id string, limit int) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < 1000; i++ {
		path := fmt.Sprintf("/v1/executions/%s/output?offset=%d&limit=%d", id, b.Len(), limit)
		code, body, err := c.do(context.Background(), http.MethodGet, path, nil)
		if err != nil || code != http.StatusOK {
			t.Fatalf("GET %s: HTTP %d %v: %.300s", path, code, err, body)
		}
		var ch outputChunk
		if err := json.Unmarshal(body, &ch); err != nil {
			t.Fatalf("decode output chunk: %v", err)
		}
		if !ch.Persisted {
			t.Fatalf("output of a reduced result is not marked persisted")
		}
		if ch.Offset != int64(b.Len()) {
			t.Fatalf("chunk offset %d, asked %d", ch.Offset, b.Len())
		}
		b.WriteString(ch.Data)
		if ch.EOF {
			if int64(b.Len()) != ch.Size {
				t.Fatalf("read %d bytes at EOF, size says %d", b.Len(), ch.Size)
			}
			return b.String()
		}
		if len(ch.Data) == 0 {
			t.Fatalf("empty chunk before EOF at offset %d", b.Len())
		}
	}
	t.Fatalf("output of %s did not end after 1000 chunks", id)
	return ""
}

// randDigits returns n random decimal digits.
func randDigits(n int) string {
	h := randHex(n)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteByte('0' + h[i]%10)
	}
	return b.String()
}

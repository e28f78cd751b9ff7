package view

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/execution"
)

func TestRecordCutsPartialOutputAndHidesBookkeeping(t *testing.T) {
	lease := time.Now()
	r := &execution.Record{ExecutionID: "exe_1", Status: execution.StatusRunning, WorkerID: "w1",
		LeaseExpiresAt: &lease, PartialOutput: strings.Repeat("x", 100) + "TAIL"}
	var m map[string]any
	if err := json.Unmarshal([]byte(Record(r, true, 10, map[string]any{"wait_timed_out": true})), &m); err != nil {
		t.Fatal(err)
	}
	if m["partial_output"] != "xxxxxxTAIL" || m["partial_output_truncated"] != true || m["wait_timed_out"] != true {
		t.Fatalf("view: %v", m)
	}
	for _, k := range []string{"worker_id", "lease_expires_at", "heartbeat_at"} {
		if _, ok := m[k]; ok {
			t.Errorf("%s shown", k)
		}
	}
	if r.PartialOutput == "xxxxxxTAIL" {
		t.Fatal("the record itself was modified")
	}
	// Not asked for, or finished: no preview.
	for _, c := range []struct {
		include bool
		status  execution.Status
	}{{false, execution.StatusRunning}, {true, execution.StatusCompleted}} {
		r.Status = c.status
		m = nil
		json.Unmarshal([]byte(Record(r, c.include, 10, nil)), &m)
		if m["partial_output"] != "" {
			t.Errorf("%v: preview %q", c, m["partial_output"])
		}
	}
}

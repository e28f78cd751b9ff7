package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/execution"
)

// REST and MCP are adapters over the same service operations: the same
// record reads the same through both, and a cancel means the same.

// rest calls the REST API with key and decodes the JSON answer.
func (f *httpFixture) rest(t *testing.T, key, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, err := http.NewRequest(method, f.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatalf("%s %s: HTTP %d: %v", method, path, resp.StatusCode, err)
	}
	return resp.StatusCode, m
}

// keyID is the key id of a tw_<id>_<secret> token: the records' owner.
func keyID(token string) string {
	return strings.SplitN(strings.TrimPrefix(token, "tw_"), "_", 2)[0]
}

// runningRecord stores a record owned by owner and claims it for a
// worker that never runs it, with a partial output far over any preview.
func runningRecord(t *testing.T, b execution.Backend, owner string) *execution.Record {
	t.Helper()
	ctx := context.Background()
	r := &execution.Record{ToolName: "exec", Language: "bash", Content: "sleep 600", OwnerKeyID: owner}
	if err := b.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Claim(ctx, "idle-worker", time.Second); err != nil || got.ExecutionID != r.ExecutionID {
		t.Fatalf("claim: %v %v", got, err)
	}
	err := b.Update(ctx, r.ExecutionID, func(x *execution.Record) error {
		x.PartialOutput = strings.Repeat("p", 3000) + "TAIL"
		x.PartialOutputBytes = int64(len(x.PartialOutput))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// without returns m without the named keys.
func without(m map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

func TestRESTAndMCPShowTheSameRecord(t *testing.T) {
	f := newHTTPFixture(t, false)
	c := f.connect(t, f.agent)
	r := runningRecord(t, f.svc.Backend, keyID(f.agent))
	id := r.ExecutionID

	code, viaREST := f.rest(t, f.agent, "GET", "/v1/executions/"+id+"?partial_output_max_bytes=100", nil)
	viaMCP := object(t, call(t, c, "get_tool_execution", map[string]any{"execution_id": id, "partial_output_max_bytes": 100}))
	if code != 200 || !reflect.DeepEqual(viaREST, viaMCP) {
		t.Fatalf("get differs:\nREST %d %v\nMCP  %v", code, viaREST, viaMCP)
	}
	if viaREST["partial_output_truncated"] != true || len(viaREST["partial_output"].(string)) != 100 {
		t.Fatalf("the preview's cut is not reported: %v %d", viaREST["partial_output_truncated"], len(viaREST["partial_output"].(string)))
	}
	for _, k := range []string{"worker_id", "lease_expires_at", "heartbeat_at", "env"} {
		if _, ok := viaREST[k]; ok {
			t.Errorf("%s shown", k)
		}
	}

	code, viaREST = f.rest(t, f.agent, "POST", "/v1/executions/"+id+"/wait",
		map[string]any{"timeout_seconds": 0.1, "partial_output_max_bytes": 50})
	viaMCP = object(t, call(t, c, "wait_tool_execution", map[string]any{"execution_id": id, "timeout_seconds": 0.1, "partial_output_max_bytes": 50}))
	if code != 200 || viaREST["wait_timed_out"] != true || !reflect.DeepEqual(viaREST, without(viaMCP, "message")) {
		t.Fatalf("wait differs:\nREST %d %v\nMCP  %v", code, viaREST, viaMCP)
	}

	// Someone else's record is not found through either door.
	code, _ = f.rest(t, f.agent2, "GET", "/v1/executions/"+id, nil)
	c2 := f.connect(t, f.agent2)
	if res := call(t, c2, "get_tool_execution", map[string]any{"execution_id": id}); code != 404 || !res.IsError ||
		!strings.Contains(text(res), "not found") {
		t.Fatalf("another agent's record: REST %d, MCP %s", code, text(res))
	}

	// An upstream call through the gateway is found by the REST API too.
	up := object(t, call(t, c, "demo_run_shell_command", map[string]any{"command": "echo hi"}))
	gid, _ := up["execution_id"].(string)
	if gid == "" {
		t.Fatalf("the gateway result names no execution id: %v", up)
	}
	code, viaREST = f.rest(t, f.agent, "GET", "/v1/executions/"+gid, nil)
	viaMCP = object(t, call(t, c, "get_tool_execution", map[string]any{"execution_id": gid}))
	if code != 200 || viaREST["status"] != "completed" || !reflect.DeepEqual(viaREST, viaMCP) {
		t.Fatalf("gateway record differs:\nREST %d %v\nMCP  %v", code, viaREST, viaMCP)
	}
}

// A cancel waits (boundedly) for the run to end in both doors: the answer
// carries the final state, not the record still running.
func TestRESTAndMCPCancelAlike(t *testing.T) {
	f := newHTTPFixture(t, false)
	c := f.connect(t, f.agent)
	owner := keyID(f.agent)

	// The idle worker honours a cancel a little later, as an executor does.
	honour := func(r *execution.Record) {
		go func() {
			ctx := context.Background()
			for end := time.Now().Add(waitFor); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
				if ok, err := f.svc.Backend.CancelRequested(ctx, r.ExecutionID); err == nil && ok {
					time.Sleep(200 * time.Millisecond)
					f.svc.Backend.Finish(ctx, "idle-worker", r.ExecutionID, &execution.Record{Status: execution.StatusCancelled,
						IsError: true, StatusReason: "stopped", Cleanup: execution.CleanupDone})
					return
				}
			}
		}()
	}
	a, b := runningRecord(t, f.svc.Backend, owner), runningRecord(t, f.svc.Backend, owner)
	honour(a)
	honour(b)
	code, viaREST := f.rest(t, f.agent, "POST", "/v1/executions/"+a.ExecutionID+"/cancel", map[string]any{"reason": "enough"})
	viaMCP := object(t, call(t, c, "cancel_tool_execution", map[string]any{"execution_id": b.ExecutionID, "reason": "enough"}))
	for door, m := range map[string]map[string]any{"REST": viaREST, "MCP": viaMCP} {
		if m["status"] != "cancelled" || m["wait_timed_out"] != false || m["message"] != "cancelled" {
			t.Errorf("%s cancel answered %v", door, m)
		}
	}
	if code != 200 {
		t.Fatalf("REST cancel: HTTP %d", code)
	}
	// The two answers differ only in what names the record.
	drop := []string{"execution_id", "created_at", "started_at", "ended_at", "duration_ms", "partial_output_updated_at"}
	if !reflect.DeepEqual(without(viaREST, drop...), without(viaMCP, drop...)) {
		t.Fatalf("cancel answers differ:\nREST %v\nMCP  %v", viaREST, viaMCP)
	}

	// A run that does not stop within the cancel's wait is reported as
	// requested, through both doors alike.
	d, e := runningRecord(t, f.svc.Backend, owner), runningRecord(t, f.svc.Backend, owner)
	_, viaREST = f.rest(t, f.agent, "POST", "/v1/executions/"+d.ExecutionID+"/cancel", map[string]any{"wait_seconds": 0.1})
	viaMCP = object(t, call(t, c, "cancel_tool_execution", map[string]any{"execution_id": e.ExecutionID, "wait_seconds": 0.1}))
	for door, m := range map[string]map[string]any{"REST": viaREST, "MCP": viaMCP} {
		if m["status"] != "running" || m["wait_timed_out"] != true || m["cancel_requested"] != true ||
			!strings.Contains(m["message"].(string), "cancel requested") {
			t.Errorf("%s cancel of a run that keeps going answered %v", door, m)
		}
	}
}

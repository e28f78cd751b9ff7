package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/internal/scanlog"
	"github.com/toolwarden/toolwarden/internal/server"
)

// TestScanLogRoutes: every scan (POST /v1/scan and POST /v1/executions) is
// logged redacted; agents list and get only their own, reviewers all; the
// decision filter applies; without a scan log the routes say it is off.
func TestScanLogRoutes(t *testing.T) {
	pol, _ := policies.Builtin("default")
	l, err := scanlog.OpenSQLite(t.TempDir(), scanlog.DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	rec := scanlog.NewRecorder(l, scanlog.DefaultConfig(), 0, nil)
	defer rec.Close()
	f := newFixture(t, pol, server.Config{RatePerSecond: -1, ScanLog: rec})
	const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	if code, m := f.do("POST", "/v1/scan", f.agent, map[string]any{"command": "rm -rf / # " + token}); code != 200 {
		t.Fatalf("scan: %d %v", code, m)
	}
	if code, m := f.do("POST", "/v1/scan", f.agent2, map[string]any{"command": "echo hi", "env": map[string]string{"K": "v-secret-value"}}); code != 200 {
		t.Fatalf("scan: %d %v", code, m)
	}
	if code, m := f.do("POST", "/v1/executions", f.agent, map[string]any{"command": "rm -rf /"}); code != http.StatusForbidden {
		t.Fatalf("denied execution: %d %v", code, m)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := rec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	list := func(key, query string) []map[string]any {
		t.Helper()
		code, m := f.do("GET", "/v1/scans"+query, key, nil)
		if code != 200 {
			t.Fatalf("GET /v1/scans%s: %d %v", query, code, m)
		}
		var out []map[string]any
		for _, s := range m["scans"].([]any) {
			out = append(out, s.(map[string]any))
		}
		return out
	}
	mine := list(f.agent, "")
	if len(mine) != 2 {
		t.Fatalf("agent sees %d scans, want its 2", len(mine))
	}
	for _, s := range mine {
		b, _ := json.Marshal(s)
		if strings.Contains(string(b), token) {
			t.Errorf("the token is in the logged scan: %s", b)
		}
		if s["decision"] != "deny" {
			t.Errorf("decision %v, want deny", s["decision"])
		}
	}
	if got := list(f.agent, "?agent=someone-else"); len(got) != 2 {
		t.Errorf("an agent's agent= must not widen its view: %d", len(got))
	}
	if all := list(f.reviewer, ""); len(all) != 3 {
		t.Errorf("reviewer sees %d scans, want 3", len(all))
	}
	if denied := list(f.admin, "?decision=deny"); len(denied) != 2 {
		t.Errorf("decision=deny: %d, want 2", len(denied))
	}
	other := list(f.agent2, "")
	if len(other) != 1 {
		t.Fatalf("agent2 sees %d", len(other))
	}
	b, _ := json.Marshal(other[0])
	if strings.Contains(string(b), "v-secret-value") || !strings.Contains(string(b), `"K"`) {
		t.Errorf("env: want the name only: %s", b)
	}
	id := mine[0]["scan_id"].(string)
	if code, _ := f.do("GET", "/v1/scans/"+id, f.agent, nil); code != 200 {
		t.Errorf("own scan: %d", code)
	}
	if code, _ := f.do("GET", "/v1/scans/"+id, f.agent2, nil); code != 404 {
		t.Errorf("another agent's scan: %d, want 404", code)
	}
	if code, _ := f.do("GET", "/v1/scans/"+id, f.reviewer, nil); code != 200 {
		t.Errorf("reviewer: %d", code)
	}
	if code, _ := f.do("GET", "/v1/scans", "", nil); code != 401 {
		t.Errorf("no key: %d", code)
	}
	if code, m := f.do("GET", "/v1/scans?since=yesterday", f.admin, nil); code != 400 || !strings.Contains(m["error"].(map[string]any)["field"].(string), "since") {
		t.Errorf("bad since: %d %v", code, m)
	}
	off := newFixture(t, pol, server.Config{RatePerSecond: -1})
	if code, m := off.do("GET", "/v1/scans", off.admin, nil); code != 404 || errCode(m) != "scanlog_disabled" {
		t.Errorf("disabled: %d %v", code, m)
	}
}

package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/auth"
	"github.com/toolwarden/toolwarden/internal/execution/embedded"
	"github.com/toolwarden/toolwarden/internal/plugins"
	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/internal/server"
)

// pluginFixture is a server with a plugin manager on an embedded store.
type pluginFixture struct {
	*fixture
	eng *engine.Engine
}

func newPluginFixture(t *testing.T) *pluginFixture {
	t.Helper()
	return newPluginFixtureIn(t, t.TempDir(), plugins.Limits{Deadline: 5 * time.Second})
}

func newPluginFixtureIn(t *testing.T, dir string, lim plugins.Limits) *pluginFixture {
	t.Helper()
	eng, err := engine.New(context.Background(), engine.Options{Policy: policies.Default(), Packs: engine.NativePacks()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(context.Background()) })
	b, err := embedded.Open(t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	keys, err := auth.Open(filepath.Join(t.TempDir(), "keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	store, err := plugins.OpenEmbedded(filepath.Join(dir, "plugins"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := plugins.NewManager(plugins.Config{Store: store, Engine: eng, Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	m.Start(ctx)
	f := &fixture{t: t, backend: b}
	f.admin, _, _ = keys.Create("admin", auth.RoleAdmin)
	f.agent, _, _ = keys.Create("agent", auth.RoleAgent)
	f.reviewer, _, _ = keys.Create("reviewer", auth.RoleReviewer)
	srv := httptest.NewServer(server.New(server.Config{RatePerSecond: -1, Plugins: m}, eng, b, keys).Handler())
	t.Cleanup(srv.Close)
	f.url = srv.URL
	return &pluginFixture{fixture: f, eng: eng}
}

func markerWasm(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../plugins/testdata/marker.wasm")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// raw sends body with contentType and decodes the JSON answer.
func (f *pluginFixture) raw(method, path, key, contentType string, body []byte) (int, map[string]any) {
	f.t.Helper()
	req, _ := http.NewRequest(method, f.url+path, bytes.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(data, &m)
	return resp.StatusCode, m
}

// TestPluginRoutesRefuseWithoutKeyAndNonAdmins: every plugin route answers
// 401 without a key and 403 to agents and reviewers; an agent's upload
// changes nothing.
func TestPluginRoutesRefuseWithoutKeyAndNonAdmins(t *testing.T) {
	f := newPluginFixture(t)
	d := "sha256:" + strings.Repeat("0", 64)
	routes := []struct{ method, path string }{
		{"POST", "/v1/plugins"}, {"GET", "/v1/plugins"}, {"GET", "/v1/plugins/marker"},
		{"POST", "/v1/plugins/marker/activate"}, {"POST", "/v1/plugins/marker/deactivate"},
		{"POST", "/v1/plugins/marker/rollback"}, {"POST", "/v1/plugins/marker/shadow"},
		{"DELETE", "/v1/plugins/marker/revisions/" + d},
	}
	for _, r := range routes {
		if code, body := f.raw(r.method, r.path, "", "application/wasm", markerWasm(t)); code != http.StatusUnauthorized {
			t.Errorf("%s %s without a key: %d %v", r.method, r.path, code, body)
		}
		for _, k := range []string{f.agent, f.reviewer} {
			if code, body := f.raw(r.method, r.path, k, "application/wasm", markerWasm(t)); code != http.StatusForbidden {
				t.Errorf("%s %s as non-admin: %d %v", r.method, r.path, code, body)
			}
		}
	}
	code, body := f.do("GET", "/v1/plugins", f.admin, nil)
	if code != 200 {
		t.Fatalf("list: %d %v", code, body)
	}
	for _, p := range body["plugins"].([]any) {
		if p.(map[string]any)["builtin"] != true {
			t.Fatalf("an upload by a non-admin was stored: %v", p)
		}
	}
}

// TestPluginUploadOverHTTP: raw and multipart uploads, activation, the
// refusal of garbage with its validation report, and what scans decide.
func TestPluginUploadOverHTTP(t *testing.T) {
	f := newPluginFixture(t)
	code, body := f.raw("POST", "/v1/plugins", f.admin, "application/wasm", []byte("garbage\x00\x01"))
	if code != http.StatusUnprocessableEntity || body["status"] != "refused" || errCode(body) != "plugin_refused" {
		t.Fatalf("garbage: %d %v", code, body)
	}
	val := body["validation"].(map[string]any)
	if val["ok"] != false || !strings.Contains(toJSON(val["checks"]), `"name":"format","ok":false`) {
		t.Fatalf("garbage validation: %v", val)
	}

	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	w, _ := mw.CreateFormFile("module", "marker.wasm")
	w.Write(markerWasm(t))
	w, _ = mw.CreateFormFile("manifest", "plugin.yaml")
	w.Write([]byte("name: marker\ntests:\n  - {content: echo twmarker-deny, expect: deny, rules: [WAT_MARKER]}\n  - {content: ls, expect: allow}\n"))
	mw.Close()
	code, body = f.raw("POST", "/v1/plugins?activate=true", f.admin, mw.FormDataContentType(), buf.Bytes())
	if code != http.StatusCreated || body["status"] != "active" || body["name"] != "marker" || body["abi_version"] != float64(1) ||
		!strings.HasPrefix(body["digest"].(string), "sha256:") || body["validation"].(map[string]any)["ok"] != true {
		t.Fatalf("multipart upload: %d %v", code, body)
	}
	digest := body["digest"].(string)
	code, body = f.do("POST", "/v1/scan", f.agent, map[string]any{"language": "bash", "command": "echo twmarker-deny"})
	if code != 200 || body["decision"] != "deny" || !strings.Contains(toJSON(body["findings"]), "WAT_MARKER") {
		t.Fatalf("scan after activation: %d %v", code, body)
	}
	code, body = f.do("GET", "/v1/plugins/marker", f.admin, nil)
	if code != 200 || body["active_digest"] != digest || !strings.Contains(toJSON(body["replicas"]), digest) {
		t.Fatalf("detail: %d %v", code, body)
	}
	code, body = f.do("POST", "/v1/plugins/marker/deactivate", f.admin, nil)
	if code != 200 || body["loaded_here"] != true {
		t.Fatalf("deactivate: %d %v", code, body)
	}
	code, body = f.do("POST", "/v1/scan", f.agent, map[string]any{"language": "bash", "command": "echo twmarker-deny"})
	if code != 200 || strings.Contains(toJSON(body["findings"]), "WAT_MARKER") {
		t.Fatalf("scan after deactivation: %d %v", code, body)
	}
	if code, body = f.do("POST", "/v1/plugins/marker/rollback", f.admin, nil); code != 200 || body["active_digest"] != digest {
		t.Fatalf("rollback: %d %v", code, body)
	}
	if code, body = f.do("DELETE", "/v1/plugins/marker/revisions/"+digest, f.admin, nil); code != http.StatusConflict {
		t.Fatalf("delete active: %d %v", code, body)
	}
	if code, body = f.do("POST", "/v1/plugins/marker/activate", f.admin, map[string]any{"digest": "nope"}); code != 400 || body["error"].(map[string]any)["field"] != "digest" {
		t.Fatalf("activate without digest: %d %v", code, body)
	}
	if code, body = f.do("POST", "/v1/plugins/marker/shadow", f.admin, map[string]any{"digest": digest}); code != http.StatusServiceUnavailable {
		t.Fatalf("shadow without a scan log: %d %v", code, body)
	}
	// A module over the API's 2 MB body limit reaches validation (the
	// upload route has the module cap instead); over the cap it is 413.
	big := make([]byte, 3<<20)
	if code, body = f.raw("POST", "/v1/plugins", f.admin, "application/wasm", big); code != http.StatusUnprocessableEntity || !strings.Contains(toJSON(body), `"name":"format"`) {
		t.Fatalf("3 MB upload: %d %v", code, body)
	}
	if code, body = f.raw("POST", "/v1/plugins", f.admin, "application/wasm", make([]byte, 18<<20)); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("18 MB upload: %d %v", code, body)
	}
	if code, body = f.raw("POST", "/v1/plugins", f.admin, "text/plain", markerWasm(t)); code != http.StatusUnsupportedMediaType {
		t.Fatalf("wrong content type: %d %v", code, body)
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestReadyzDegradedWhenPluginSetDoesNotLoad: a server that cannot load
// the stored active set (its memory cap is below the module's) keeps
// judging with its previous set, /readyz says degraded (200), and the
// plugin's replicas show the error.
func TestReadyzDegradedWhenPluginSetDoesNotLoad(t *testing.T) {
	dir := t.TempDir()
	ok := newPluginFixtureIn(t, dir, plugins.Limits{Deadline: 5 * time.Second})
	if code, body := ok.raw("POST", "/v1/plugins?activate=true", ok.admin, "application/wasm", markerWasm(t)); code != http.StatusCreated {
		t.Fatalf("upload: %d %v", code, body)
	}
	f := newPluginFixtureIn(t, dir, plugins.Limits{Deadline: 5 * time.Second, MemoryBytes: 65536})
	code, body := f.do("GET", "/readyz", "", nil)
	checks, _ := body["checks"].(map[string]any)
	if code != 200 || body["status"] != "degraded" || !strings.HasPrefix(toJSON(checks["plugin_set"]), `"degraded: `) {
		t.Fatalf("readyz: %d %v", code, body)
	}
	code, body = f.do("POST", "/v1/scan", f.agent, map[string]any{"language": "bash", "command": "echo twmarker-deny"})
	if code != 200 || strings.Contains(toJSON(body["findings"]), "WAT_MARKER") {
		t.Fatalf("scan on the degraded server: %d %v", code, body)
	}
	code, body = f.do("GET", "/v1/plugins/marker", f.admin, nil)
	if code != 200 || !strings.Contains(toJSON(body["replicas"]), "memory") {
		t.Fatalf("detail: %d %v", code, body)
	}
}

package webui_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/auth"
	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/execution/embedded"
	"github.com/toolwarden/toolwarden/internal/executor"
	"github.com/toolwarden/toolwarden/internal/isolation"
	"github.com/toolwarden/toolwarden/internal/plugins"
	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/internal/policystore"
	"github.com/toolwarden/toolwarden/internal/scanlog"
	"github.com/toolwarden/toolwarden/internal/server"
	"github.com/toolwarden/toolwarden/internal/webui"
	"github.com/toolwarden/toolwarden/sdk"
)

// fixture is a real toolwarden server with the panel mounted, on an
// embedded store, optionally with an embedded executor running the calls.
type fixture struct {
	t        *testing.T
	url      string
	backend  execution.Backend
	keys     *auth.Store
	sessions *webui.Sessions
	admin    string
	reviewer string
	agent    string
	agent2   string
	agentID  string
	scans    *scanlog.Recorder
	policies *policystore.Store
}

func newFixture(t *testing.T, pol *sdk.Policy, withExecutor bool) *fixture {
	t.Helper()
	dir := t.TempDir()
	eng, err := engine.New(context.Background(), engine.Options{Policy: pol, Packs: engine.NativePacks()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(context.Background()) })
	b, err := embedded.Open(dir, embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	keys, err := auth.Open(filepath.Join(dir, "keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, backend: b, keys: keys, sessions: webui.NewSessions(webui.SessionOptions{})}
	f.admin, _, _ = keys.Create("admin", auth.RoleAdmin)
	f.reviewer, _, _ = keys.Create("reviewer", auth.RoleReviewer)
	var ak auth.Key
	f.agent, ak, _ = keys.Create("agent", auth.RoleAgent)
	f.agentID = ak.ID
	f.agent2, _, _ = keys.Create("agent2", auth.RoleAgent)
	red := filepath.Join(dir, "reduction")
	sl, err := scanlog.OpenSQLite(dir, scanlog.DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	f.scans = scanlog.NewRecorder(sl, scanlog.DefaultConfig(), 0, nil)
	t.Cleanup(func() { f.scans.Close(); sl.Close() })
	pstore, err := plugins.OpenEmbedded(filepath.Join(dir, "plugins"))
	if err != nil {
		t.Fatal(err)
	}
	pm, err := plugins.NewManager(plugins.Config{Store: pstore, Engine: eng, Limits: plugins.Limits{Deadline: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	pctx, stopPlugins := context.WithCancel(context.Background())
	t.Cleanup(stopPlugins)
	pm.Start(pctx)
	pb, err := policystore.OpenEmbedded(filepath.Join(dir, "policy"), []byte("webui test mac key"))
	if err != nil {
		t.Fatal(err)
	}
	initial, err := policies.BuiltinYAML(pol.Name)
	if err != nil {
		t.Fatal(err)
	}
	f.policies, err = policystore.Open(pctx, pb, policystore.Options{Validate: server.PolicyValidator(eng), Apply: eng.SetPolicy,
		Initial: policystore.Revision{YAML: string(initial), UpdatedBy: "config"}, Interval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	go f.policies.Run(pctx)
	srv := server.New(server.Config{
		Sessions: f.sessions, ReductionRoot: red, RatePerSecond: -1, ScanLog: f.scans, Plugins: pm, Policies: f.policies,
		UI: webui.Handler(webui.Options{Keys: keys, Sessions: f.sessions}),
	}, eng, b, keys)
	if withExecutor {
		startExecutor(t, b, red)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	f.url = hs.URL
	return f
}

// startExecutor runs an executor on the store under the process-group
// isolation backend.
func startExecutor(t *testing.T, b execution.Backend, reduction string) {
	t.Helper()
	iso, err := isolation.Open(context.Background(), isolation.Config{Mode: isolation.ModeProcessGroup})
	if err != nil {
		t.Fatalf("open isolation: %v", err)
	}
	ws, err := os.MkdirTemp("", "webui-ws-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(ws, 0o777)
	d, err := executor.New(b, iso, executor.Config{Concurrency: 2, Exclusive: true, WorkspaceRoot: ws,
		HeartbeatInterval: 200 * time.Millisecond, ClaimBlock: 200 * time.Millisecond, PartialInterval: 50 * time.Millisecond,
		ReductionRoot: reduction})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); d.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		iso.Close()
		os.RemoveAll(ws)
	})
}

// client is an HTTP client with its own cookie jar: one browser.
func (f *fixture) client() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// call sends a request; key is a bearer token ("" for none), csrf an
// X-CSRF-Token ("" for none).
func (f *fixture) call(c *http.Client, method, path, key, csrf string, body any) (*http.Response, map[string]any) {
	f.t.Helper()
	var rd io.Reader
	if body != nil {
		buf, _ := json.Marshal(body)
		rd = bytes.NewReader(buf)
	}
	req, _ := http.NewRequest(method, f.url+path, rd)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if csrf != "" {
		req.Header.Set(webui.CSRFHeader, csrf)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if strings.HasPrefix(strings.TrimSpace(string(raw)), "{") {
		if err := json.Unmarshal(raw, &out); err != nil {
			f.t.Fatalf("%s %s: bad JSON %q", method, path, raw)
		}
	} else {
		out = map[string]any{"raw": string(raw)}
	}
	return resp, out
}

// signIn opens a session for key in c and returns the CSRF token.
func (f *fixture) signIn(c *http.Client, key string) string {
	f.t.Helper()
	resp, out := f.call(c, "POST", "/ui/session", "", "", map[string]any{"key": key})
	if resp.StatusCode != 200 {
		f.t.Fatalf("sign in: %d %v", resp.StatusCode, out)
	}
	tok, _ := out["csrf_token"].(string)
	if tok == "" {
		f.t.Fatalf("sign in: no csrf token in %v", out)
	}
	return tok
}

func errCode(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

// waitScansLogged polls GET /v1/scans (as admin) until it lists at least n
// scans: the scan log's writer runs in the background, so a page that reads
// the log right after the calls could see fewer.
func (f *fixture) waitScansLogged(n int) {
	f.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		_, out := f.call(f.client(), "GET", "/v1/scans?limit=50", f.admin, "", nil)
		if scans, _ := out["scans"].([]any); len(scans) >= n {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("the scan log holds fewer than %d scans after 15 s: %v", n, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

package server_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/auth"
	"github.com/toolwarden/toolwarden/internal/execution/embedded"
	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/internal/policystore"
	"github.com/toolwarden/toolwarden/internal/scanlog"
	"github.com/toolwarden/toolwarden/internal/server"
	"github.com/toolwarden/toolwarden/sdk"
	"github.com/toolwarden/toolwarden/sdk/client"
)

// policyServer is one server with a managed policy, and clients for each
// role.
type policyServer struct {
	url                     string
	eng                     *engine.Engine
	store                   *policystore.Store
	admin, reviewer, agent  *client.Client
	adminKey, agentKey, rev string
}

// reviewContent is a command the default policy holds for review (a long
// sleep) and denySleep denies.
const reviewContent = "sleep 3600"

// denySleep makes the long-sleep rule deny; reviewSleep keeps its review.
const (
	denySleep   = "rules:\n  BASH_LONG_SLEEP:\n    decision: deny\n"
	reviewSleep = "rules:\n  BASH_LONG_SLEEP:\n    decision: needs_human_review\n"
)

// newPolicyServer starts a server whose policy store uses backend; keys
// is shared between servers of one deployment (nil: a new one).
func newPolicyServer(t *testing.T, backend policystore.Backend, keys *auth.Store, recent func(context.Context, int) ([]server.ReplayScan, error)) *policyServer {
	t.Helper()
	return newPolicyServerCfg(t, backend, keys, server.Config{RecentScans: recent})
}

// newPolicyServerCfg is newPolicyServer with more of the server's
// configuration (the scan log).
func newPolicyServerCfg(t *testing.T, backend policystore.Backend, keys *auth.Store, cfg server.Config) *policyServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	eng, err := engine.New(ctx, engine.Options{Policy: policies.Default(), Packs: engine.NativePacks()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(context.Background()) })
	ps, err := policystore.Open(ctx, backend, policystore.Options{Validate: server.PolicyValidator(eng), Apply: eng.SetPolicy,
		Initial: policystore.Revision{YAML: "name: default\n", UpdatedBy: "config"}, Interval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	go ps.Run(ctx)
	dir := t.TempDir()
	b, err := embedded.Open(dir, embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	if keys == nil {
		if keys, err = auth.Open(filepath.Join(dir, "keys.json")); err != nil {
			t.Fatal(err)
		}
	}
	p := &policyServer{eng: eng, store: ps}
	p.adminKey, _, _ = keys.Create("admin", auth.RoleAdmin)
	p.rev, _, _ = keys.Create("reviewer", auth.RoleReviewer)
	p.agentKey, _, _ = keys.Create("agent", auth.RoleAgent)
	cfg.RatePerSecond, cfg.Policies = -1, ps
	srv := httptest.NewServer(server.New(cfg, eng, b, keys).Handler())
	t.Cleanup(srv.Close)
	p.url = srv.URL
	mk := func(tok string) *client.Client {
		c, err := client.New(srv.URL, tok, client.WithRetry(client.RetryPolicy{MaxAttempts: 1}))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	p.admin, p.reviewer, p.agent = mk(p.adminKey), mk(p.rev), mk(p.agentKey)
	return p
}

func embeddedBackend(t *testing.T, dir string) policystore.Backend {
	t.Helper()
	b, err := policystore.OpenEmbedded(dir, []byte("test mac key"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decisionOf(t *testing.T, eng *engine.Engine, content string) sdk.Decision {
	t.Helper()
	rep, err := eng.Scan(context.Background(), engine.Request{Language: "bash", Content: content})
	if err != nil {
		t.Fatal(err)
	}
	return rep.Decision
}

func wantAPIError(t *testing.T, err error, status int, field string) {
	t.Helper()
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.StatusCode != status || ae.Field != field {
		t.Fatalf("error = %v, want status %d naming field %q", err, status, field)
	}
}

func TestPolicyPutInvalidNamesTheKey(t *testing.T) {
	p := newPolicyServer(t, embeddedBackend(t, t.TempDir()), nil, nil)
	ctx := context.Background()
	for _, tc := range []struct{ yaml, field string }{
		{"max_timeout_secondz: 5\n", "max_timeout_secondz"},
		{"max_timeout_seconds: -5\n", "max_timeout_seconds"},
		{"block_on_review: maybe\n", "block_on_review"},
		{"rules:\n  NOT_A_RULE:\n    decision: deny\n", "rules.NOT_A_RULE"},
		{"audit_log_path: /tmp/elsewhere.jsonl\n", "audit_log_path"},
	} {
		_, err := p.admin.PutPolicy(ctx, tc.yaml)
		wantAPIError(t, err, http.StatusBadRequest, tc.field)
	}
	cur, err := p.reviewer.Policy(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cur.Version != 0 || cur.UpdatedBy != "config" {
		t.Fatalf("a refused document changed the policy: %+v", cur)
	}
	if got := decisionOf(t, p.eng, reviewContent); got != sdk.NeedsHumanReview {
		t.Fatalf("decision %s under the untouched default, want needs_human_review", got)
	}

	// A raw YAML body works too.
	req, _ := http.NewRequest(http.MethodPut, p.url+"/v1/policy", strings.NewReader(denySleep))
	req.Header.Set("Authorization", "Bearer "+p.adminKey)
	req.Header.Set("Content-Type", "application/yaml")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT raw YAML: %d", resp.StatusCode)
	}
	if got := decisionOf(t, p.eng, reviewContent); got != sdk.Deny {
		t.Fatalf("decision %s after PUT of a deny override, want deny", got)
	}
}

func TestPolicyRoles(t *testing.T) {
	p := newPolicyServer(t, embeddedBackend(t, t.TempDir()), nil, func(context.Context, int) ([]server.ReplayScan, error) { return nil, nil })
	ctx := context.Background()
	if _, err := p.agent.Policy(ctx); !isStatus(err, http.StatusForbidden) {
		t.Fatalf("agent GET /v1/policy: %v, want 403", err)
	}
	if _, err := p.agent.PutPolicy(ctx, denySleep); !isStatus(err, http.StatusForbidden) {
		t.Fatalf("agent PUT: %v, want 403", err)
	}
	if _, err := p.reviewer.PutPolicy(ctx, denySleep); !isStatus(err, http.StatusForbidden) {
		t.Fatalf("reviewer PUT: %v, want 403", err)
	}
	if _, err := p.reviewer.RollbackPolicy(ctx, 1); !isStatus(err, http.StatusForbidden) {
		t.Fatalf("reviewer rollback: %v, want 403", err)
	}
	if _, err := p.reviewer.DryRunPolicy(ctx, denySleep, 5); !isStatus(err, http.StatusForbidden) {
		t.Fatalf("reviewer dry-run: %v, want 403", err)
	}
	if _, err := p.reviewer.PolicyHistory(ctx); err != nil {
		t.Fatalf("reviewer history: %v", err)
	}
	if got := decisionOf(t, p.eng, reviewContent); got != sdk.NeedsHumanReview {
		t.Fatalf("refused changes changed the policy: decision %s", got)
	}
	// Without a key every policy route answers 401.
	for _, r := range []struct{ method, path string }{
		{"GET", "/v1/policy"}, {"PUT", "/v1/policy"}, {"POST", "/v1/policy/dry-run"},
		{"GET", "/v1/policy/history"}, {"POST", "/v1/policy/rollback"},
	} {
		req, _ := http.NewRequest(r.method, p.url+r.path, strings.NewReader(`{"yaml":"block_on_review: true"}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s %s without a key: %d, want 401", r.method, r.path, resp.StatusCode)
		}
	}
}

func isStatus(err error, status int) bool {
	var ae *client.APIError
	return errors.As(err, &ae) && ae.StatusCode == status
}

func TestPolicyDryRunShowsChangedDecision(t *testing.T) {
	scans := []server.ReplayScan{
		{ScanID: "scan-review", Request: engine.Request{Language: "bash", Content: reviewContent}},
		{ScanID: "scan-allow", Request: engine.Request{Language: "bash", Content: "ls -la"}},
	}
	var asked int
	p := newPolicyServer(t, embeddedBackend(t, t.TempDir()), nil, func(_ context.Context, n int) ([]server.ReplayScan, error) {
		asked = n
		return scans, nil
	})
	ctx := context.Background()
	res, err := p.admin.DryRunPolicy(ctx, denySleep, 7)
	if err != nil {
		t.Fatal(err)
	}
	if asked != 7 || res.Replayed != 2 || len(res.Changed) != 1 {
		t.Fatalf("dry run asked %d scans, result %+v; want 7 asked, 2 replayed, 1 changed", asked, res)
	}
	ch := res.Changed[0]
	if ch.ScanID != "scan-review" || ch.Before != sdk.NeedsHumanReview || ch.After != sdk.Deny {
		t.Fatalf("changed = %+v", ch)
	}
	// Nothing was stored or applied.
	if got := decisionOf(t, p.eng, reviewContent); got != sdk.NeedsHumanReview {
		t.Fatalf("dry run changed the live policy: decision %s", got)
	}
	if h, _ := p.admin.PolicyHistory(ctx); len(h) != 0 {
		t.Fatalf("dry run stored revisions: %+v", h)
	}
	// An invalid candidate is a 400 naming the key, not a replay.
	_, err = p.admin.DryRunPolicy(ctx, "block_on_reviw: true\n", 7)
	wantAPIError(t, err, http.StatusBadRequest, "block_on_reviw")
}

func TestPolicyRollbackAndHistory(t *testing.T) {
	p := newPolicyServer(t, embeddedBackend(t, t.TempDir()), nil, nil)
	ctx := context.Background()
	v1, err := p.admin.PutPolicy(ctx, denySleep)
	if err != nil {
		t.Fatal(err)
	}
	v2, err := p.admin.PutPolicy(ctx, reviewSleep)
	if err != nil {
		t.Fatal(err)
	}
	if v1.Version != 1 || v2.Version != 2 || v1.Digest == v2.Digest || !strings.HasPrefix(v1.Digest, "sha256:") {
		t.Fatalf("versions %+v %+v", v1, v2)
	}
	if got := decisionOf(t, p.eng, reviewContent); got != sdk.NeedsHumanReview {
		t.Fatalf("decision %s under version 2, want needs_human_review", got)
	}
	v3, err := p.admin.RollbackPolicy(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if v3.Version != 3 || v3.Digest != v1.Digest || v3.Comment != "rollback to version 1" {
		t.Fatalf("rollback answered %+v", v3)
	}
	if got := decisionOf(t, p.eng, reviewContent); got != sdk.Deny {
		t.Fatalf("decision %s after rollback to version 1, want deny", got)
	}
	hist, err := p.reviewer.PolicyHistory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 3 || hist[0].Version != 3 || hist[2].Version != 1 {
		t.Fatalf("history = %+v", hist)
	}
	_, err = p.admin.RollbackPolicy(ctx, 42)
	wantAPIError(t, err, http.StatusNotFound, "")
}

// TestPolicySurvivesRestart: a new server on the same data dir scans under
// the stored revision, not the configured policy.
func TestPolicySurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	p := newPolicyServer(t, embeddedBackend(t, dir), nil, nil)
	if _, err := p.admin.PutPolicy(context.Background(), denySleep); err != nil {
		t.Fatal(err)
	}
	p2 := newPolicyServer(t, embeddedBackend(t, dir), nil, nil)
	if got := decisionOf(t, p2.eng, reviewContent); got != sdk.Deny {
		t.Fatalf("decision %s after restart, want deny (the stored revision)", got)
	}
	if a := p2.store.Active(); a.Version != 1 {
		t.Fatalf("active after restart = %+v", a)
	}
	// A record edited by hand is refused: the server keeps its policy
	// and reports why.
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	forged := strings.Replace(string(data), `decision: deny`, `decision: allow`, 1)
	forged = strings.Replace(forged, `"version":1`, `"version":2`, 1)
	if err := os.WriteFile(filepath.Join(dir, "00000002.json"), []byte(forged), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := p2.store.Reconcile(context.Background()); err == nil {
		t.Fatal("a forged record was accepted")
	}
	if got := decisionOf(t, p2.eng, reviewContent); got != sdk.Deny {
		t.Fatalf("a forged record changed the policy: decision %s", got)
	}
}

// redisClient returns a client on the local Redis, skipping when there is
// none outside CI.
func redisClient(t *testing.T) *redis.Client {
	t.Helper()
	conn, err := net.DialTimeout("tcp", "127.0.0.1:6379", time.Second)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("redis at 127.0.0.1:6379 is required under CI=true: %v", err)
		}
		t.Skipf("no redis at 127.0.0.1:6379: %v", err)
	}
	conn.Close()
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	t.Cleanup(func() { c.Close() })
	return c
}

// TestPolicyTwoServersOneRedis: a PUT on one server reaches the other
// within 2 s, and a rollback does too.
func TestPolicyTwoServersOneRedis(t *testing.T) {
	c := redisClient(t)
	ctx := context.Background()
	prefix := fmt.Sprintf("toolwarden-test-%d:policy:", time.Now().UnixNano())
	t.Cleanup(func() {
		keys, _ := c.Keys(ctx, prefix+"*").Result()
		if len(keys) > 0 {
			c.Del(ctx, keys...)
		}
	})
	backend := func() policystore.Backend {
		b, err := policystore.OpenRedis(ctx, c, prefix, []byte("shared master key"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a := newPolicyServer(t, backend(), nil, nil)
	b := newPolicyServer(t, backend(), nil, nil)
	waitDecision := func(eng *engine.Engine, want sdk.Decision) {
		t.Helper()
		deadline := time.Now().Add(2 * time.Second)
		for decisionOf(t, eng, reviewContent) != want {
			if time.Now().After(deadline) {
				t.Fatalf("the other server's decision is not %s within 2s", want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if _, err := a.admin.PutPolicy(ctx, denySleep); err != nil {
		t.Fatal(err)
	}
	waitDecision(b.eng, sdk.Deny)
	if got, err := b.reviewer.Policy(ctx); err != nil || got.Version != 1 {
		t.Fatalf("server b GET /v1/policy = %+v, %v", got, err)
	}
	if _, err := b.admin.PutPolicy(ctx, reviewSleep); err != nil {
		t.Fatal(err)
	}
	waitDecision(a.eng, sdk.NeedsHumanReview)
	if _, err := a.admin.RollbackPolicy(ctx, 1); err != nil {
		t.Fatal(err)
	}
	waitDecision(b.eng, sdk.Deny)

	// A record written by someone without the master key is refused.
	forged := fmt.Sprintf(`{"rev":{"version":9,"digest":%q,"yaml":%q}}`, policystore.Digest([]byte(reviewSleep)), reviewSleep)
	c.Set(ctx, prefix+"rev:9", forged, 0)
	c.Set(ctx, prefix+"active", 9, 0)
	if err := b.store.Reconcile(ctx); err == nil {
		t.Fatal("a record without a valid MAC was applied")
	}
	if b.store.Status() == nil {
		t.Fatal("Status does not report the refused revision")
	}
	if got := decisionOf(t, b.eng, reviewContent); got != sdk.Deny {
		t.Fatalf("a forged record changed the policy: decision %s", got)
	}
}

// TestPolicyDryRunReplaysTheScanLog: scans made through the API are
// recorded by the scan log, and a dry run replays them.
func TestPolicyDryRunReplaysTheScanLog(t *testing.T) {
	l, err := scanlog.OpenSQLite(t.TempDir(), scanlog.DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	rec := scanlog.NewRecorder(l, scanlog.DefaultConfig(), 0, nil)
	defer rec.Close()
	p := newPolicyServerCfg(t, embeddedBackend(t, t.TempDir()), nil, server.Config{ScanLog: rec})
	ctx := context.Background()
	var reviewID string
	for _, cmd := range []string{reviewContent, "ls -la", "echo hi"} {
		rep, err := p.agent.Scan(ctx, client.ToolRequest{Language: "bash", Command: cmd})
		if err != nil {
			t.Fatal(err)
		}
		if cmd == reviewContent {
			reviewID = rep.ScanID
		}
	}
	fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := rec.Flush(fctx); err != nil {
		t.Fatal(err)
	}
	res, err := p.admin.DryRunPolicy(ctx, denySleep, 10)
	if err != nil {
		t.Fatal(err)
	}
	if res.Replayed != 3 || len(res.Changed) != 1 || res.Changed[0].ScanID != reviewID ||
		res.Changed[0].Before != sdk.NeedsHumanReview || res.Changed[0].After != sdk.Deny {
		t.Fatalf("dry run over the scan log = %+v, want 3 replayed and %s changed review → deny", res, reviewID)
	}
}

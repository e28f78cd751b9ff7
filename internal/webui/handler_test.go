package webui_test

import (
	"bufio"
	"context"
	"io/fs"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/internal/webui"
)

func TestRootRedirectsToThePanelNamingTheProduct(t *testing.T) {
	f := newFixture(t, policies.Default(), false)
	c := f.client()
	resp, _ := f.call(c, "GET", "/", "", "", nil)
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/ui/" {
		t.Fatalf("GET /: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, out := f.call(c, "GET", "/ui/", "", "", nil)
	html, _ := out["raw"].(string)
	if resp.StatusCode != 200 || !strings.Contains(html, "<title>toolwarden") || !strings.Contains(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /ui/: %d %q", resp.StatusCode, html)
	}
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "connect-src 'self'") {
		t.Fatalf("CSP %q does not keep the panel to its own origin", csp)
	}
	for _, p := range []string{"/ui/app.js", "/ui/app.css"} {
		if resp, _ := f.call(c, "GET", p, "", "", nil); resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d", p, resp.StatusCode)
		}
	}
}

// Nothing in the panel names another origin: no CDN, font or image host.
// The one URL allowed is the SVG namespace, an identifier that is never
// fetched.
func TestAssetsLoadNothingFromOutside(t *testing.T) {
	fsys := webui.Assets()
	n := 0
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		n++
		s := strings.ReplaceAll(string(b), "http://www.w3.org/2000/svg", "")
		for _, bad := range []string{"http://", "https://", "//cdn", "@import", "url("} {
			if i := strings.Index(s, bad); i >= 0 {
				t.Errorf("%s loads from outside: %q", path, s[max(0, i-40):min(len(s), i+60)])
			}
		}
		return nil
	})
	if err != nil || n < 3 {
		t.Fatalf("walked %d files: %v", n, err)
	}
}

func TestSignInSetsAStrictHttpOnlyExpiringCookie(t *testing.T) {
	f := newFixture(t, policies.Default(), false)
	c := f.client()
	resp, out := f.call(c, "POST", "/ui/session", "", "", map[string]any{"key": "tw_000000000000_nope"})
	if resp.StatusCode != 401 || len(resp.Cookies()) != 0 {
		t.Fatalf("bad key: %d %v cookies %v", resp.StatusCode, out, resp.Cookies())
	}
	if e, _ := out["error"].(map[string]any); e["field"] != "key" {
		t.Fatalf("bad key error names no field: %v", out)
	}
	resp, out = f.call(c, "POST", "/ui/session", "", "", map[string]any{"key": f.reviewer})
	if resp.StatusCode != 200 || out["role"] != "reviewer" || out["csrf_token"] == "" {
		t.Fatalf("sign in: %d %v", resp.StatusCode, out)
	}
	var ck *http.Cookie
	for _, x := range resp.Cookies() {
		if x.Name == webui.CookieName {
			ck = x
		}
	}
	if ck == nil {
		t.Fatal("no session cookie")
	}
	if !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.MaxAge <= 0 || ck.Expires.IsZero() || ck.Path != "/" {
		t.Fatalf("cookie attributes: %+v", ck)
	}
	if strings.Contains(ck.Value, f.reviewer) || strings.Contains(f.reviewer, ck.Value) {
		t.Fatal("the cookie carries the API key")
	}
	if d := time.Until(ck.Expires); d > webui.DefaultTTL+time.Minute || d < webui.DefaultTTL-time.Minute {
		t.Fatalf("cookie expires in %v, want about %v", d, webui.DefaultTTL)
	}
	// The session answers who is signed in, with the CSRF token.
	resp, who := f.call(c, "GET", "/ui/session", "", "", nil)
	if resp.StatusCode != 200 || who["role"] != "reviewer" || who["csrf_token"] != out["csrf_token"] || who["name"] != "reviewer" {
		t.Fatalf("GET /ui/session: %d %v", resp.StatusCode, who)
	}
}

func TestDataRoutesRefuseWithoutSessionOrKey(t *testing.T) {
	f := newFixture(t, policies.Default(), false)
	c := f.client()
	routes := [][2]string{{"GET", "/v1/executions"}, {"GET", "/v1/executions/events"}, {"GET", "/v1/keys"},
		{"POST", "/v1/scan"}, {"POST", "/v1/executions"}, {"GET", "/ui/session"}}
	for _, r := range routes {
		if resp, out := f.call(c, r[0], r[1], "", "", map[string]any{"command": "ls"}); resp.StatusCode != 401 {
			t.Errorf("%s %s without credentials: %d %v", r[0], r[1], resp.StatusCode, out)
		}
	}
	// A made-up cookie is no session.
	req, _ := http.NewRequest("GET", f.url+"/v1/executions", nil)
	req.AddCookie(&http.Cookie{Name: webui.CookieName, Value: strings.Repeat("ab", 32)})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("forged cookie: %d", resp.StatusCode)
	}
}

func TestSessionChangesNeedTheCSRFToken(t *testing.T) {
	f := newFixture(t, policies.Default(), false)
	c := f.client()
	csrf := f.signIn(c, f.admin)
	if resp, out := f.call(c, "GET", "/v1/executions", "", "", nil); resp.StatusCode != 200 {
		t.Fatalf("GET with session: %d %v", resp.StatusCode, out)
	}
	body := map[string]any{"command": "ls"}
	if resp, out := f.call(c, "POST", "/v1/scan", "", "", body); resp.StatusCode != 403 || errCode(out) != "csrf" {
		t.Fatalf("POST without CSRF: %d %v", resp.StatusCode, out)
	}
	if resp, out := f.call(c, "POST", "/v1/scan", "", strings.Repeat("0", len(csrf)), body); resp.StatusCode != 403 {
		t.Fatalf("POST with a wrong CSRF token: %d %v", resp.StatusCode, out)
	}
	if resp, out := f.call(c, "POST", "/v1/scan", "", csrf, body); resp.StatusCode != 200 || out["decision"] != "allow" {
		t.Fatalf("POST with CSRF: %d %v", resp.StatusCode, out)
	}
	if resp, _ := f.call(c, "DELETE", "/ui/session", "", "", nil); resp.StatusCode != 403 {
		t.Fatalf("sign out without CSRF: %d", resp.StatusCode)
	}
	if resp, _ := f.call(c, "DELETE", "/ui/session", "", csrf, nil); resp.StatusCode != 204 {
		t.Fatalf("sign out: %d", resp.StatusCode)
	}
	if resp, _ := f.call(c, "GET", "/v1/executions", "", "", nil); resp.StatusCode != 401 {
		t.Fatalf("after sign out: %d", resp.StatusCode)
	}
}

func TestSessionRolesAreTheKeys(t *testing.T) {
	f := newFixture(t, policies.Default(), false)
	rc, ac, gc := f.client(), f.client(), f.client()
	rcsrf, acsrf, gcsrf := f.signIn(rc, f.reviewer), f.signIn(ac, f.admin), f.signIn(gc, f.agent)
	key := map[string]any{"name": "x", "role": "agent"}
	if resp, out := f.call(rc, "POST", "/v1/keys", "", rcsrf, key); resp.StatusCode != 403 || errCode(out) != "forbidden" {
		t.Fatalf("reviewer creating a key: %d %v", resp.StatusCode, out)
	}
	if resp, _ := f.call(rc, "GET", "/v1/keys", "", "", nil); resp.StatusCode != 403 {
		t.Fatalf("reviewer listing keys: %d", resp.StatusCode)
	}
	if resp, out := f.call(ac, "POST", "/v1/keys", "", acsrf, key); resp.StatusCode != 201 {
		t.Fatalf("admin creating a key: %d %v", resp.StatusCode, out)
	}
	// An agent's session sees only that agent's executions.
	f.call(f.client(), "POST", "/v1/executions", f.agent2, "", map[string]any{"command": "echo other", "wait_seconds": 0})
	resp, out := f.call(gc, "POST", "/v1/executions", "", gcsrf, map[string]any{"command": "echo mine", "wait_seconds": 0})
	if resp.StatusCode != 202 {
		t.Fatalf("agent session submit: %d %v", resp.StatusCode, out)
	}
	_, list := f.call(gc, "GET", "/v1/executions", "", "", nil)
	execs, _ := list["executions"].([]any)
	if len(execs) != 1 || execs[0].(map[string]any)["content"] != "echo mine" {
		t.Fatalf("agent session list: %v", list)
	}
	_, all := f.call(rc, "GET", "/v1/executions", "", "", nil)
	if n := len(all["executions"].([]any)); n != 2 {
		t.Fatalf("reviewer sees %d executions, want 2", n)
	}
	if resp, _ := f.call(gc, "POST", "/v1/executions/"+execs[0].(map[string]any)["execution_id"].(string)+"/approve", "", gcsrf, nil); resp.StatusCode != 403 {
		t.Fatalf("agent session approving: %d", resp.StatusCode)
	}
}

func TestRevokedKeyEndsItsSessions(t *testing.T) {
	f := newFixture(t, policies.Default(), false)
	_, created := f.call(f.client(), "POST", "/v1/keys", f.admin, "", map[string]any{"name": "temp", "role": "reviewer"})
	token, _ := created["token"].(string)
	id, _ := created["key"].(map[string]any)["id"].(string)
	c := f.client()
	f.signIn(c, token)
	if resp, _ := f.call(c, "GET", "/v1/executions", "", "", nil); resp.StatusCode != 200 {
		t.Fatalf("before revoke: %d", resp.StatusCode)
	}
	if resp, _ := f.call(f.client(), "DELETE", "/v1/keys/"+id, f.admin, "", nil); resp.StatusCode != 204 {
		t.Fatalf("revoke: %d", resp.StatusCode)
	}
	if resp, out := f.call(c, "GET", "/v1/executions", "", "", nil); resp.StatusCode != 401 || !strings.Contains(out["error"].(map[string]any)["message"].(string), "revoked") {
		t.Fatalf("after revoke: %d %v", resp.StatusCode, out)
	}
	if resp, _ := f.call(c, "GET", "/ui/session", "", "", nil); resp.StatusCode != 401 {
		t.Fatalf("session after revoke: %d", resp.StatusCode)
	}
}

func TestSessionsExpire(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := webui.NewSessions(webui.SessionOptions{TTL: time.Hour, Now: func() time.Time { return now }})
	value, sess := s.Create("k1")
	req, _ := http.NewRequest("POST", "/v1/scan", nil)
	req.AddCookie(&http.Cookie{Name: webui.CookieName, Value: value})
	if _, _, err := s.Resolve(req); err != webui.ErrCSRF {
		t.Fatalf("POST without token: %v", err)
	}
	req.Header.Set(webui.CSRFHeader, sess.CSRF)
	if id, ok, err := s.Resolve(req); id != "k1" || !ok || err != nil {
		t.Fatalf("live session: %q %v %v", id, ok, err)
	}
	now = now.Add(time.Hour)
	if _, ok, err := s.Resolve(req); !ok || err != webui.ErrExpired {
		t.Fatalf("expired session: %v %v", ok, err)
	}
	if _, ok, err := s.Resolve(httptestRequest()); ok || err != nil {
		t.Fatalf("no cookie: %v %v", ok, err)
	}
}

func TestSessionsAreBounded(t *testing.T) {
	s := webui.NewSessions(webui.SessionOptions{MaxSessions: 3})
	first, _ := s.Create("k")
	for i := 0; i < 3; i++ {
		s.Create("k")
	}
	req := httptestRequest()
	req.AddCookie(&http.Cookie{Name: webui.CookieName, Value: first})
	if _, _, err := s.Resolve(req); err != webui.ErrExpired {
		t.Fatalf("oldest session kept past the bound: %v", err)
	}
}

func httptestRequest() *http.Request {
	r, _ := http.NewRequest("GET", "/v1/executions", nil)
	return r
}

// The events stream tells a session about its own executions as they
// change, and nothing about another agent's.
func TestExecutionEventsStream(t *testing.T) {
	f := newFixture(t, policies.Default(), false)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	open := func(key string) *bufio.Scanner {
		req, _ := http.NewRequestWithContext(ctx, "GET", f.url+"/v1/executions/events", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("events: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		return bufio.NewScanner(resp.Body)
	}
	mine, other := open(f.agent), open(f.agent2)
	next := func(sc *bufio.Scanner) (string, string) {
		ev := ""
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				ev = v
			}
			if v, ok := strings.CutPrefix(line, "data: "); ok {
				return ev, v
			}
		}
		return "", ""
	}
	if ev, _ := next(mine); ev != "ready" {
		t.Fatalf("first event %q", ev)
	}
	if ev, _ := next(other); ev != "ready" {
		t.Fatalf("first event %q", ev)
	}
	_, rec := f.call(f.client(), "POST", "/v1/executions", f.agent, "", map[string]any{"command": "echo live", "wait_seconds": 0})
	id, _ := rec["execution_id"].(string)
	ev, data := next(mine)
	if ev != "execution" || !strings.Contains(data, id) || !strings.Contains(data, `"status":"queued"`) {
		t.Fatalf("event %q %s, want execution %s queued", ev, data, id)
	}
	f.call(f.client(), "POST", "/v1/executions/"+id+"/cancel", f.agent, "", nil)
	if ev, data := next(mine); ev != "execution" || !strings.Contains(data, `"status":"cancelled"`) {
		t.Fatalf("event %q %s, want cancelled", ev, data)
	}
	// The other agent's stream saw nothing of it: its next event is its
	// own execution.
	_, rec2 := f.call(f.client(), "POST", "/v1/executions", f.agent2, "", map[string]any{"command": "echo theirs", "wait_seconds": 0})
	if _, data := next(other); strings.Contains(data, id) || !strings.Contains(data, rec2["execution_id"].(string)) {
		t.Fatalf("other agent's stream: %s", data)
	}
}

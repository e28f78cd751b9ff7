package e2e

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
)

// The real binary serves the web panel: / leads to /ui/, the page names the
// product, and its sign-in gives a session the REST API accepts.
func TestServeWebPanel(t *testing.T) {
	s := startServer(t, serverOpts{NoExecutor: true})
	base := s.api.base
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/ui/" {
		t.Fatalf("GET /: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err = c.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), "toolwarden") {
		t.Fatalf("the panel: %d %q", resp.StatusCode, page)
	}
	if resp, err := c.Get(base + "/v1/executions"); err != nil || resp.StatusCode != 401 {
		t.Fatalf("data route before sign-in: %v %v", resp, err)
	}
	resp, err = c.Post(base+"/ui/session", "application/json", strings.NewReader(`{"key":"`+s.opts.Key+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"role":"admin"`) {
		t.Fatalf("sign in: %d %s", resp.StatusCode, body)
	}
	resp, err = c.Get(base + "/v1/executions")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("data route with the session: %d", resp.StatusCode)
	}
}

package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/internal/server"
)

func errMsg(m map[string]any) (msg, field string) {
	e, _ := m["error"].(map[string]any)
	msg, _ = e["message"].(string)
	field, _ = e["field"].(string)
	return
}

// goTypeNames are words of Go, not of the API, that no answer may show.
var goTypeNames = []string{"float64", "int64", "service.", "map[", "[]string", "ToolRequest", "json:"}

func noGoNames(t *testing.T, what, msg string) {
	t.Helper()
	for _, w := range goTypeNames {
		if strings.Contains(msg, w) {
			t.Errorf("%s: message %q names Go type %q", what, msg, w)
		}
	}
}

func TestBindingErrorsInTheUsersWords(t *testing.T) {
	f := newFixture(t, policies.Default(), server.Config{})
	cases := []struct {
		body, field, want string
	}{
		{`{"command":"ls","timeout_seconds":"ten"}`, "timeout_seconds", "must be a number, got string"},
		{`{"command":5}`, "command", "must be a string"},
		{`{"command":"ls","env":{"A":1}}`, "env", "must be a string"},
		{`{"command":"ls","command_args":"x"}`, "command_args", "must be an array of strings"},
		{`["ls"]`, "", "the request body must be an object"},
	}
	for _, c := range cases {
		code, body := f.do("POST", "/v1/scan", f.agent, c.body)
		msg, field := errMsg(body)
		if code != 400 || field != c.field || !strings.Contains(msg, c.want) {
			t.Errorf("%s: %d field %q %q, want field %q containing %q", c.body, code, field, msg, c.field, c.want)
		}
		noGoNames(t, c.body, msg)
	}
}

func TestWhitespaceCommandNamesTheField(t *testing.T) {
	f := newFixture(t, policies.Default(), server.Config{})
	for _, field := range []string{"command", "code", "script"} {
		code, body := f.do("POST", "/v1/executions", f.agent, map[string]any{field: "  \n\t "})
		msg, got := errMsg(body)
		if code != 400 || got != field || !strings.Contains(msg, "whitespace") {
			t.Errorf("%s of whitespace: %d field %q %q", field, code, got, msg)
		}
	}
}

func TestTooLargeStatesTheLimit(t *testing.T) {
	f := newFixture(t, policies.Default(), server.Config{BodyLimit: "1K"})
	code, body := f.do("POST", "/v1/scan", f.agent, `{"command":"`+strings.Repeat("a", 4096)+`"}`)
	msg, _ := errMsg(body)
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(msg, "1K") {
		t.Fatalf("%d %q, want 413 naming the 1K limit", code, msg)
	}
}

func TestWrongMethodIs405(t *testing.T) {
	f := newFixture(t, policies.Default(), server.Config{})
	for _, c := range []struct{ method, path string }{{"GET", "/v1/scan"}, {"DELETE", "/v1/executions"}, {"POST", "/healthz"}} {
		code, body := f.do(c.method, c.path, f.admin, nil)
		if code != http.StatusMethodNotAllowed || errCode(body) != "method_not_allowed" {
			t.Errorf("%s %s: %d %v, want 405", c.method, c.path, code, body)
		}
	}
}

func TestAuthorizationWithoutBearerSaysSo(t *testing.T) {
	f := newFixture(t, policies.Default(), server.Config{})
	req, _ := http.NewRequest("POST", f.url+"/v1/scan", strings.NewReader(`{"command":"ls"}`))
	req.Header.Set("Authorization", f.agent) // the key alone, no scheme
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sb strings.Builder
	buf := make([]byte, 4096)
	n, _ := resp.Body.Read(buf)
	sb.Write(buf[:n])
	if resp.StatusCode != 401 || !strings.Contains(sb.String(), "Bearer KEY") {
		t.Fatalf("%d %s", resp.StatusCode, sb.String())
	}
}

func TestRateLimitedAnswerHasRetryAfter(t *testing.T) {
	f := newFixture(t, policies.Default(), server.Config{RatePerSecond: 0.5, RateBurst: 1})
	var last *http.Response
	for i := 0; i < 3; i++ {
		req, _ := http.NewRequest("GET", f.url+"/v1/executions", nil)
		req.Header.Set("Authorization", "Bearer "+f.agent)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		last = resp
		if resp.StatusCode == http.StatusTooManyRequests {
			break
		}
	}
	if last.StatusCode != http.StatusTooManyRequests || last.Header.Get("Retry-After") != "2" {
		t.Fatalf("%d Retry-After %q, want 429 with Retry-After 2", last.StatusCode, last.Header.Get("Retry-After"))
	}
}

package engine_test

import (
	"context"
	"testing"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/policies"
)

// TestBackslashUserinfoIsNotAllowed: "https://evil.com\@github.com/x"
// reaches evil.com in Node's fetch and browsers and github.com in curl, so
// no tool may treat it as the allowed github.com — end to end, through the
// analyzers, the network pack and the decision.
func TestBackslashUserinfoIsNotAllowed(t *testing.T) {
	pol, err := policies.Load("testdata/eval_policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, pol, nil)
	cases := []struct{ lang, content string }{
		{"bash", `curl -s 'https://evil.example\@github.com/x'`},
		{"bash", `wget -q 'https://evil.example\@pypi.org/simple/'`},
		{"bash", `git clone 'https://evil.example\@github.com/o/r.git'`},
		{"python", "import requests\nrequests.get('https://evil.example\\\\@github.com/x')"},
		{"python", "import urllib.request\nurllib.request.urlopen('https://evil.example\\\\@pypi.org/x')"},
	}
	for _, c := range cases {
		rep, err := e.Scan(context.Background(), engine.Request{Language: c.lang, Content: c.content})
		if err != nil {
			t.Fatalf("%q: %v", c.content, err)
		}
		if rep.Decision != "deny" {
			t.Errorf("%q: got %s %v, want deny (a non-allowed host)", c.content, rep.Decision, rep.RuleIDs())
		}
	}
	// the same requests without the backslash reach the allowed host
	rep, err := e.Scan(context.Background(), engine.Request{Language: "bash", Content: `curl -s 'https://user@github.com/x'`})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Decision == "deny" {
		t.Errorf("userinfo without backslash: got deny %v", rep.RuleIDs())
	}
}

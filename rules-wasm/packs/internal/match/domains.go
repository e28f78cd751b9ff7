package match

import (
	"net/netip"
	"strings"
)

// DomainMatcher is a policy's allowed_domains list. A host is allowed when it
// equals an entry or is a subdomain of one; "github.com.evil.io" is not
// github.com. IP literals and hosts with non-ASCII characters (homoglyphs
// such as a Cyrillic "і" in "pypі.org") are never allowed.
type DomainMatcher struct {
	exact map[string]bool
}

// NewDomainMatcher compiles an allowlist. Entries are lower-cased; a leading
// "*." or "." is dropped, so "*.github.com" and "github.com" both allow
// github.com and its subdomains.
func NewDomainMatcher(allowed []string) *DomainMatcher {
	d := &DomainMatcher{exact: make(map[string]bool, len(allowed))}
	for _, a := range allowed {
		a = strings.ToLower(strings.TrimSpace(a))
		a = strings.TrimPrefix(a, "*.")
		a = strings.TrimPrefix(a, ".")
		a = strings.TrimSuffix(a, ".")
		if a != "" {
			d.exact[a] = true
		}
	}
	return d
}

// Allowed reports whether host may be reached. It fails closed: an empty,
// IP-literal or non-ASCII host is not allowed.
func (d *DomainMatcher) Allowed(host string) bool {
	h := NormalizeHost(host)
	if d == nil || h == "" || IsIPLiteral(h) || !isASCIIHost(h) {
		return false
	}
	for {
		if d.exact[h] {
			return true
		}
		i := strings.IndexByte(h, '.')
		if i < 0 {
			return false
		}
		h = h[i+1:]
	}
}

// NormalizeHost lower-cases host and strips brackets, a port, userinfo and a
// trailing dot, so "User@GitHub.com.:443" compares as "github.com".
func NormalizeHost(host string) string {
	h := strings.ToLower(strings.TrimSpace(host))
	if i := strings.LastIndexByte(h, '@'); i >= 0 {
		h = h[i+1:]
	}
	if strings.HasPrefix(h, "[") {
		if j := strings.IndexByte(h, ']'); j > 0 {
			return h[1:j]
		}
	}
	if strings.Count(h, ":") == 1 {
		h = h[:strings.IndexByte(h, ':')]
	}
	return strings.TrimSuffix(h, ".")
}

// IsIPLiteral reports whether h is an IP address in any notation a resolver
// accepts: dotted quad, IPv6, a bare 32-bit integer ("2130706433"), or hex
// and octal parts ("0x7f.0.0.1").
func IsIPLiteral(h string) bool {
	h = strings.Trim(h, "[]")
	if h == "" {
		return false
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return true
	}
	// inet_aton forms: every dot-separated part numeric (decimal, hex, octal).
	parts := strings.Split(h, ".")
	if len(parts) > 4 {
		return false
	}
	for _, p := range parts {
		if p == "" || !isNumericPart(p) {
			return false
		}
	}
	return true
}

func isNumericPart(p string) bool {
	if strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X") {
		if len(p) == 2 {
			return false
		}
		for _, c := range p[2:] {
			if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
				return false
			}
		}
		return true
	}
	for _, c := range p {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// IsLoopback reports whether h names the local machine ("localhost",
// 127.0.0.0/8, ::1). Loopback traffic does not leave the host.
func IsLoopback(h string) bool {
	h = NormalizeHost(h)
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.IsLoopback()
}

func isASCIIHost(h string) bool {
	for i := 0; i < len(h); i++ {
		c := h[i]
		if c >= 0x80 || c <= ' ' {
			return false
		}
	}
	return true
}

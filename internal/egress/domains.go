package egress

import (
	"net/netip"
	"strings"
)

// domains is a policy's allowed_domains list with the scan's semantics
// (rules-wasm/packs/network): a host is allowed when it equals an entry or
// is a subdomain of one; "github.com.evil.io" is not github.com. IP literals
// and non-ASCII hosts never match.
type domains map[string]struct{}

func newDomains(list []string) domains {
	d := domains{}
	for _, a := range list {
		a = strings.ToLower(strings.TrimSpace(a))
		a = strings.TrimPrefix(a, "*.")
		a = strings.TrimPrefix(a, ".")
		a = strings.TrimSuffix(a, ".")
		if a != "" {
			d[a] = struct{}{}
		}
	}
	return d
}

// allowed reports whether the normalized host h may be reached by name.
func (d domains) allowed(h string) bool {
	if h == "" || isIPLiteral(h) || !isASCIIHost(h) {
		return false
	}
	for {
		if _, ok := d[h]; ok {
			return true
		}
		i := strings.IndexByte(h, '.')
		if i < 0 {
			return false
		}
		h = h[i+1:]
	}
}

// normalizeHost lower-cases a host and strips brackets and one trailing
// dot, so "GitHub.com." compares as "github.com".
func normalizeHost(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	h = strings.TrimPrefix(h, "[")
	h = strings.TrimSuffix(h, "]")
	return strings.TrimSuffix(h, ".")
}

// isIPLiteral reports whether h is an IP address in any notation a
// resolver accepts: dotted quad, IPv6 (with or without a zone), a bare
// 32-bit integer ("2130706433"), or hex and octal parts ("0x7f.0.0.1").
func isIPLiteral(h string) bool {
	h = strings.Trim(h, "[]")
	if h == "" {
		return false
	}
	if strings.IndexByte(h, ':') >= 0 {
		return true // no host name contains a colon; treat it as an address
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return true
	}
	for n := 1; ; n++ {
		p, rest, more := strings.Cut(h, ".")
		if n > 4 || p == "" || !isNumericPart(p) {
			return false
		}
		if !more {
			return true
		}
		h = rest
	}
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

// isASCIIHost refuses non-ASCII (homoglyph) names and control characters.
func isASCIIHost(h string) bool {
	for i := 0; i < len(h); i++ {
		c := h[i]
		if c >= 0x80 || c <= ' ' || c == '%' || c == '/' || c == '\\' || c == '@' {
			return false
		}
	}
	return true
}

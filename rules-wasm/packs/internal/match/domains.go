package match

import (
	"net/netip"
	"strings"

	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/lookup"
)

// DomainMatcher is a policy's allowed_domains list. A host is allowed when it
// equals an entry or is a subdomain of one; "github.com.evil.io" is not
// github.com. IP literals and hosts with non-ASCII characters (homoglyphs
// such as a Cyrillic "і" in "pypі.org") are never allowed.
type DomainMatcher struct {
	exact lookup.Table
}

// NewDomainMatcher compiles an allowlist. Entries are lower-cased; a leading
// "*." or "." is dropped, so "*.github.com" and "github.com" both allow
// github.com and its subdomains.
func NewDomainMatcher(allowed []string) *DomainMatcher {
	d := &DomainMatcher{}
	for _, a := range allowed {
		a = strings.ToLower(strings.TrimSpace(a))
		a = strings.TrimPrefix(a, "*.")
		a = strings.TrimPrefix(a, ".")
		a = strings.TrimSuffix(a, ".")
		if a != "" {
			d.exact.Add(a, 1)
		}
	}
	return d
}

// Allowed reports whether host may be reached. It fails closed: an empty,
// IP-literal or non-ASCII host is not allowed. The allowlist is consulted
// first: most hosts are not on it, and then the IP and character checks
// need not run.
func (d *DomainMatcher) Allowed(host string) bool {
	h := NormalizeHost(host)
	if d == nil || h == "" || !d.listed(h) {
		return false
	}
	return !IsIPLiteral(h) && isASCIIHost(h)
}

// listed reports whether h or a parent domain of it is on the allowlist.
func (d *DomainMatcher) listed(h string) bool {
	for {
		if d.exact.Get(h) != 0 {
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
	// Without a colon only IPv4 could parse, and every dotted quad passes
	// the part check below: ParseAddr (whose error allocates) is needed for
	// IPv6 alone.
	if strings.IndexByte(h, ':') >= 0 {
		if _, err := netip.ParseAddr(h); err == nil {
			return true
		}
	}
	// inet_aton forms: at most four dot-separated parts, every one numeric
	// (decimal, hex, octal).
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

// metadataHosts are cloud instance-metadata endpoints: they hand out the
// machine's credentials, so they are denied even when listed.
var metadataHosts = map[string]bool{"169.254.169.254": true, "fd00:ec2::254": true, "169.254.170.2": true,
	"100.100.100.200": true, "metadata.google.internal": true, "metadata.goog": true, "metadata": true}

// IsMetadataHost reports a cloud metadata endpoint.
func IsMetadataHost(h string) bool {
	h = strings.Trim(NormalizeHost(h), "[]")
	return metadataHosts[h]
}

// IsLocalHost reports loopback, private (RFC 1918, unique-local IPv6),
// link-local and unspecified addresses and localhost names.
func IsLocalHost(h string) bool {
	if IsLoopback(h) {
		return true
	}
	a, err := netip.ParseAddr(strings.Trim(NormalizeHost(h), "[]"))
	return err == nil && (a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsUnspecified())
}

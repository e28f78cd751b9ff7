package sdk

import (
	"net/netip"
	"strings"
)

// Host names and addresses are compared in one way by the scan (the guest
// network rules) and by the egress proxy, so a host the scan allows is the
// host the proxy lets through and the other way round. The functions below
// are that one way.

// NormalizeHost is the spelling of a URL authority's host that allowlists
// compare: lower case, surrounding space, userinfo ("user@"), brackets, a
// port and one trailing dot removed, so "User@GitHub.com.:443" is
// "github.com" and "[::1]:8080" is "::1".
func NormalizeHost(host string) string {
	h := strings.ToLower(strings.TrimSpace(host))
	h = h[UserinfoEnd(h):]
	if strings.HasPrefix(h, "[") {
		if j := strings.IndexByte(h, ']'); j > 0 {
			return h[1:j]
		}
		h = h[1:]
	}
	if strings.Count(h, ":") == 1 {
		h = h[:strings.IndexByte(h, ':')]
	}
	return strings.TrimSuffix(h, ".")
}

// UserinfoEnd returns where the host starts in a URL authority
// ("user:pass@host:port"): just after the last '@', or 0 when there is no
// userinfo. It also returns 0 when the userinfo holds a backslash, so the
// whole authority stays the host and matches no allowlist entry: WHATWG URL
// parsers (browsers, Node's URL, undici's fetch) read '\' as '/' in special
// schemes, so "https://evil.com\@github.com/x" reaches evil.com there while
// curl and Python's urllib reach github.com. With two readings of one
// authority, neither may be the one allowed.
func UserinfoEnd(authority string) int {
	i := strings.LastIndexByte(authority, '@')
	if i < 0 || strings.IndexByte(authority[:i], '\\') >= 0 {
		return 0
	}
	return i + 1
}

// IsIPLiteral reports whether h is an IP address in any notation a resolver
// accepts: dotted quad, IPv6 (a colon is enough: no host name has one, so
// anything with a colon is judged as an address), a bare 32-bit integer
// ("2130706433"), or hex and octal parts ("0x7f.1", "0177.0.0.1"). IP
// literals are never allowed hosts.
func IsIPLiteral(h string) bool {
	h = strings.Trim(h, "[]")
	if h == "" {
		return false
	}
	if strings.IndexByte(h, ':') >= 0 {
		return true
	}
	for n := 1; ; n++ {
		p, rest, more := strings.Cut(h, ".")
		if n > 4 || p == "" || !isNumericHostPart(p) {
			return false
		}
		if !more {
			return true
		}
		h = rest
	}
}

func isNumericHostPart(p string) bool {
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

// ParseIPLiteral returns the address an IP literal in any resolver
// notation names (inet_aton forms: "2130706433", "0x7f.1", "0177.0.0.1",
// and IPv6 including IPv4-mapped "::ffff:169.254.169.254", which becomes
// the IPv4 address). ok is false for anything else.
func ParseIPLiteral(h string) (netip.Addr, bool) {
	h = strings.Trim(h, "[]")
	if strings.IndexByte(h, ':') >= 0 {
		a, err := netip.ParseAddr(h)
		if err != nil {
			return netip.Addr{}, false
		}
		return a.Unmap(), true
	}
	parts := strings.Split(h, ".")
	if len(parts) == 0 || len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		v, ok := parseHostNumber(p)
		if !ok {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	// inet_aton: the last part fills the remaining bytes
	var n uint64
	last := len(vals) - 1
	for i := 0; i < last; i++ {
		if vals[i] > 0xff {
			return netip.Addr{}, false
		}
		n |= vals[i] << (8 * (3 - i))
	}
	if vals[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, false
	}
	n |= vals[last]
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

func parseHostNumber(p string) (uint64, bool) {
	if p == "" || !isNumericHostPart(p) {
		return 0, false
	}
	base, digits := uint64(10), p
	switch {
	case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
		base, digits = 16, p[2:]
	case len(p) > 1 && p[0] == '0':
		base, digits = 8, p[1:]
	}
	var v uint64
	for _, c := range strings.ToLower(digits) {
		d := uint64(strings.IndexRune("0123456789abcdef", c))
		if d >= base {
			return 0, false
		}
		v = v*base + d
		if v > 0xffffffff {
			return 0, false
		}
	}
	return v, true
}

// CleanHostName reports whether a normalized host name has only the
// characters a DNS name can: ASCII (no homoglyphs such as a Cyrillic "і"
// in "pypі.org"), no space or control character, and none of % / \ @
// (which would make a proxy or resolver read another host).
func CleanHostName(h string) bool {
	for i := 0; i < len(h); i++ {
		c := h[i]
		if c >= 0x80 || c <= ' ' || c == '%' || c == '/' || c == '\\' || c == '@' {
			return false
		}
	}
	return true
}

// DomainList is a policy's allowed_domains compiled for lookups: a host is
// allowed when it equals an entry or is a subdomain of one
// ("api.github.com" under "github.com"; "github.com.evil.io" is not).
type DomainList map[string]struct{}

// NewDomainList compiles allowed_domains entries: lower case, a leading
// "*." or "." and a trailing dot dropped, so "*.github.com" and
// "github.com" both allow github.com and its subdomains.
func NewDomainList(allowed []string) DomainList {
	d := DomainList{}
	for _, a := range allowed {
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

// Listed reports whether the normalized host h or a parent domain of it is
// an entry, without the IP and character checks (callers that already
// know h is a clean name).
func (d DomainList) Listed(h string) bool {
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

// AllowsNormalized reports whether the already normalized host h may be
// reached. It fails closed: empty, IP-literal and unclean names never are.
func (d DomainList) AllowsNormalized(h string) bool {
	if h == "" || len(d) == 0 || !d.Listed(h) {
		return false
	}
	return !IsIPLiteral(h) && CleanHostName(h)
}

// Allows reports whether host, as written in a URL authority, may be
// reached: it is normalized first (NormalizeHost).
func (d DomainList) Allows(host string) bool {
	return d.AllowsNormalized(NormalizeHost(host))
}

// metadataHosts are cloud instance-metadata endpoints: they hand out the
// machine's credentials, so they are denied even when listed.
var metadataHosts = map[string]bool{"169.254.169.254": true, "fd00:ec2::254": true, "169.254.170.2": true,
	"100.100.100.200": true, "metadata.google.internal": true, "metadata.goog": true, "metadata": true}

// IsMetadataHost reports a cloud metadata endpoint, in any IP notation
// ("0xa9fea9fe", "::ffff:169.254.169.254").
func IsMetadataHost(h string) bool {
	h = NormalizeHost(h)
	if metadataHosts[h] {
		return true
	}
	if a, ok := ParseIPLiteral(h); ok {
		return metadataHosts[a.String()]
	}
	return false
}

// IsLoopback reports whether h names the local machine ("localhost",
// "*.localhost", 127.0.0.0/8 and ::1 in any notation).
func IsLoopback(h string) bool {
	h = NormalizeHost(h)
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	a, ok := ParseIPLiteral(h)
	return ok && a.IsLoopback()
}

// IsLocalHost reports loopback, private (RFC 1918, unique-local IPv6),
// link-local and unspecified addresses and localhost names.
func IsLocalHost(h string) bool {
	if IsLoopback(h) {
		return true
	}
	a, ok := ParseIPLiteral(NormalizeHost(h))
	return ok && (a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsUnspecified())
}

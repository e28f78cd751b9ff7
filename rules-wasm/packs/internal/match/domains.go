package match

import (
	"strings"

	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/lookup"
	"github.com/toolwarden/toolwarden/sdk"
)

// DomainMatcher is a policy's allowed_domains list with sdk.DomainList's
// semantics (the egress proxy uses the same): a host is allowed when it
// equals an entry or is a subdomain of one; "github.com.evil.io" is not
// github.com. IP literals and hosts with non-ASCII characters (homoglyphs
// such as a Cyrillic "і" in "pypі.org") are never allowed. It keeps the
// entries in a lookup.Table, the packs' allocation-free map.
type DomainMatcher struct {
	exact lookup.Table
}

// NewDomainMatcher compiles an allowlist the way sdk.NewDomainList does.
func NewDomainMatcher(allowed []string) *DomainMatcher {
	d := &DomainMatcher{}
	for a := range sdk.NewDomainList(allowed) {
		d.exact.Add(a, 1)
	}
	return d
}

// Allowed reports whether host may be reached. It fails closed: an empty,
// IP-literal or unclean host is not allowed. The allowlist is consulted
// first: most hosts are not on it, and then the IP and character checks
// need not run.
func (d *DomainMatcher) Allowed(host string) bool {
	h := sdk.NormalizeHost(host)
	if d == nil || h == "" || !d.listed(h) {
		return false
	}
	return !sdk.IsIPLiteral(h) && sdk.CleanHostName(h)
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

// NormalizeHost is sdk.NormalizeHost.
func NormalizeHost(host string) string { return sdk.NormalizeHost(host) }

// IsIPLiteral is sdk.IsIPLiteral.
func IsIPLiteral(h string) bool { return sdk.IsIPLiteral(h) }

// IsLoopback is sdk.IsLoopback.
func IsLoopback(h string) bool { return sdk.IsLoopback(h) }

// IsMetadataHost is sdk.IsMetadataHost.
func IsMetadataHost(h string) bool { return sdk.IsMetadataHost(h) }

// IsLocalHost is sdk.IsLocalHost.
func IsLocalHost(h string) bool { return sdk.IsLocalHost(h) }

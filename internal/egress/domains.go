package egress

import (
	"strings"

	"github.com/toolwarden/toolwarden/sdk"
)

// domains is a policy's allowed_domains list with the scan's semantics
// (sdk.DomainList, which the guest network rules use too): a host is
// allowed when it equals an entry or is a subdomain of one;
// "github.com.evil.io" is not github.com. IP literals and non-ASCII hosts
// never match.
type domains struct{ list sdk.DomainList }

func newDomains(list []string) domains { return domains{sdk.NewDomainList(list)} }

// allowed reports whether the normalized host h may be reached by name.
func (d domains) allowed(h string) bool { return d.list.AllowsNormalized(h) }

// isIPLiteral is sdk.IsIPLiteral: any resolver notation, and anything with
// a colon.
func isIPLiteral(h string) bool { return sdk.IsIPLiteral(h) }

// normalizeHost lower-cases a host and strips brackets and one trailing
// dot, so "GitHub.com." compares as "github.com". Unlike sdk.NormalizeHost
// (for URL authorities) it keeps userinfo and ports: the proxy's input is
// a bare host from CONNECT or SNI, where "x@github.com" is not github.com
// but a name allowed() refuses.
func normalizeHost(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	h = strings.TrimPrefix(h, "[")
	h = strings.TrimSuffix(h, "]")
	return strings.TrimSuffix(h, ".")
}

package egress

import "net/netip"

// Why an address is refused. They are the reasons the connection log and
// the metrics show.
const (
	reasonMetadata    = "metadata address"
	reasonLoopback    = "loopback address"
	reasonPrivate     = "private address"
	reasonLinkLocal   = "link-local address"
	reasonCGNAT       = "shared (CGNAT) address"
	reasonUnspecified = "unspecified address"
	reasonMulticast   = "multicast address"
	reasonReserved    = "reserved or broadcast address"
)

// metadata are the cloud instance-metadata endpoints: never reachable,
// whatever the configuration.
var metadata = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"),
	netip.MustParseAddr("169.254.170.2"),   // ECS task metadata
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
	netip.MustParseAddr("fd00:ec2::254"),
}

// blocked are the ranges a run never reaches, with their reasons. Loopback
// is checked separately (it alone can be opened by configuration).
var blocked = []struct {
	p      netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), reasonUnspecified},
	{netip.MustParsePrefix("10.0.0.0/8"), reasonPrivate},
	{netip.MustParsePrefix("100.64.0.0/10"), reasonCGNAT},
	{netip.MustParsePrefix("169.254.0.0/16"), reasonLinkLocal},
	{netip.MustParsePrefix("172.16.0.0/12"), reasonPrivate},
	{netip.MustParsePrefix("192.0.0.0/24"), reasonReserved},
	{netip.MustParsePrefix("192.168.0.0/16"), reasonPrivate},
	{netip.MustParsePrefix("198.18.0.0/15"), reasonReserved},
	{netip.MustParsePrefix("224.0.0.0/4"), reasonMulticast},
	{netip.MustParsePrefix("240.0.0.0/4"), reasonReserved}, // includes 255.255.255.255
	{netip.MustParsePrefix("::/128"), reasonUnspecified},
	{netip.MustParsePrefix("fc00::/7"), reasonPrivate},
	{netip.MustParsePrefix("fe80::/10"), reasonLinkLocal},
	{netip.MustParsePrefix("fec0::/10"), reasonPrivate}, // deprecated site-local
	{netip.MustParsePrefix("ff00::/8"), reasonMulticast},
	{netip.MustParsePrefix("100::/64"), reasonReserved}, // discard
}

// embedded are IPv6 ranges that carry an IPv4 address a router may
// translate to: the embedded address is checked too.
var embedded = []struct {
	p      netip.Prefix
	offset int // byte offset of the IPv4 address in the IPv6 address
}{
	{netip.MustParsePrefix("64:ff9b::/96"), 12},   // NAT64
	{netip.MustParsePrefix("64:ff9b:1::/48"), 12}, // local NAT64
	{netip.MustParsePrefix("2002::/16"), 2},       // 6to4
	{netip.MustParsePrefix("::/96"), 12},          // IPv4-compatible (deprecated)
}

// refuseAddr returns why a run may not reach a, or "" when it may.
// allowLoopback opens 127.0.0.0/8 and ::1 only; metadata stays refused.
func refuseAddr(a netip.Addr, allowLoopback bool) string {
	if !a.IsValid() {
		return reasonUnspecified
	}
	a = a.WithZone("").Unmap()
	for _, m := range metadata {
		if a == m {
			return reasonMetadata
		}
	}
	if a.IsLoopback() {
		if allowLoopback {
			return ""
		}
		return reasonLoopback
	}
	for _, b := range blocked {
		if b.p.Contains(a) {
			return b.reason
		}
	}
	if a.Is6() {
		for _, e := range embedded {
			if e.p.Contains(a) {
				b := a.As16()
				v4 := netip.AddrFrom4([4]byte(b[e.offset : e.offset+4]))
				// A translated loopback address is not the host's loopback
				// as this proxy dials it: refuse it whatever the config.
				if r := refuseAddr(v4, false); r != "" {
					return r + " (embedded in " + e.p.String() + ")"
				}
			}
		}
	}
	return ""
}

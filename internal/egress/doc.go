// Package egress is the forward proxy through which a run that may use the
// network reaches the outside. One Proxy serves one run: it listens inside
// the run's own network namespace (the run has no other route), and it
// enforces at connect time what the scan judged: the policy's
// allowed_domains, a port allowlist, no IP literals, TLS SNI equal to the
// CONNECT host, Host header equal to the request URI host, and a check of
// every address the proxy itself resolved (no loopback, private, link-local,
// CGNAT, multicast or metadata address, whatever the name). The checked
// address is the one dialled, so a second, different DNS answer (rebinding)
// is never used.
//
// Anything the proxy cannot verify is refused: an error never opens a direct
// path. Each connection is logged (bounded) and counted in metrics.
package egress

// Package e2e holds the end-to-end and reliability tests of toolwarden. They
// build the real binary once (TestMain) and drive real processes — `serve`
// with the embedded store or Redis, remote `executor` daemons, a private
// redis-server — over the public REST API, so they check what an agent
// actually sees: bounded waits, cancellation, persisted output, orphaned
// runs after crashes, 503s during a Redis outage, and no lost or duplicated
// work under load. The package has no code of its own; everything is in the
// _test.go files. Suites that need root, Redis or redis-server skip with the
// reason, except with CI=true where a missing prerequisite is a failure.
package e2e

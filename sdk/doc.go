// Package sdk holds the wire types that the toolwarden host and its rule plugins
// share: the facts document the analyzers produce, the findings rules return,
// the SafetyReport the scan emits and the Policy that steers it.
//
// The package has no dependencies beyond the standard library so that it
// compiles for GOOS=wasip1 inside a rule plugin as well as for the host. Every
// type marshals to the JSON that crosses the Wasm ABI (see ABI.md beside this
// file), so a plugin written in another language reads the same field names.
package sdk

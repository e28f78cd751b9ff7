// Package plugins holds example toolwarden rule plugins, each built from
// its source by the package's tests and judged against its own corpus:
//
//   - go-git-guard: Go on the public sdk/rule API (its own module);
//   - wat-miner: WebAssembly text written by hand against ABI v1, built with
//     wabt's wat2wasm.
//
// docs/plugins.md walks through writing, testing, signing and uploading one.
package plugins

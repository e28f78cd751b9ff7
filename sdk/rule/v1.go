//go:build !rule_v2only

package rule

import (
	"fmt"
	"runtime/debug"

	"github.com/toolwarden/toolwarden/sdk"
)

// This file is ABI v1's JSON path. A module built with the rule_v2only tag
// (the built-in packs) leaves it out, and with it the JSON decoder of the
// facts, so the module is smaller and starts sooner; uploaded plugins built
// without the tag keep serving a host of either generation.

// Handle runs the registered scan function on the JSON of an sdk.ScanInput
// and returns the JSON of an sdk.ScanOutput. It is the body of the scan
// export, exported so that packs and the kit itself can be tested natively.
//
// Handle never panics and never returns invalid JSON: a decode error, a
// scan error or a panic inside the scan function all become
// ScanOutput.Error, which the host turns into a fail-closed finding.
// Calls are serialized: the kit decodes every input into one reused
// sdk.Decoder, as a Wasm instance serves one scan at a time anyway.
func Handle(input []byte) []byte {
	return handleInto(nil, input)
}

// handleInto is Handle appending the output to dst, so the scan export can
// reuse the buffer of the previous output. The input must stay unchanged
// until it returns: decoded strings point into it.
func handleInto(dst, input []byte) []byte {
	mu.Lock()
	defer mu.Unlock()
	out := handle(input)
	if out.Findings == nil {
		out.Findings = []sdk.Finding{}
	}
	b, err := sdk.AppendScanOutput(dst, &out)
	if err != nil {
		// A finding's Metadata may hold a value JSON cannot encode; report
		// that instead of returning nothing.
		out = sdk.ScanOutput{Findings: []sdk.Finding{}, Error: fmt.Sprintf("encode scan output: %v", err)}
		b, _ = sdk.AppendScanOutput(dst[:0], &out)
	}
	return b
}

// decoder is reused from scan to scan: inside Wasm an allocation costs
// microseconds, and a warm Decoder allocates nothing. Guarded by mu.
var decoder sdk.Decoder

// handle decodes and scans with mu held.
func handle(input []byte) (out sdk.ScanOutput) {
	defer func() {
		if r := recover(); r != nil {
			// The panic may have left the decoder's memory half-written;
			// start the next scan from a fresh one.
			decoder = sdk.Decoder{}
			out = sdk.ScanOutput{Error: fmt.Sprintf("rule panicked: %v\n%s", r, debug.Stack())}
		}
	}()
	if !registered {
		return sdk.ScanOutput{Error: "scan: no rule pack registered (call rule.Register from init)"}
	}
	// sdk.Decoder, not encoding/json: inside Wasm, reflection made
	// decoding the input cost more than judging it.
	in, err := decoder.Decode(input)
	if err != nil {
		return sdk.ScanOutput{Error: fmt.Sprintf("scan: decode input: %v", err)}
	}
	findings, err := scanFn(in)
	if err != nil {
		return sdk.ScanOutput{Error: fmt.Sprintf("scan: %v", err)}
	}
	return sdk.ScanOutput{Findings: findings}
}

package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/toolwarden/toolwarden/rules-wasm/packs"
	"github.com/toolwarden/toolwarden/sdk"
)

// NativePacks returns the built-in rule packs compiled into the host instead
// of Wasm, combined into one pack exactly as rules-wasm/cmd/core combines
// them for the Wasm build: one decode of the input, every pack's Scan on it,
// every rule declared under "toolwarden-core". They judge exactly what the
// Wasm pack judges, decoding the same input bytes, so benchmarks can state
// what the sandbox costs and tests can check both builds agree. Production
// scans use the Wasm pack: only it runs under a deadline and a memory cap.
func NativePacks() []Pack {
	core := packs.Core()
	return []Pack{nativePack{p: core, info: core.Info()}}
}

type nativePack struct {
	p    packs.Pack
	info sdk.PluginInfo
}

func (n nativePack) Info() sdk.PluginInfo { return n.info }

func (n nativePack) Scan(ctx context.Context, input []byte) (out []sdk.Finding, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("native pack %s panicked: %v", n.info.Name, r)
		}
	}()
	// The reused decoder and the output encoding of the guest kit, and the
	// output decoding of the Wasm host, so that the Wasm/native ratio
	// compares the sandbox, not two codecs. Encoding and decoding the
	// findings also copies them out of the decoder's memory before it is
	// reused.
	dec := decoders.Get().(*sdk.Decoder)
	defer decoders.Put(dec)
	in, err := dec.Decode(input)
	if err != nil {
		return nil, fmt.Errorf("native pack %s: decode input: %w", n.info.Name, err)
	}
	fs, err := n.p.Scan(in)
	if err != nil {
		return nil, fmt.Errorf("native pack %s: %w", n.info.Name, err)
	}
	if fs == nil {
		fs = []sdk.Finding{}
	}
	b, err := sdk.AppendScanOutput(nil, &sdk.ScanOutput{Findings: fs})
	if err != nil {
		return nil, fmt.Errorf("native pack %s: encode output: %w", n.info.Name, err)
	}
	var decoded sdk.ScanOutput
	if err := json.Unmarshal(b, &decoded); err != nil {
		return nil, fmt.Errorf("native pack %s: decode output: %w", n.info.Name, err)
	}
	return fillDeclared(n.info, decoded.Findings)
}

// decoders are the native packs' sdk.Decoders, one per concurrent scan.
var decoders = sync.Pool{New: func() any { return new(sdk.Decoder) }}

// fillDeclared completes findings from the rules the pack declared and
// rejects undeclared rule ids, as the Wasm host does for plugins.
func fillDeclared(info sdk.PluginInfo, fs []sdk.Finding) ([]sdk.Finding, error) {
	for i := range fs {
		f := &fs[i]
		var ri *sdk.RuleInfo
		for j := range info.Rules {
			if info.Rules[j].ID == f.RuleID {
				ri = &info.Rules[j]
				break
			}
		}
		if ri == nil {
			return nil, fmt.Errorf("pack %s reported undeclared rule %q", info.Name, f.RuleID)
		}
		if f.RiskType == "" {
			f.RiskType = ri.RiskType
		}
		if f.RiskLevel == "" {
			f.RiskLevel = ri.Risk
		}
		if f.Decision == "" {
			f.Decision = ri.Decision
		}
	}
	return fs, nil
}

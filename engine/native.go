package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/toolwarden/toolwarden/internal/engine/wasmhost"
	"github.com/toolwarden/toolwarden/rules-wasm/packs"
	"github.com/toolwarden/toolwarden/sdk"
	"github.com/toolwarden/toolwarden/sdk/layout"
)

// NativePacks returns the built-in rule packs compiled into the host instead
// of Wasm, combined into one pack exactly as rules-wasm/cmd/core combines
// them for the Wasm build: every pack's Scan on one decoded input, every
// rule declared under "toolwarden-core". They judge exactly what the Wasm
// pack judges, through the same ABI v2 layout the Wasm pack reads, so
// benchmarks can state what the sandbox costs and tests can check both
// builds agree. Production scans use the Wasm pack: only it runs under a
// deadline and a memory cap.
func NativePacks() []Pack {
	core := packs.Core()
	info := core.Info()
	return []Pack{nativePack{p: core, info: info, rules: wasmhost.RuleMap(info)}}
}

type nativePack struct {
	p     packs.Pack
	info  sdk.PluginInfo
	rules map[string]sdk.RuleInfo
}

func (n nativePack) Info() sdk.PluginInfo { return n.info }

// nativeCodec is one concurrent native scan's guest-side memory: the
// layout decoder the guest kit reuses and the output buffer it writes.
type nativeCodec struct {
	dec layout.Decoder
	enc layout.Encoder
	out []byte
}

var nativeCodecs = sync.Pool{New: func() any { return new(nativeCodec) }}

func (n nativePack) Judge(ctx context.Context, input *wasmhost.Input) (out []sdk.Finding, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("native pack %s panicked: %v", n.info.Name, r)
		}
	}()
	// The host's layout encoding, the guest kit's in-place decoding and
	// output encoding, and the host's output decoding, as for the Wasm
	// pack, so that the Wasm/native ratio compares the sandbox, not two
	// codecs. Decoding the output into a fresh Decoder also copies the
	// findings out of the reused guest-side memory.
	b, err := input.Layout(nil)
	if err != nil {
		return nil, fmt.Errorf("native pack %s: %w", n.info.Name, err)
	}
	c := nativeCodecs.Get().(*nativeCodec)
	defer nativeCodecs.Put(c)
	in, err := c.dec.DecodeScanInput(b)
	if err != nil {
		return nil, fmt.Errorf("native pack %s: decode input: %w", n.info.Name, err)
	}
	in.Policy = input.Config.Policy
	fs, err := n.p.Scan(in)
	if err != nil {
		return nil, fmt.Errorf("native pack %s: %w", n.info.Name, err)
	}
	c.out, err = c.enc.AppendScanOutput(c.out[:0], &sdk.ScanOutput{Findings: fs})
	if err != nil {
		return nil, fmt.Errorf("native pack %s: encode output: %w", n.info.Name, err)
	}
	raw := append([]byte(nil), c.out...)
	var dec layout.Decoder
	res, err := dec.DecodeScanOutput(raw)
	if err != nil {
		return nil, fmt.Errorf("native pack %s: decode output: %w", n.info.Name, err)
	}
	if err := wasmhost.CompleteFindings(n.info, n.rules, res.Findings); err != nil {
		return nil, fmt.Errorf("native pack %s: %w", n.info.Name, err)
	}
	return res.Findings, nil
}

package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolwarden/toolwarden/rules-wasm/packs"
	"github.com/toolwarden/toolwarden/sdk"
)

// NativePacks returns the built-in rule packs compiled into the host instead
// of Wasm. They judge exactly what the Wasm packs judge, decoding the same
// input bytes, so benchmarks can state what the sandbox costs and tests can
// check both builds agree. Production scans use the Wasm packs: only they
// run under a deadline and a memory cap.
func NativePacks() []Pack {
	all := packs.All()
	out := make([]Pack, len(all))
	for i, p := range all {
		out[i] = nativePack{p: p, info: p.Info()}
	}
	return out
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
	var in sdk.ScanInput
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, fmt.Errorf("native pack %s: decode input: %w", n.info.Name, err)
	}
	fs, err := n.p.Scan(&in)
	if err != nil {
		return nil, fmt.Errorf("native pack %s: %w", n.info.Name, err)
	}
	return fillDeclared(n.info, fs)
}

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

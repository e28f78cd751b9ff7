package engine

import (
	"context"
	"errors"

	"github.com/toolwarden/toolwarden/internal/engine/wasmhost"
	"github.com/toolwarden/toolwarden/sdk"
)

// policyOverride is the context key of a policy that replaces the one in
// force for one scan (ScanWithPolicy).
type policyOverride struct{}

// ScanWithPolicy judges req with the engine's rule packs under pol instead
// of the policy in force, and neither audits nor observes the report: it is
// how a dry run of a candidate policy replays recorded scans without
// changing what live scans see or what the audit log says happened.
func (e *Engine) ScanWithPolicy(ctx context.Context, req Request, pol *sdk.Policy) (*sdk.SafetyReport, error) {
	if pol == nil {
		return nil, errors.New("scan with policy: nil policy")
	}
	rep, _, err := e.scanWithFacts(context.WithValue(ctx, policyOverride{}, pol), req, false)
	return rep, err
}

// configFor is the policy a scan runs under, as plugins receive it:
// ScanWithPolicy's (a Config of its own, so ABI v2 instances are
// configured with the candidate for that scan and again with the policy in
// force for the next live one), or the one in force.
func (e *Engine) configFor(ctx context.Context) *wasmhost.Config {
	if p, ok := ctx.Value(policyOverride{}).(*sdk.Policy); ok && p != nil {
		return wasmhost.NewConfig(p)
	}
	return e.config.Load()
}

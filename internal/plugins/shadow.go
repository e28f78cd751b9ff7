package plugins

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/sdk"
)

// Recorded is a scan recorded for replay: its request (content redacted,
// env values never kept) and the decision it got.
type Recorded struct {
	ScanID   string
	Time     time.Time
	Request  engine.Request
	Decision sdk.Decision
	RuleIDs  []string
}

// RecentScans returns up to n recorded scans, newest first (package
// scanlog, adapted where the server is wired).
type RecentScans func(ctx context.Context, n int) ([]Recorded, error)

// Shadow run bounds.
const (
	DefaultShadowLimit = 100
	MaxShadowLimit     = 1000
	maxShadowExamples  = 50
)

// Change is one replayed scan whose decision the candidate changes.
type Change struct {
	ScanID      string       `json:"scan_id"`
	Before      sdk.Decision `json:"before"`
	After       sdk.Decision `json:"after"`
	RulesBefore []string     `json:"rules_before"`
	RulesAfter  []string     `json:"rules_after"`
}

// ShadowResult reports a shadow run: how many recorded scans were replayed
// with the live set and with the candidate in its plugin's place, which
// decisions changed (up to 50 examples; ChangedCount counts all) and how
// often the candidate failed. OK (no candidate failure) is what
// plugins.require_shadow asks for before activation.
type ShadowResult struct {
	Digest       string    `json:"digest"`
	Replayed     int       `json:"replayed"`
	ChangedCount int       `json:"changed_count"`
	Changed      []Change  `json:"changed"`
	Errors       int       `json:"errors"`
	OK           bool      `json:"ok"`
	RanAt        time.Time `json:"ran_at"`
}

// ErrNoScanLog is returned by Shadow when no scan log is configured.
var ErrNoScanLog = errors.New("shadow runs need the scan log (scanlog.enabled)")

// Shadow replays the last limit recorded scans against the candidate
// revision digest of name and records the result on the revision. Both
// sides are re-scanned now (the live set, and the live set with the
// candidate in name's place), so a change is the candidate's doing and
// not a policy change since the scan.
func (m *Manager) Shadow(ctx context.Context, name, digest string, limit int) (ShadowResult, error) {
	if m.cfg.Recent == nil {
		return ShadowResult{}, ErrNoScanLog
	}
	if limit <= 0 {
		limit = DefaultShadowLimit
	}
	limit = min(limit, MaxShadowLimit)
	rev, err := m.cfg.Store.Revision(ctx, name, digest)
	if err != nil {
		return ShadowResult{}, err
	}
	recs, err := m.cfg.Recent(ctx, limit)
	if err != nil {
		return ShadowResult{}, fmt.Errorf("shadow %s: read recorded scans: %w", name, err)
	}
	// Holding mu keeps the live packs from being closed by a reconcile
	// while they are replayed.
	m.mu.Lock()
	defer m.mu.Unlock()
	module, err := m.cfg.Store.Module(ctx, digest)
	if err != nil {
		return ShadowResult{}, fmt.Errorf("shadow %s: %w", name, err)
	}
	// Its own stats: the candidate's calls must not count as the live
	// plugin's.
	cand, err := loadPack(ctx, name, digest, module, rev.Manifest, m.cfg.Limits, newPluginStats())
	if err != nil {
		return ShadowResult{}, fmt.Errorf("shadow %s: %w", name, err)
	}
	defer cand.Close(context.Background())
	var live, with []engine.Pack
	for _, n := range slices.Sorted(maps.Keys(m.loaded)) {
		live = append(live, m.loaded[n])
		if n != name {
			with = append(with, m.loaded[n])
		}
	}
	with = append(with, cand)
	res := ShadowResult{Digest: digest, Changed: []Change{}, RanAt: time.Now().UTC()}
	for _, r := range recs {
		if err := ctx.Err(); err != nil {
			return ShadowResult{}, err
		}
		before, err := m.cfg.Engine.ScanWithCustom(ctx, r.Request, live)
		if err != nil {
			continue // content the scanner refuses now (e.g. a lower size cap)
		}
		after, err := m.cfg.Engine.ScanWithCustom(ctx, r.Request, with)
		if err != nil {
			continue
		}
		res.Replayed++
		for _, f := range after.Findings {
			if f.RuleID == engine.RulePluginError && f.Metadata["plugin"] == name {
				res.Errors++
				break
			}
		}
		if before.Decision != after.Decision {
			res.ChangedCount++
			if len(res.Changed) < maxShadowExamples {
				res.Changed = append(res.Changed, Change{ScanID: r.ScanID, Before: before.Decision, After: after.Decision,
					RulesBefore: nonNil(before.RuleIDs()), RulesAfter: nonNil(after.RuleIDs())})
			}
		}
	}
	res.OK = res.Errors == 0
	rev.Shadow = &res
	if err := m.cfg.Store.UpdateRevision(ctx, rev); err != nil {
		return res, fmt.Errorf("shadow %s: record result: %w", name, err)
	}
	return res, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

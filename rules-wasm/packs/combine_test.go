package packs_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/rules-wasm/packs"
	"github.com/toolwarden/toolwarden/sdk"
)

func TestCombineDeclaresEveryRuleOnce(t *testing.T) {
	info, _ := split(packs.Combine(packs.CoreName, packs.All()))
	if info.Name != packs.CoreName || info.Version == "" {
		t.Fatalf("info = %q %q, want name %q and a version", info.Name, info.Version, packs.CoreName)
	}
	want := 0
	for _, p := range packs.All() {
		want += len(p.Info().Rules)
	}
	seen := map[string]bool{}
	for _, r := range info.Rules {
		if seen[r.ID] {
			t.Errorf("rule %s declared twice", r.ID)
		}
		seen[r.ID] = true
	}
	if len(info.Rules) != want || !seen["BASH_RECURSIVE_DELETE"] || !seen["NETWORK_NON_WHITELIST_DOMAIN"] {
		t.Fatalf("combined pack declares %d rules, want %d including the catalog's", len(info.Rules), want)
	}
}

func TestCombineRunsEveryPack(t *testing.T) {
	in := &sdk.ScanInput{
		Language: "bash",
		Policy:   &sdk.Policy{Name: "t", MaxTimeoutSeconds: 60, MaxOutputBytes: 1 << 20},
		Facts: &sdk.Facts{Version: sdk.FactsVersion, Language: "bash",
			Files:  []sdk.FileAccess{{Path: "/", Op: "delete", Recursive: true, Force: true, By: "rm", Pos: sdk.Pos{Line: 1, Col: 1}}},
			Sleeps: []sdk.Sleep{{Seconds: -1, Pos: sdk.Pos{Line: 2, Col: 1}}},
		},
	}
	_, scan := split(packs.Combine(packs.CoreName, packs.All()))
	got, err := scan(in)
	if err != nil {
		t.Fatal(err)
	}
	var want []sdk.Finding
	for _, p := range packs.All() {
		fs, err := p.Scan(in)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, fs...)
	}
	if len(got) != len(want) || len(got) < 2 {
		t.Fatalf("combined scan found %d findings, the packs one by one %d (want ≥ 2)", len(got), len(want))
	}
	for i := range got {
		if got[i].RuleID != want[i].RuleID || got[i].Line != want[i].Line {
			t.Errorf("finding %d = %s@%d, want %s@%d", i, got[i].RuleID, got[i].Line, want[i].RuleID, want[i].Line)
		}
	}
}

func TestCombineFailsWhenAPackFails(t *testing.T) {
	bad := packs.Pack{
		Info: func() sdk.PluginInfo { return sdk.PluginInfo{Name: "bad", Version: "1"} },
		Scan: func(*sdk.ScanInput) ([]sdk.Finding, error) { return nil, errors.New("boom") },
	}
	_, scan := split(packs.Combine(packs.CoreName, append(packs.All(), bad)))
	fs, err := scan(&sdk.ScanInput{Facts: &sdk.Facts{Version: sdk.FactsVersion}, Policy: &sdk.Policy{}})
	if err == nil || !strings.Contains(err.Error(), "bad: boom") || fs != nil {
		t.Fatalf("scan = %v, %v; want the pack's error and no findings", fs, err)
	}
}

func split(p packs.Pack) (sdk.PluginInfo, func(*sdk.ScanInput) ([]sdk.Finding, error)) {
	return p.Info(), p.Scan
}

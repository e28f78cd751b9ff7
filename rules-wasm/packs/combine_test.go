package packs_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/rules-wasm/packs"
	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/packtest"
	"github.com/toolwarden/toolwarden/sdk"
	"github.com/toolwarden/toolwarden/sdk/layout"
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

// TestCoreWithReusedDecoder runs the combined packs the way the guest kit
// does inside Wasm: every corpus document decoded into one sdk.Decoder (same
// ScanInput pointer, same backing arrays, strings pointing into one reused
// input buffer) and judged in turn. The findings must equal those of the
// same document decoded into fresh memory: a pack that keyed a cache on a
// pointer, or kept a string of an earlier input, fails here.
func TestCoreWithReusedDecoder(t *testing.T) {
	core := packs.Core()
	pol := packtest.Policy()
	cases := loadCases(t)
	raws := make([][]byte, len(cases))
	wants := make([]string, len(cases))
	for i, c := range cases {
		raw, err := json.Marshal(&sdk.ScanInput{Facts: c.Facts, Content: c.Content, Language: c.Language, Policy: pol})
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := sdk.DecodeScanInput(raw)
		if err != nil {
			t.Fatal(err)
		}
		want, err := core.Scan(fresh)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := json.Marshal(want)
		raws[i], wants[i] = raw, string(w)
	}
	// Then every document through one Decoder and one buffer overwritten by
	// each, as the host and the kit do, with no other scan in between;
	// twice through, so each document also follows a different one.
	var dec sdk.Decoder
	buf := make([]byte, 0, 1<<20)
	for round := range 2 {
		for k := range cases {
			i := k
			if round == 1 {
				i = len(cases) - 1 - k
			}
			buf = append(buf[:0], raws[i]...)
			in, err := dec.Decode(buf)
			if err != nil {
				t.Fatal(err)
			}
			got, err := core.Scan(in)
			if err != nil {
				t.Fatal(err)
			}
			g, _ := json.Marshal(got)
			if string(g) != wants[i] {
				t.Fatalf("%s (round %d): reused decoder gives\n%s\nfresh memory gives\n%s", cases[i].ID, round, g, wants[i])
			}
		}
	}
}

// TestCoreLayoutMatchesJSON runs the combined packs as the kit does under
// ABI v2: every corpus document written as a layout by the host's encoder
// and read in place into one reused layout.Decoder, the policy set once as
// configure does. The findings must equal those of the JSON (v1) input
// decoded into fresh memory: the ABI changes nothing the rules see.
func TestCoreLayoutMatchesJSON(t *testing.T) {
	core := packs.Core()
	pol := packtest.Policy()
	cases := loadCases(t)
	var enc layout.Encoder
	var dec layout.Decoder
	var buf []byte
	for round := range 2 {
		for k := range cases {
			i := k
			if round == 1 {
				i = len(cases) - 1 - k
			}
			c := cases[i]
			in := sdk.ScanInput{Facts: c.Facts, Content: c.Content, Language: c.Language, Policy: pol}
			raw, err := json.Marshal(&in)
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := sdk.DecodeScanInput(raw)
			if err != nil {
				t.Fatal(err)
			}
			want, err := core.Scan(fresh)
			if err != nil {
				t.Fatal(err)
			}
			w, _ := json.Marshal(want)
			if buf, err = enc.AppendScanInput(buf[:0], &in, nil); err != nil {
				t.Fatal(err)
			}
			v2, err := dec.DecodeScanInput(buf)
			if err != nil {
				t.Fatal(err)
			}
			v2.Policy = pol
			got, err := core.Scan(v2)
			if err != nil {
				t.Fatal(err)
			}
			g, _ := json.Marshal(got)
			if string(g) != string(w) {
				t.Fatalf("%s (round %d): layout input gives\n%s\nJSON input gives\n%s", c.ID, round, g, w)
			}
		}
	}
}

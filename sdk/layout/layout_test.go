package layout_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/toolwarden/toolwarden/sdk"
	"github.com/toolwarden/toolwarden/sdk/internal/layoutgen"
	"github.com/toolwarden/toolwarden/sdk/layout"
)

// corpus reads the dev corpus's facts documents as scan inputs, through
// encoding/json so the reference is independent of both codecs.
func corpus(t *testing.T) []sdk.ScanInput {
	t.Helper()
	f, err := os.Open("../testdata/dev_facts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []sdk.ScanInput
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var c struct {
			Language string     `json:"language"`
			Content  string     `json:"content"`
			Facts    *sdk.Facts `json:"facts"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		col := 3
		out = append(out, sdk.ScanInput{Facts: c.Facts, Content: c.Content, Language: c.Language,
			Context: sdk.RequestContext{ToolName: "run", Cwd: "/w", TimeoutSeconds: 2.5, MaxOutputBytes: 1 << 40,
				CommandArgs: []string{"-x"}, EnvKeys: []string{"A", "B"}, Metadata: map[string]any{"n": float64(col), "s": "v"}}})
	}
	if len(out) < 100 {
		t.Fatalf("corpus has %d documents", len(out))
	}
	return out
}

// TestLayoutRoundTripCorpus writes every dev-corpus facts document and reads
// it back into one reused Decoder: what the guest sees must be exactly what
// the host had (policy and config excepted: they travel by configure).
func TestLayoutRoundTripCorpus(t *testing.T) {
	var enc layout.Encoder
	var dec layout.Decoder
	var buf []byte
	kwargs := 0
	for i, in := range corpus(t) {
		var err error
		buf, err = enc.AppendScanInput(buf[:0], &in, nil)
		if err != nil {
			t.Fatalf("doc %d: encode: %v", i, err)
		}
		got, err := dec.DecodeScanInput(buf)
		if err != nil {
			t.Fatalf("doc %d: decode: %v", i, err)
		}
		if !reflect.DeepEqual(*got, in) {
			a, _ := json.Marshal(got)
			b, _ := json.Marshal(in)
			t.Fatalf("doc %d: round trip differs:\n got %s\nwant %s", i, a, b)
		}
		for _, c := range in.Facts.Calls {
			kwargs += len(c.Kwargs)
		}
	}
	if kwargs == 0 {
		t.Fatal("corpus exercised no keyword arguments")
	}
}

func TestLayoutRoundTripOutput(t *testing.T) {
	col := 7
	out := sdk.ScanOutput{Findings: []sdk.Finding{
		{RuleID: "A", RiskType: "x", RiskLevel: sdk.RiskHigh, Decision: sdk.Deny, Evidence: "rm -rf /", Line: 3, Column: &col,
			Message: "m", Metadata: map[string]any{"path": "/", "n": float64(2), "l": []any{"a"}}, Recommendation: "r"},
		{RuleID: "B", Line: -1},
	}, Error: "boom"}
	var enc layout.Encoder
	b, err := enc.AppendScanOutput(nil, &out)
	if err != nil {
		t.Fatal(err)
	}
	var dec layout.Decoder
	got, err := dec.DecodeScanOutput(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*got, out) {
		t.Fatalf("got %+v, want %+v", *got, out)
	}
	// An input layout is not an output layout: the hash tells them apart.
	if _, err := dec.DecodeScanInput(b); err == nil {
		t.Fatal("an output message decoded as an input")
	}
}

// TestLayoutMalformedNeverPanics truncates and corrupts a message word by
// word: every result is an error or a well-formed document, never a panic.
func TestLayoutMalformedNeverPanics(t *testing.T) {
	in := corpus(t)[5]
	var enc layout.Encoder
	b, err := enc.AppendScanInput(nil, &in, nil)
	if err != nil {
		t.Fatal(err)
	}
	var dec layout.Decoder
	if _, err := dec.DecodeScanInput(b[:len(b)-1]); err == nil {
		t.Fatal("truncated message decoded")
	}
	errs := 0
	for o := 0; o+4 <= len(b); o += 4 {
		c := bytes.Clone(b)
		c[o], c[o+1], c[o+2], c[o+3] = 0xff, 0xff, 0xff, 0x7f
		if _, err := dec.DecodeScanInput(c); err != nil {
			errs++
		}
	}
	if errs == 0 {
		t.Fatal("no corruption was detected")
	}
}

// TestSelectionFiltersFacts sends a plugin only the kinds and command names
// it declared, and reports when nothing of interest is left.
func TestSelectionFiltersFacts(t *testing.T) {
	in := sdk.ScanInput{Content: "rm -rf x; curl y", Language: "bash", Facts: &sdk.Facts{Version: 1, Language: "bash",
		Commands: []sdk.Command{{ID: 1, Name: "rm"}, {ID: 2, Name: "curl"}, {ID: 3, Dynamic: true}, {ID: 4, Path: "/bin/r?", Candidates: []string{"rm"}}},
		Network:  []sdk.NetworkUse{{Host: "y", Via: "curl"}},
		Files:    []sdk.FileAccess{{Path: "x", Op: "delete", By: "rm"}}},
		Context: sdk.RequestContext{Cwd: "/w"}}
	sel, err := layout.NewSelection(&sdk.Interests{Commands: []string{"rm"}})
	if err != nil {
		t.Fatal(err)
	}
	var enc layout.Encoder
	b, err := enc.AppendScanInput(nil, &in, sel)
	if err != nil {
		t.Fatal(err)
	}
	var dec layout.Decoder
	got, err := dec.DecodeScanInput(b)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int
	for _, c := range got.Facts.Commands {
		ids = append(ids, c.ID)
	}
	if !reflect.DeepEqual(ids, []int{1, 3, 4}) || got.Facts.Network != nil || got.Facts.Files != nil || got.Content != "" || got.Context.Cwd != "" {
		t.Fatalf("selection sent %+v", got)
	}
	if sel.Empty(in.Facts) {
		t.Fatal("facts with an rm command reported empty for an rm plugin")
	}
	only := &sdk.Facts{Commands: []sdk.Command{{Name: "ls"}}, Network: []sdk.NetworkUse{{Host: "h"}}}
	if !sel.Empty(only) {
		t.Fatal("facts without rm not reported empty")
	}
	net, _ := layout.NewSelection(&sdk.Interests{Facts: []string{"network"}})
	if net.Empty(only) {
		t.Fatal("network facts reported empty for a network plugin")
	}
	if _, err := layout.NewSelection(&sdk.Interests{Facts: []string{"comands"}}); err == nil {
		t.Fatal("unknown fact kind accepted")
	}
	var all *layout.Selection
	if all.Empty(&sdk.Facts{}) {
		t.Fatal("a plugin without interests was skipped")
	}
}

// TestGeneratedLayoutUpToDate fails while layout_gen.go or the layout
// section of ABI.md differ from what the generator prints for the current
// wire types (run go generate ./... in sdk/layout).
func TestGeneratedLayoutUpToDate(t *testing.T) {
	code, doc, err := layoutgen.Generate()
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("layout_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, code) {
		t.Error("layout_gen.go is stale: run go generate ./... in sdk/layout")
	}
	abi, err := os.ReadFile("../ABI.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := layoutgen.Splice(abi, doc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(abi, want) {
		t.Error("the layout section of ABI.md is stale: run go generate ./... in sdk/layout")
	}
}

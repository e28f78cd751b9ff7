package sdk_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/sdk"
)

// checkEncodeSame fails unless AppendScanOutput writes exactly the bytes
// json.Marshal writes for out, or both fail.
func checkEncodeSame(t *testing.T, name string, out sdk.ScanOutput) {
	t.Helper()
	want, jerr := json.Marshal(out)
	got, err := sdk.AppendScanOutput([]byte("prefix"), &out)
	switch {
	case jerr != nil && err != nil:
	case jerr != nil:
		t.Fatalf("%s: json.Marshal fails (%v), AppendScanOutput wrote %s", name, jerr, got)
	case err != nil:
		t.Fatalf("%s: AppendScanOutput: %v; json.Marshal wrote %s", name, err, want)
	case !bytes.HasPrefix(got, []byte("prefix")):
		t.Fatalf("%s: the buffer's prefix was overwritten: %q", name, got)
	case !bytes.Equal(got[len("prefix"):], want):
		t.Fatalf("%s:\n got %s\nwant %s", name, got[len("prefix"):], want)
	}
}

func TestAppendScanOutputMatchesEncodingJSON(t *testing.T) {
	col := 7
	weird := "tab\t nl\n cr\r bs\b ff\f nul\x00 esc\x1b del\x7f \"q\" \\ <a href='x'>&amp; é 😀 \u2028\u2029 bad\xff\xc3\x28 end"
	cases := map[string]sdk.ScanOutput{
		"nil findings":   {},
		"empty findings": {Findings: []sdk.Finding{}},
		"error":          {Findings: []sdk.Finding{}, Error: "scan: decode input: " + weird},
		"full": {Findings: []sdk.Finding{{
			RuleID: "BASH_RECURSIVE_DELETE", RiskType: sdk.RiskTypeFile, RiskLevel: sdk.RiskCritical, Decision: sdk.Deny,
			Evidence: weird, Line: 3, Column: &col, Message: "recursive delete of " + weird, Recommendation: "don't",
			Metadata: map[string]any{
				"path": "~", "recursive": true, "count": 3, "big": int64(math.MaxInt64), "neg": -12, "u": uint64(math.MaxUint64),
				"i32": int32(-5), "u32": uint32(5), "ratio": 0.5, "tiny": 1e-7, "huge": 1e21, "negtiny": -2.5e-9, "whole": 3.0,
				"f32": float32(0.1), "f32tiny": float32(1e-7), "zero": 0.0, "nil": nil, "list": []string{"a", weird},
				"nilList": []string(nil), "anys": []any{1.5, "x", nil, false, []any{}, map[string]any{"z": 1, "a": []string{}}},
				"nested": map[string]any{"b": 2, "a": map[string]any{}}, "nilMap": map[string]any(nil),
				"other": struct{ X int }{4}, "bytes": []byte("hi"), weird: "key with specials",
			},
		}, {RuleID: "R2"}}},
	}
	for name, out := range cases {
		checkEncodeSame(t, name, out)
	}
	for name, bad := range map[string]any{"NaN": math.NaN(), "Inf": math.Inf(1), "chan": make(chan int)} {
		checkEncodeSame(t, name, sdk.ScanOutput{Findings: []sdk.Finding{{RuleID: "R", Metadata: map[string]any{"v": bad}}}})
	}
}

func FuzzAppendScanOutput(f *testing.F) {
	f.Add("rm -rf ~", "<&>\u2028", 1.5, int64(3))
	f.Add("\xff\x00\"\\", "", 1e-7, int64(-1))
	f.Fuzz(func(t *testing.T, s1, s2 string, x float64, n int64) {
		checkEncodeSame(t, "fuzz", sdk.ScanOutput{Error: s2, Findings: []sdk.Finding{{
			RuleID: s1, Evidence: s2, Message: s1 + s2, Line: int(n),
			Metadata: map[string]any{s1: x, s2: n, "l": []any{s1, x}},
		}}})
	})
}

// checkInputSame fails unless AppendScanInput writes exactly the bytes
// json.Marshal writes for in, after an existing prefix, or both fail.
func checkInputSame(t testing.TB, name string, in *sdk.ScanInput) {
	t.Helper()
	want, jerr := json.Marshal(in)
	got, err := sdk.AppendScanInput([]byte("prefix"), in)
	switch {
	case jerr != nil && err != nil:
	case jerr != nil:
		t.Fatalf("%s: json.Marshal fails (%v), AppendScanInput wrote %s", name, jerr, got)
	case err != nil:
		t.Fatalf("%s: AppendScanInput: %v; json.Marshal wrote %s", name, err, want)
	case !bytes.HasPrefix(got, []byte("prefix")):
		t.Fatalf("%s: the buffer's prefix was overwritten: %q", name, got)
	case !bytes.Equal(got[len("prefix"):], want):
		g := got[len("prefix"):]
		i := 0
		for i < len(g) && i < len(want) && g[i] == want[i] {
			i++
		}
		t.Fatalf("%s: first difference at byte %d:\n got …%s\nwant …%s", name, i,
			g[max(0, i-80):min(len(g), i+80)], want[max(0, i-80):min(len(want), i+80)])
	}
}

func TestAppendScanInputMatchesEncodingJSON(t *testing.T) {
	inputs := devInputs(t)
	for name, in := range inputs {
		checkInputSame(t, name, in)
	}
	checkInputSame(t, "rich", richInput())
	checkInputSame(t, "empty", &sdk.ScanInput{})
	checkInputSame(t, "nil slices and maps", sliceVariants(func() []string { return nil },
		func() []int { return nil }, nil, nil, nil, nil))
	checkInputSame(t, "empty slices and maps", sliceVariants(func() []string { return []string{} },
		func() []int { return []int{} }, []sdk.Value{}, map[string]sdk.Value{}, map[string]any{}, map[string]sdk.RuleOverride{}))

	// Omitted and zero values next to each other, and each optional field
	// of a context alone, so every separator is written or left out.
	rich := richInput()
	for name, c := range map[string]sdk.RequestContext{
		"tool only":     {ToolName: "t"},
		"cwd only":      {Cwd: "/"},
		"timeout only":  {TimeoutSeconds: 1e-7},
		"bytes only":    {MaxOutputBytes: -1},
		"args only":     {CommandArgs: []string{""}},
		"env only":      {EnvKeys: []string{"A"}},
		"metadata only": {Metadata: map[string]any{"": nil}},
		"negative zero": {TimeoutSeconds: math.Copysign(0, -1)},
	} {
		in := *rich
		in.Context = c
		checkInputSame(t, "context "+name, &in)
	}
	network := []sdk.NetworkUse{{Via: "dns"}, {Port: 22, Via: "ssh"}, {Scheme: "ftp", Via: "curl", Pos: sdk.Pos{Depth: -1}}, {Host: "h", Via: ""}}
	in := &sdk.ScanInput{Facts: &sdk.Facts{Network: network, Sleeps: []sdk.Sleep{{Seconds: 1e21}, {Seconds: -0.000001}, {Seconds: 123456789}}}}
	checkInputSame(t, "network and float edges", in)

	// Many keys: sorted beyond the stack buffer as well.
	big := map[string]any{}
	kwargs := map[string]sdk.Value{}
	rules := map[string]sdk.RuleOverride{}
	for i := range 40 {
		k := fmt.Sprintf("k%02d<%c>", 39-i, 'a'+i%26)
		big[k] = i
		kwargs[k] = sdk.Value{Kind: "int", Str: k}
		rules[k] = sdk.RuleOverride{Decision: sdk.Allow}
	}
	in = richInput()
	in.Config, in.Context.Metadata, in.Policy.Rules = big, big, rules
	in.Facts.Calls[0].Kwargs = kwargs
	checkInputSame(t, "many keys", in)

	// Values the hand-written encoder hands to json.Marshal, and values
	// json.Marshal refuses: both must refuse them.
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	loop := []any{nil}
	loop[0] = loop
	deep := any("leaf")
	for range 1200 {
		deep = []any{map[string]any{"d": deep}}
	}
	for name, v := range map[string]any{
		"struct": struct {
			A int `json:"a,omitempty"`
			B string
		}{B: "<x>"},
		"map of ints": map[string]int{"b": 1, "a": 2}, "bytes": []byte("hi"), "raw": json.RawMessage(` {"a" : "<"} `),
		"NaN": math.NaN(), "Inf": math.Inf(-1), "chan": make(chan int), "cyclic map": cyclic, "cyclic slice": loop,
		"deep": deep,
	} {
		in := richInput()
		in.Config = map[string]any{"v": v}
		checkInputSame(t, "config "+name, in)
		in = richInput()
		in.Context.Metadata = map[string]any{"v": v}
		checkInputSame(t, "metadata "+name, in)
	}
	for name, f := range map[string]float64{"NaN": math.NaN(), "+Inf": math.Inf(1), "-Inf": math.Inf(-1)} {
		in := richInput()
		in.Facts.Sleeps[0].Seconds = f
		checkInputSame(t, "sleep "+name, in)
		in = richInput()
		in.Context.TimeoutSeconds = f
		checkInputSame(t, "timeout "+name, in)
		in = richInput()
		in.Policy.MaxTimeoutSeconds = f
		checkInputSame(t, "max timeout "+name, in)
		in = richInput()
		in.Policy.LongSleepSeconds = f
		checkInputSame(t, "long sleep "+name, in)
	}
}

// sliceVariants builds an input in which every slice and map of every type
// comes from the given constructors (all nil, or all empty), around facts
// that are otherwise present, so both null and [] (or omission) are checked
// for each field.
func sliceVariants(strs func() []string, ints func() []int, values []sdk.Value, kwargs map[string]sdk.Value,
	anys map[string]any, rules map[string]sdk.RuleOverride) *sdk.ScanInput {
	f := &sdk.Facts{Version: 1, Language: "python"}
	if strs() != nil {
		f.Commands, f.Files, f.Network, f.DynamicExec = []sdk.Command{}, []sdk.FileAccess{}, []sdk.NetworkUse{}, []sdk.DynamicExec{}
		f.Loops, f.Sleeps, f.ShellFeatures, f.Functions = []sdk.Loop{}, []sdk.Sleep{}, []sdk.ShellFeature{}, []sdk.Function{}
		f.Assignments, f.EnvReads, f.Outputs, f.Secrets, f.ParseErrors = []sdk.Assignment{}, []sdk.EnvRead{}, []sdk.Output{}, []sdk.Secret{}, []sdk.ParseError{}
	}
	f.Commands = append(f.Commands, sdk.Command{Candidates: strs(), Args: strs(), DynamicArgs: ints(), Reach: strs(),
		StdinSources: ints(), ArgSources: ints()})
	if strs() != nil {
		f.Commands[0].Redirects = []sdk.Redirect{}
	}
	f.DynamicExec = append(f.DynamicExec, sdk.DynamicExec{Decoders: strs()})
	f.Calls = []sdk.Call{{Args: values, Kwargs: kwargs}, {Args: []sdk.Value{{Items: values}}, Kwargs: map[string]sdk.Value{"k": {Items: values}}}}
	f.Outputs = append(f.Outputs, sdk.Output{Vars: strs()})
	return &sdk.ScanInput{
		Facts:   f,
		Context: sdk.RequestContext{CommandArgs: strs(), EnvKeys: strs(), Metadata: anys},
		Policy:  &sdk.Policy{AllowedDomains: strs(), AllowedCommands: strs(), DeniedPaths: strs(), Rules: rules},
		Config:  anys,
	}
}

// TestAppendScanInputDoesNotAllocate pins what the encoder is for: once the
// buffer is big enough, encoding a scan input allocates nothing, small
// maps' keys included.
func TestAppendScanInputDoesNotAllocate(t *testing.T) {
	for name, in := range map[string]*sdk.ScanInput{"largest dev document": largestDevInput(t), "rich": richInput()} {
		buf, err := sdk.AppendScanInput(nil, in)
		if err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(20, func() {
			if buf, err = sdk.AppendScanInput(buf[:0], in); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: AppendScanInput into a large enough buffer allocates %.0f times, want 0", name, allocs)
		}
	}
}

// largestDevInput is the dev-corpus scan input with the most JSON.
func largestDevInput(t testing.TB) *sdk.ScanInput {
	var best *sdk.ScanInput
	size := 0
	for _, in := range devInputs(t) {
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > size {
			best, size = in, len(b)
		}
	}
	return best
}

func FuzzAppendScanInput(f *testing.F) {
	f.Add("rm -rf ~", "<&>\u2028", 1.5, int64(3))
	f.Add("\xff\x00\"\\", "", 1e-7, int64(-1))
	f.Add("é😀\u2029", "\x7f\x1f", -1e21, int64(math.MinInt64))
	f.Fuzz(func(t *testing.T, s1, s2 string, x float64, n int64) {
		in := richInput()
		in.Content, in.Language = s1+s2, s2
		in.Context.Cwd, in.Context.TimeoutSeconds, in.Context.MaxOutputBytes = s1, x, n
		in.Context.Metadata[s2] = []any{x, s1, n}
		in.Config = map[string]any{s1: x, s2: n}
		in.Policy.Name, in.Policy.MaxTimeoutSeconds, in.Policy.MaxOutputBytes = s2, x, n
		in.Policy.Rules[s1] = sdk.RuleOverride{Decision: sdk.Decision(s2)}
		c := &in.Facts.Commands[0]
		c.Name, c.Args, c.DynamicArgs, c.Pos.Line, c.Pos.Via = s1, []string{s2, s1}, []int{int(n)}, int(n), s2
		in.Facts.Network[0].Port, in.Facts.Network[0].Host = int(n), s1
		in.Facts.Sleeps[1].Seconds = x
		in.Facts.Calls[0].Kwargs[s1] = sdk.Value{Kind: s2, Str: s1, Items: []sdk.Value{{Str: s2}}}
		in.Facts.Outputs[0].Vars = []string{s1}
		checkInputSame(t, "fuzz", in)
	})
}

func BenchmarkAppendScanInput(b *testing.B) {
	in := largestDevInput(b)
	buf, err := sdk.AppendScanInput(nil, in)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		if buf, err = sdk.AppendScanInput(buf[:0], in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarshalScanInput is the same input through json.Marshal, for
// comparison.
func BenchmarkMarshalScanInput(b *testing.B) {
	in := largestDevInput(b)
	buf, err := json.Marshal(in)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(in); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAppendStringEveryByteAtEveryOffset puts each byte json.Marshal
// escapes, and its neighbours that it copies, at every offset of the
// eight-byte fast path, alone and after another special byte.
func TestAppendStringEveryByteAtEveryOffset(t *testing.T) {
	specials := []string{`"`, `\`, "<", ">", "&", "\x00", "\x08", "\x1f", "\x7f", "é", "😀", "\u2028", "\u2029",
		"\xff", "\xe2\x80", "\xed\xa0\x80", " ", "!", "#", "%", "'", ";", "=", "?", "[", "]", "|", "~", "\x3a", "\x3b"}
	for off := 0; off < 20; off++ {
		pad := strings.Repeat("a", off)
		for _, sp := range specials {
			for _, s := range []string{pad + sp + pad + "x", pad + sp + "<" + sp + pad, sp + pad + sp} {
				checkEncodeSame(t, fmt.Sprintf("%q", s), sdk.ScanOutput{Error: s})
			}
		}
	}
	// Every byte value alone, in runs and next to a multi-byte rune.
	for c := 0; c < 256; c++ {
		b := string([]byte{byte(c)})
		checkEncodeSame(t, fmt.Sprintf("byte %#x", c), sdk.ScanOutput{Error: strings.Repeat(b, 10) + "é" + b})
	}
}

// AppendScanOutput writes what json.Marshal writes, into a buffer the
// caller may reuse.
func ExampleAppendScanOutput() {
	col := 1
	out := sdk.ScanOutput{Findings: []sdk.Finding{{
		RuleID: "BASH_RECURSIVE_DELETE", Evidence: "rm -rf ~", Line: 1, Column: &col,
		Metadata: map[string]any{"path": "~", "recursive": true},
	}}}
	buf, err := sdk.AppendScanOutput(nil, &out)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(buf))
	// Output: {"findings":[{"rule_id":"BASH_RECURSIVE_DELETE","risk_type":"","risk_level":"","decision":"","evidence":"rm -rf ~","line":1,"column":1,"message":"","metadata":{"path":"~","recursive":true},"recommendation":""}]}
}

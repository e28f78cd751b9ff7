package sdk_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/toolwarden/toolwarden/sdk"
)

// testPolicy is a realistic policy: lists, limits, switches and overrides.
func testPolicy() *sdk.Policy {
	return &sdk.Policy{
		Name:                    "default",
		AllowedDomains:          []string{"github.com", "pypi.org", "files.pythonhosted.org"},
		AllowedCommands:         []string{},
		DeniedPaths:             []string{"~/.ssh", ".env", "*/.env", "*.pem", "/etc/shadow"},
		MaxTimeoutSeconds:       600,
		MaxOutputBytes:          1 << 20,
		DenyDependencyInstall:   true,
		DenyPrivilegeEscalation: true,
		ReviewUnknownNetwork:    true,
		LongSleepSeconds:        300.5,
		Rules: map[string]sdk.RuleOverride{
			"BASH_SHELL_FEATURE_REVIEW": {Disabled: true},
			"DEPENDENCY_INSTALL":        {Decision: sdk.NeedsHumanReview, RiskLevel: sdk.RiskMedium},
		},
		AuditLogPath: "/var/log/toolwarden/audit.jsonl",
	}
}

// richFacts fills every fact type, with escapes, non-ASCII text and nested
// Python values, so that every decode function runs.
func richFacts() *sdk.Facts {
	p := sdk.Pos{Line: 3, Col: 7, Depth: 2, Via: "bash -c>base64>sh", Encoded: true}
	return &sdk.Facts{
		Version:  sdk.FactsVersion,
		Language: "bash",
		Commands: []sdk.Command{{
			ID: 1, Name: "rm", Path: "/bin/r?", Candidates: []string{"rm"}, Args: []string{"-rf", "/", "$(whoami)", "tab\there \"q\" \\ é 😀 \u2028"},
			DynamicArgs: []int{2}, Dynamic: true, Reach: []string{"pipe", "xargs"}, Pipeline: 4, Stage: 1,
			StdinSources: []int{0, 3}, ArgSources: []int{7}, Evidence: "find / | xargs rm -rf <x>&",
			Redirects: []sdk.Redirect{{Op: ">&", Fd: -1, Target: "/dev/tcp/10.0.0.1/4444", Dynamic: true}},
			Pos:       p,
		}, {ID: 2, Name: "ls", Pos: sdk.Pos{Line: 1, Col: 1}}},
		Files: []sdk.FileAccess{{Path: "~/.ssh/id_*", Op: "read", Recursive: true, Force: true, Mode: "u+s", Owner: "root",
			Glob: true, Dynamic: true, By: "cat", Evidence: "cat ~/.ssh/id_*", Pos: p}},
		Network: []sdk.NetworkUse{{URL: "https://evil.io:8443/x?a=b&c=d", Host: "evil.io", Port: 8443, Scheme: "https", Via: "curl",
			Dynamic: true, DataInHost: true, Upload: true, UploadFrom: ".env", Listen: true, ExecShell: true, Evidence: "curl …", Pos: p}},
		DynamicExec: []sdk.DynamicExec{{Kind: "pipe_interpreter", Interpreter: "sh", Static: true, Encoded: true,
			Decoders: []string{"base64", "rev"}, Downloaded: true, Content: "echo hi\nrm -rf /\x00", Evidence: "base64 -d | sh", Pos: p}},
		Calls: []sdk.Call{{Name: "os.system", Args: []sdk.Value{{Kind: "str", Const: true, Str: "rm -rf /"},
			{Kind: "list", Items: []sdk.Value{{Kind: "int", Const: true, Str: "1"}, {Kind: "tuple", Items: []sdk.Value{{Kind: "name", Str: "x"}}}}}},
			Kwargs:   map[string]sdk.Value{"shell": {Kind: "bool", Const: true, Str: "True"}, "cwd": {Kind: "expr", Str: "a+b", Encoded: true}},
			Indirect: true, Evidence: "getattr(__import__('os'), 'system')", Pos: p}},
		Loops:         []sdk.Loop{{Kind: "while_true", HasBreak: true, Evidence: "while :; do", Pos: p}},
		Sleeps:        []sdk.Sleep{{Seconds: -1, Dynamic: true, Evidence: "sleep infinity", Pos: p}, {Seconds: 1.25e-3}},
		ShellFeatures: []sdk.ShellFeature{{Kind: "pipe", Evidence: "a | b", Pos: p}},
		Functions:     []sdk.Function{{Name: ":", Recursive: true, SelfPipe: true, Background: true, CalledAtTop: true, Pos: p}},
		Assignments:   []sdk.Assignment{{Name: "X", Value: "1", Dynamic: true, Op: "export", Pos: p}},
		EnvReads:      []sdk.EnvRead{{Name: "API_TOKEN", Pos: p}},
		Outputs:       []sdk.Output{{Sink: "stdout", Vars: []string{"API_TOKEN"}, Evidence: "echo $API_TOKEN", Pos: p}},
		Secrets:       []sdk.Secret{{Kind: "private_key", Redacted: "-----BEGIN…", Pos: p}},
		ParseErrors:   []sdk.ParseError{{Message: "unexpected EOF", Language: "python", Pos: p}},
		Truncated:     true,
	}
}

func richInput() *sdk.ScanInput {
	return &sdk.ScanInput{
		Facts:    richFacts(),
		Content:  "find / | xargs rm -rf\n# ünïcödé \u00e9\U0001F600",
		Language: "bash",
		Context: sdk.RequestContext{ToolName: "shell", Cwd: "/work", TimeoutSeconds: 30.5, MaxOutputBytes: 4096,
			CommandArgs: []string{"-c", "x"}, EnvKeys: []string{"HOME", "PATH"},
			Metadata: map[string]any{"agent": "a1", "n": 3.0, "nested": map[string]any{"list": []any{1.0, "two", nil, true, map[string]any{}}}}},
		Policy: testPolicy(),
		Config: map[string]any{"threshold": 0.5, "names": []any{}, "off": false, "none": nil},
	}
}

// devInputs returns a scan input per frozen dev-corpus facts document.
func devInputs(t testing.TB) map[string]*sdk.ScanInput {
	f, err := os.Open("testdata/dev_facts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]*sdk.ScanInput{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c struct {
			ID, Language, Content string
			Facts                 *sdk.Facts
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		out[c.ID] = &sdk.ScanInput{Facts: c.Facts, Content: c.Content, Language: c.Language, Policy: testPolicy(),
			Context: sdk.RequestContext{ToolName: "exec", TimeoutSeconds: 60}}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < 100 {
		t.Fatalf("only %d dev facts documents", len(out))
	}
	return out
}

// reused is one Decoder that every checkSame call decodes with as well, so
// each document lands in memory the previous (different) document left.
// The fuzz engine may run checks in parallel workers, each its own process.
var (
	reusedMu sync.Mutex
	reused   sdk.Decoder
)

// checkSame decodes b with encoding/json, DecodeScanInput and the reused
// Decoder, and fails unless all fail or all succeed with deeply equal
// results.
func checkSame(t testing.TB, name string, b []byte) {
	t.Helper()
	var want sdk.ScanInput
	jerr := json.Unmarshal(b, &want)
	got, err := sdk.DecodeScanInput(b)
	compare(t, name, b, jerr, want, got, err)
	reusedMu.Lock()
	defer reusedMu.Unlock()
	got, err = reused.Decode(b)
	compare(t, name+" (reused Decoder)", b, jerr, want, got, err)
}

func compare(t testing.TB, name string, b []byte, jerr error, want sdk.ScanInput, got *sdk.ScanInput, err error) {
	t.Helper()
	switch {
	case jerr != nil && err != nil:
	case jerr != nil:
		t.Fatalf("%s: encoding/json rejects (%v) what DecodeScanInput accepts: %q", name, jerr, b)
	case err != nil:
		t.Fatalf("%s: DecodeScanInput: %v; encoding/json accepts: %q", name, err, b)
	case !reflect.DeepEqual(*got, want):
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(&want)
		t.Fatalf("%s: decoders disagree on %q\n got %s\nwant %s\n got %#v\nwant %#v", name, b, g, w, *got, want)
	}
}

func TestDecodeMatchesEncodingJSON(t *testing.T) {
	inputs := devInputs(t)
	inputs["rich"] = richInput()
	inputs["empty"] = &sdk.ScanInput{}
	for name, in := range inputs {
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		checkSame(t, name, b)
		// Indented JSON exercises whitespace everywhere.
		var ind bytes.Buffer
		if err := json.Indent(&ind, b, "", "\t "); err != nil {
			t.Fatal(err)
		}
		checkSame(t, name+"/indented", ind.Bytes())
	}
	// The facts lines themselves, read as scan inputs: "id" and "expect"
	// are unknown fields, "facts", "content", "language" are known.
	raw, err := os.ReadFile("testdata/dev_facts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		checkSame(t, fmt.Sprintf("line %d", i+1), line)
	}
}

// TestDecodeEdgeCases pins the encoding/json behaviours a hand-written
// decoder most easily gets wrong.
func TestDecodeEdgeCases(t *testing.T) {
	cases := map[string]string{
		"null top":            `null`,
		"surrogate pair":      `{"content":"\ud83d\ude00 \u00e9\u0041\/\b\f\n\r\t\"\\"}`,
		"lone high surrogate": `{"content":"\ud83dx \ud83d\u0041 \ude00"}`,
		"invalid utf8":        "{\"content\":\"a\xffb\xc3\x28\xed\xa0\x80\"}",
		"valid utf8":          "{\"content\":\"é😀\u2028\"}",
		"unknown fields":      `{"future":{"a":[1,2,{"b":null}],"c":"\u0000"},"facts":{"version":1,"new_fact":[{}],"commands":[{"id":1,"x":true}]}}`,
		"case-insensitive":    `{"FACTS":{"Version":2,"LANGUAGE":"python"},"Content":"x","policy":{"Allowed_Domains":["a"]}}`,
		"kelvin sign key":     "{\"facts\":{\"version\":1,\"loops\":[{\"\u212aind\":\"x\"}]}}",
		"nulls":               `{"facts":null,"content":null,"context":null,"policy":null,"config":null}`,
		"nulls inside":        `{"facts":{"version":null,"commands":[null,{"id":null,"args":null,"pos":null}],"calls":[{"kwargs":null,"args":[null]}]}}`,
		"empty arrays":        `{"facts":{"commands":[],"files":[{"path":"x"}]},"context":{"command_args":[],"metadata":{}},"config":{}}`,
		"duplicate keys":      `{"facts":{"version":1,"commands":[{"id":1,"name":"a","args":["x","y"]}]},"facts":{"commands":[{"id":2,"args":[null]}],"language":"bash"}}`,
		"duplicate maps":      `{"config":{"a":1},"config":{"b":2},"policy":{"rules":{"R":{"disabled":true}}},"policy":{"rules":{"S":{}}}}`,
		"duplicate pos":       `{"facts":{"loops":[{"pos":{"line":1}}],"loops":[{"pos":{"col":2}}]}}`,
		"numbers":             `{"context":{"timeout_seconds":1e3,"max_output_bytes":-9223372036854775808},"facts":{"version":-0,"sleeps":[{"seconds":-1.5E-2},{"seconds":0}]}}`,
		"big int":             `{"context":{"max_output_bytes":9223372036854775807}}`,
		"int overflow":        `{"context":{"max_output_bytes":9223372036854775808}}`,
		"float into int":      `{"facts":{"version":1.5}}`,
		"exp into int":        `{"facts":{"version":1e2}}`,
		"float overflow":      `{"context":{"timeout_seconds":1e400}}`,
		"any numbers":         `{"config":{"a":1e308,"b":-0.0,"c":[1,[2,[3]]]}}`,
		"any overflow":        `{"config":{"a":1e999}}`,
		"string into int":     `{"facts":{"version":"1"}}`,
		"bool into string":    `{"content":true}`,
		"array into struct":   `{"facts":[]}`,
		"object into slice":   `{"facts":{"commands":{}}}`,
		"number into bool":    `{"facts":{"truncated":1}}`,
		"bad escape":          `{"content":"\x"}`,
		"short unicode":       `{"content":"\u12"}`,
		"control char":        "{\"content\":\"a\nb\"}",
		"leading zero":        `{"facts":{"version":01}}`,
		"trailing dot":        `{"facts":{"version":1.}}`,
		"plus sign":           `{"facts":{"version":+1}}`,
		"trailing comma":      `{"content":"x",}`,
		"trailing garbage":    `{} x`,
		"two values":          `{}{}`,
		"unterminated":        `{"content":"x`,
		"no colon":            `{"content" "x"}`,
		"bare word":           `{"content":nul}`,
		"empty":               ``,
		"spaces only":         "  \n\t",
		"top array":           `[]`,
		"top string":          `"x"`,
		"whitespace":          " \t\n\r{ \"content\" : \"x\" , \"facts\" : { \"commands\" : [ { \"id\" : 1 } ] } }\r\n",
		"deep any":            `{"config":{"a":` + strings.Repeat("[", 500) + strings.Repeat("]", 500) + `}}`,
		"too deep":            `{"config":{"a":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}}`,
		"deep values":         `{"facts":{"calls":[{"args":[` + strings.Repeat(`{"items":[`, 300) + strings.Repeat(`]}`, 300) + `]}]}}`,
	}
	// Every special byte at every offset of the eight-byte fast path.
	for off := 0; off < 20; off++ {
		for _, sp := range []string{`\"`, `\\`, `\n`, `\u00e9`, "é", "\x1f", "\xff", "\x7f", "😀"} {
			pad := strings.Repeat("a", off)
			cases[fmt.Sprintf("special %q at %d", sp, off)] = `{"content":"` + pad + sp + pad + `x","language":"` + pad + `"}`
		}
	}
	for name, doc := range cases {
		checkSame(t, name, []byte(doc))
	}
}

// TestDecoderReusesMemory pins what makes the Decoder worth having inside
// Wasm, where each allocation costs microseconds: once warm, decoding a
// realistic facts document again allocates nothing.
func TestDecoderReusesMemory(t *testing.T) {
	b, err := json.Marshal(richInput())
	if err != nil {
		t.Fatal(err)
	}
	// The rich input's Python values, kwargs and config are built fresh each
	// time (maps and nested values); the dev documents are the common case.
	var biggest []byte
	for _, in := range devInputs(t) {
		if d, err := json.Marshal(in); err == nil && len(d) > len(biggest) {
			biggest = d
		}
	}
	var dec sdk.Decoder
	for _, doc := range [][]byte{b, biggest} {
		if _, err := dec.Decode(doc); err != nil {
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := dec.Decode(biggest); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0 {
		t.Errorf("Decoder.Decode of a %d-byte document allocates %.0f times per call once warm, want 0", len(biggest), allocs)
	}
	fresh := testing.AllocsPerRun(5, func() {
		if _, err := sdk.DecodeScanInput(biggest); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("allocations per document: Decoder %.0f, DecodeScanInput %.0f", allocs, fresh)
}

func TestDecodeErrorsNameTheField(t *testing.T) {
	_, err := sdk.DecodeScanInput([]byte(`{"facts":{"commands":[{"id":"one"}]}}`))
	if err == nil || !strings.Contains(err.Error(), "command.id") || !strings.Contains(err.Error(), "facts.commands") {
		t.Fatalf("err = %v, want one naming facts.commands and command.id", err)
	}
}

func FuzzDecodeScanInput(f *testing.F) {
	for _, in := range []*sdk.ScanInput{richInput(), {}} {
		b, err := json.Marshal(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	raw, err := os.ReadFile("testdata/dev_facts.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n"))[:20] {
		f.Add(line)
	}
	f.Add([]byte(`{"content":"\ud83d\ude00\ud800","FACTS":{"version":1},"facts":{"commands":[null]},"config":{"a":[1e3]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkSame(t, "fuzz", b)
	})
}

func ExampleDecodeScanInput() {
	in, err := sdk.DecodeScanInput([]byte(`{"facts":{"version":1,"language":"bash",
		"commands":[{"id":1,"name":"rm","args":["-rf","/"],"pos":{"line":1,"col":1}}]},
		"language":"bash","policy":{"name":"default"},"added_by_a_newer_host":true}`))
	if err != nil {
		panic(err)
	}
	c := in.Facts.Commands[0]
	fmt.Println(c.Name, strings.Join(c.Args, " "), "under policy", in.Policy.Name)
	// Output: rm -rf / under policy default
}

// A Decoder serves one scan after another from the same memory; copy what
// must outlive the next Decode.
func ExampleDecoder() {
	var dec sdk.Decoder
	var kept []string
	for _, doc := range []string{
		`{"facts":{"version":1,"commands":[{"id":1,"name":"git","args":["status"]}]}}`,
		`{"facts":{"version":1,"commands":[{"id":1,"name":"curl","args":["-fsSL","https://example.com"]}]}}`,
	} {
		in, err := dec.Decode([]byte(doc))
		if err != nil {
			panic(err)
		}
		c := in.Facts.Commands[0]
		fmt.Println(c.Name, c.Args)
		kept = append(kept, strings.Clone(c.Name))
	}
	fmt.Println(kept)
	// Output:
	// git [status]
	// curl [-fsSL https://example.com]
	// [git curl]
}

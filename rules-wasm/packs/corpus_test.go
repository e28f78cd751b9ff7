package packs_test

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/toolwarden/toolwarden/rules-wasm/packs"
	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/packtest"
	"github.com/toolwarden/toolwarden/sdk"
)

// corpusCase is one labelled dev-corpus case with the facts the analyzers
// produced for it, frozen in testdata so the rule logic is tested on its own.
type corpusCase struct {
	ID       string     `json:"id"`
	Language string     `json:"language"`
	Content  string     `json:"content"`
	Expect   string     `json:"expect"`
	Facts    *sdk.Facts `json:"facts"`
}

func loadCases(tb testing.TB) []corpusCase {
	tb.Helper()
	f, err := os.Open("testdata/dev_facts.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []corpusCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		var c corpusCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			tb.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

func decide(tb testing.TB, in *sdk.ScanInput) (sdk.Decision, []string) {
	d := sdk.Allow
	var ids []string
	for _, p := range packs.All() {
		fs, err := p.Scan(in)
		if err != nil {
			tb.Fatalf("%s: %v", p.Info().Name, err)
		}
		for _, f := range fs {
			if f.Decision.Severity() > d.Severity() {
				d = f.Decision
			}
			ids = append(ids, f.RuleID)
		}
	}
	return d, ids
}

// TestDevCorpusFacts checks every labelled dev case against the packs, from
// frozen facts and the evaluation policy the labels assume.
func TestDevCorpusFacts(t *testing.T) {
	pol := packtest.Policy()
	cases := loadCases(t)
	if len(cases) < 100 {
		t.Fatalf("only %d cases in testdata", len(cases))
	}
	for _, c := range cases {
		in := &sdk.ScanInput{Facts: c.Facts, Content: c.Content, Language: c.Language, Policy: pol}
		if got, ids := decide(t, in); string(got) != c.Expect {
			t.Errorf("%s: got %s %v, want %s", c.ID, got, ids, c.Expect)
		}
	}
}

// BenchmarkPacksDevCorpus measures decoding a scan input and running every
// pack on it, as one Wasm call per pack would, averaged over the corpus.
func BenchmarkPacksDevCorpus(b *testing.B) {
	pol := packtest.Policy()
	var inputs [][]byte
	for _, c := range loadCases(b) {
		raw, _ := json.Marshal(&sdk.ScanInput{Facts: c.Facts, Content: c.Content, Language: c.Language, Policy: pol})
		inputs = append(inputs, raw)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		raw := inputs[i%len(inputs)]
		for _, p := range packs.All() {
			var in sdk.ScanInput
			if err := json.Unmarshal(raw, &in); err != nil {
				b.Fatal(err)
			}
			if _, err := p.Scan(&in); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkScanOnly measures the packs' judging alone, on decoded inputs
// with a shared policy pointer (the native host's situation).
func BenchmarkScanOnly(b *testing.B) {
	pol := packtest.Policy()
	var inputs []*sdk.ScanInput
	for _, c := range loadCases(b) {
		inputs = append(inputs, &sdk.ScanInput{Facts: c.Facts, Content: c.Content, Language: c.Language, Policy: pol})
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in := inputs[i%len(inputs)]
		for _, p := range packs.All() {
			if _, err := p.Scan(in); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// FuzzPacks feeds arbitrary scan inputs to every pack: a pack may return an
// error, but it must never panic (in Wasm a panic costs an instance).
func FuzzPacks(f *testing.F) {
	for i, c := range loadCases(f) {
		if i%10 != 0 {
			continue
		}
		raw, _ := json.Marshal(&sdk.ScanInput{Facts: c.Facts, Content: c.Content, Language: c.Language, Policy: packtest.Policy()})
		f.Add(raw)
	}
	f.Add([]byte(`{"facts":{"commands":[{"name":"rm","args":["-rf"],"dynamic_args":[5]}],"files":[{"path":"/home/","op":"delete","recursive":true}]}}`))
	f.Add([]byte(`{"facts":{"network":[{"url":"$(","host":"[::"}],"commands":[{"name":"curl","args":["http://$(x","-o"]}]}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var in sdk.ScanInput
		if json.Unmarshal(raw, &in) != nil {
			return
		}
		for _, p := range packs.All() {
			_, _ = p.Scan(&in)
		}
	})
}

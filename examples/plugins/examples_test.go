package plugins_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/sdk"
)

// exampleCase is one line of an example's cases.jsonl, the corpus format
// of `toolwarden plugin test`.
type exampleCase struct {
	Name     string       `json:"name"`
	Content  string       `json:"content"`
	Language string       `json:"language"`
	Decision sdk.Decision `json:"decision"`
	Rules    []string     `json:"rules"`
}

// judgeCorpus loads wasm as the only rule plugin of an engine, as the
// server would run an uploaded one, and checks every case of the corpus.
func judgeCorpus(t *testing.T, wasm []byte, corpus string) {
	t.Helper()
	f, err := os.Open(corpus)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []exampleCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var c exampleCase
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("%s: %v", corpus, err)
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		t.Fatalf("%s has no cases", corpus)
	}
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.Options{Policy: policies.Default(), Packs: []engine.Pack{},
		Plugins: map[string][]byte{"example": wasm}, CacheDir: "-"})
	if err != nil {
		t.Fatalf("load the example plugin: %v", err)
	}
	defer eng.Close(ctx)
	for _, c := range cases {
		rep, err := eng.Scan(ctx, engine.Request{ToolName: "examples", Language: c.Language, Content: c.Content})
		if err != nil {
			t.Errorf("%s: scan: %v", c.Name, err)
			continue
		}
		var got []string
		for _, f := range rep.Findings {
			got = append(got, f.RuleID)
		}
		sort.Strings(got)
		got = slices.Compact(got)
		want := slices.Clone(c.Rules)
		sort.Strings(want)
		if rep.Decision != c.Decision || !slices.Equal(got, want) {
			t.Errorf("%s: decision %s rules %v, want %s %v (findings %+v)", c.Name, rep.Decision, got, c.Decision, want, rep.Findings)
		}
	}
}

// TestWATExample builds the hand-written WebAssembly text plugin with
// wabt and judges its corpus. CI installs wabt (.ci/run); elsewhere the
// test skips when wat2wasm is missing.
func TestWATExample(t *testing.T) {
	wat2wasm, err := exec.LookPath("wat2wasm")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("wat2wasm not found under CI=true (.ci/run installs the wabt package): %v", err)
		}
		t.Skip("wat2wasm (Debian package wabt) is not installed; apt-get install -y wabt to run this test")
	}
	out := filepath.Join(t.TempDir(), "wat-miner.wasm")
	cmd := exec.Command(wat2wasm, filepath.Join("wat-miner", "miner.wat"), "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("wat2wasm: %v\n%s", err, b)
	}
	wasm, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	judgeCorpus(t, wasm, filepath.Join("wat-miner", "cases.jsonl"))
}

// TestGoExample builds the Go plugin from its source the way `toolwarden
// plugin build` does and judges its corpus.
func TestGoExample(t *testing.T) {
	out := filepath.Join(t.TempDir(), "go-git-guard.wasm")
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-trimpath", "-o", out, ".")
	cmd.Dir = "go-git-guard"
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "GOWORK=off", "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	wasm, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	judgeCorpus(t, wasm, filepath.Join("go-git-guard", "cases.jsonl"))
}

// TestGoExampleUnitTests runs the Go example's own native tests, which an
// author runs with go test in the plugin's module.
func TestGoExampleUnitTests(t *testing.T) {
	cmd := exec.Command("go", "test", "-count=1", "./...")
	cmd.Dir = "go-git-guard"
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test in go-git-guard: %v\n%s", err, b)
	}
}

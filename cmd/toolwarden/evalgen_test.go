package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/policies"
)

// devCorpus is the dev corpus the generated eval corpora are made from.
var devCorpus = filepath.Join("..", "..", "engine", "testdata", "dev_cases.jsonl")

// genEvalCorpus returns n unique cases of the dev corpus's sizes: case i is
// dev case i mod len(dev) with a comment line naming i put first (both bash
// and Python read "#" as a comment), so no two contents are equal and each
// is judged like its dev case. The labels stay those of the dev case.
func genEvalCorpus(t testing.TB, n int) []byte {
	t.Helper()
	raw, err := os.ReadFile(devCorpus)
	if err != nil {
		t.Fatalf("read dev corpus: %v", err)
	}
	var dev []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c map[string]any
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("dev corpus: %v", err)
		}
		dev = append(dev, c)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	for i := 0; i < n; i++ {
		c := map[string]any{}
		for k, v := range dev[i%len(dev)] {
			c[k] = v
		}
		c["id"] = fmt.Sprintf("%s-%05d", c["id"], i)
		c["content"] = fmt.Sprintf("# generated case %d\n%s", i, c["content"])
		if err := enc.Encode(c); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

// TestWriteEvalCorpus writes the 4 000-case corpus of the whole-process eval
// bar to $TOOLWARDEN_EVAL_CORPUS_OUT, so it can be measured with the
// binary and `time` (see BENCHMARKS.md); skipped without the variable.
func TestWriteEvalCorpus(t *testing.T) {
	out := os.Getenv("TOOLWARDEN_EVAL_CORPUS_OUT")
	if out == "" {
		t.Skip("set TOOLWARDEN_EVAL_CORPUS_OUT=FILE to write the 4 000-case eval corpus")
	}
	if err := os.WriteFile(out, genEvalCorpus(t, 4000), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestEvalParallelKeepsOrder scans a generated corpus with many workers and
// with one: the lines come out in corpus order and say the same.
func TestEvalParallelKeepsOrder(t *testing.T) {
	corpus := genEvalCorpus(t, 500)
	eng, err := engine.New(context.Background(), engine.Options{Policy: policies.Default(), Packs: engine.NativePacks()})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(context.Background())
	run := func(workers int) []map[string]any {
		var out bytes.Buffer
		if _, err := runEvalWorkers(context.Background(), eng, bytes.NewReader(corpus), &out, workers); err != nil {
			t.Fatalf("%d workers: %v", workers, err)
		}
		var lines []map[string]any
		for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("bad line %q: %v", l, err)
			}
			delete(m, "elapsed_ms")
			if s, ok := m["summary"].(map[string]any); ok {
				delete(s, "p50_ms")
				delete(s, "p99_ms")
			}
			lines = append(lines, m)
		}
		return lines
	}
	one, many := run(1), run(8)
	if len(many) != 501 || len(one) != len(many) {
		t.Fatalf("%d and %d lines, want 501 (500 cases and a summary)", len(one), len(many))
	}
	ids := bytes.Split(bytes.TrimSpace(corpus), []byte("\n"))
	for i := 0; i < 500; i++ {
		var c struct{ ID string }
		_ = json.Unmarshal(ids[i], &c)
		if many[i]["id"] != c.ID {
			t.Fatalf("line %d is case %v, want %s: parallel eval must keep corpus order", i, many[i]["id"], c.ID)
		}
		a, _ := json.Marshal(one[i])
		b, _ := json.Marshal(many[i])
		if !bytes.Equal(a, b) {
			t.Fatalf("case %s: one worker says %s, eight say %s", c.ID, a, b)
		}
	}
	a, _ := json.Marshal(one[500])
	b, _ := json.Marshal(many[500])
	if !bytes.Equal(a, b) {
		t.Fatalf("summaries differ: %s vs %s", a, b)
	}
}

// TestEvalParallelStopsAtBadLine: a malformed line ends the run with an
// error naming it, after the cases before it were written in order.
func TestEvalParallelStopsAtBadLine(t *testing.T) {
	corpus := append(genEvalCorpus(t, 50), []byte("{not json\n")...)
	corpus = append(corpus, genEvalCorpus(t, 5)...)
	eng, err := engine.New(context.Background(), engine.Options{Policy: policies.Default(), Packs: engine.NativePacks()})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(context.Background())
	var out bytes.Buffer
	_, err = runEvalWorkers(context.Background(), eng, bytes.NewReader(corpus), &out, 4)
	if err == nil || !strings.Contains(err.Error(), "corpus line 51") {
		t.Fatalf("err = %v, want one naming corpus line 51", err)
	}
	if n := strings.Count(out.String(), "\n"); n != 50 {
		t.Fatalf("%d lines before the bad one, want 50", n)
	}
}

// BenchmarkEvalProcess4000 is the whole-process eval bar: the binary run
// on 4 000 unique dev-corpus-sized cases, start-up included (the
// compilation cache is warm after the first run). It reports seconds per
// run and cases per second.
func BenchmarkEvalProcess4000(b *testing.B) {
	dir := b.TempDir()
	corpus := filepath.Join(dir, "eval4000.jsonl")
	if err := os.WriteFile(corpus, genEvalCorpus(b, 4000), 0o644); err != nil {
		b.Fatal(err)
	}
	var total time.Duration
	for b.Loop() {
		start := time.Now()
		out, err := exec.Command(bin, "eval", "--corpus", corpus).Output()
		if err != nil {
			b.Fatalf("eval: %v", err)
		}
		total += time.Since(start)
		if n := bytes.Count(out, []byte("\n")); n != 4001 {
			b.Fatalf("eval printed %d lines, want 4001", n)
		}
	}
	per := total.Seconds() / float64(b.N)
	b.ReportMetric(per, "s/run")
	b.ReportMetric(4000/per, "cases/s")
}

package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// corpusCase is the part of a corpus line the eval tests compare against.
type corpusCase struct {
	ID     string `json:"id"`
	Expect string `json:"expect"`
}

// readCorpus reads the ids and labels of a JSONL corpus in order.
func readCorpus(t *testing.T, path string) []corpusCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open corpus: %v", err)
	}
	defer f.Close()
	var out []corpusCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c corpusCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("corpus %s: %v", path, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read corpus: %v", err)
	}
	return out
}

// evalLine is one per-case line of eval's output.
type evalLine struct {
	ID        string   `json:"id"`
	Decision  string   `json:"decision"`
	RiskLevel string   `json:"risk_level"`
	RuleIDs   []string `json:"rule_ids"`
	ElapsedMS *float64 `json:"elapsed_ms"`
}

// evalSummaryLine is the last line of eval's output.
type evalSummaryLine struct {
	Summary *struct {
		Cases          int                       `json:"cases"`
		Labelled       int                       `json:"labelled"`
		Errors         int                       `json:"errors"`
		Confusion      map[string]map[string]int `json:"confusion"`
		ExactAgreement float64                   `json:"exact_agreement"`
		DenyRecall     float64                   `json:"deny_recall"`
		FalseDenyRate  float64                   `json:"false_deny_rate"`
	} `json:"summary"`
}

func TestEvalCorpus(t *testing.T) {
	corpus := filepath.Join("testdata", "eval_cases.jsonl")
	cases := readCorpus(t, corpus)
	r := tw(t, "eval", "--corpus", corpus, "--policy", filepath.Join("testdata", "eval_policy.yaml"))
	wantCode(t, r, 0)

	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != len(cases)+1 {
		t.Fatalf("%d output lines for %d cases, want one per case and a summary:\n%s", len(lines), len(cases), r)
	}

	// One line per case, in corpus order, with the documented keys.
	got := map[string]map[string]int{}
	for i, c := range cases {
		var raw map[string]any
		decodeJSON(t, "case line", lines[i], &raw)
		for _, k := range []string{"id", "decision", "risk_level", "rule_ids", "elapsed_ms"} {
			if _, ok := raw[k]; !ok {
				t.Errorf("case line %d has no %q: %s", i+1, k, lines[i])
			}
		}
		var l evalLine
		decodeJSON(t, "case line", lines[i], &l)
		if l.ID != c.ID {
			t.Fatalf("line %d is case %q, want %q (corpus order)", i+1, l.ID, c.ID)
		}
		if l.RuleIDs == nil || l.ElapsedMS == nil || *l.ElapsedMS < 0 {
			t.Errorf("%s: rule_ids %v elapsed_ms %v, want an array and a non-negative number", l.ID, l.RuleIDs, l.ElapsedMS)
		}
		// These cases are unambiguous under the corpus policy: each must be
		// decided as labelled, for a reason when it is not an allow.
		if l.Decision != c.Expect {
			t.Errorf("%s: decided %s %v, labelled %s", l.ID, l.Decision, l.RuleIDs, c.Expect)
		}
		if l.Decision != "allow" && (len(l.RuleIDs) == 0 || l.RiskLevel == "none") {
			t.Errorf("%s: decision %s with risk %s and rules %v: no reason given", l.ID, l.Decision, l.RiskLevel, l.RuleIDs)
		}
		if got[c.Expect] == nil {
			got[c.Expect] = map[string]int{}
		}
		got[c.Expect][l.Decision]++
	}
	byID := map[string][]string{}
	for _, l := range lines[:len(cases)] {
		var el evalLine
		decodeJSON(t, "case line", l, &el)
		byID[el.ID] = el.RuleIDs
	}
	for id, rule := range map[string]string{
		"sh-deny-destructive-delete-02": "BASH_RECURSIVE_DELETE",
		"sh-deny-fork-bomb-01":          "BASH_FORK_BOMB",
		"py-review-process-exec-07":     "PY_PROCESS_EXECUTION_REVIEW",
	} {
		if !slices.Contains(byID[id], rule) {
			t.Errorf("%s: rules %v, want %s", id, byID[id], rule)
		}
	}

	// The summary line: counts and a confusion matrix that agree with the
	// lines above.
	var s evalSummaryLine
	decodeJSON(t, "summary line", lines[len(cases)], &s)
	if s.Summary == nil {
		t.Fatalf("last line is not a {\"summary\":…} object: %s", lines[len(cases)])
	}
	sum := s.Summary
	if sum.Cases != len(cases) || sum.Labelled != len(cases) || sum.Errors != 0 {
		t.Errorf("summary cases %d labelled %d errors %d, want %d, %d, 0", sum.Cases, sum.Labelled, sum.Errors,
			len(cases), len(cases))
	}
	for exp, row := range got {
		for dec, n := range row {
			if sum.Confusion[exp][dec] != n {
				t.Errorf("confusion[%s][%s] = %d, the case lines say %d", exp, dec, sum.Confusion[exp][dec], n)
			}
		}
	}
	for exp, row := range sum.Confusion {
		for dec, n := range row {
			if got[exp][dec] != n {
				t.Errorf("confusion[%s][%s] = %d, the case lines say %d", exp, dec, n, got[exp][dec])
			}
		}
	}
	if !t.Failed() && (sum.ExactAgreement != 1 || sum.DenyRecall != 1 || sum.FalseDenyRate != 0) {
		t.Errorf("agreement %v deny recall %v false denies %v, want 1, 1, 0 for a corpus decided as labelled",
			sum.ExactAgreement, sum.DenyRecall, sum.FalseDenyRate)
	}
	// The readable summary goes to stderr.
	wantContains(t, "stderr", r.stderr, "cases 15, labelled 15", "exact agreement 100.0%")
}

func TestEvalMalformedLineNamesLineNumber(t *testing.T) {
	r := tw(t, "eval", "--corpus", filepath.Join("testdata", "eval_malformed.jsonl"))
	wantCode(t, r, 3)
	// Line 2 is blank and skipped; line 3 is cut short.
	wantContains(t, "stderr", r.stderr, "line 3")
	if strings.Contains(r.stdout, `"summary"`) {
		t.Errorf("a corpus with a malformed line got a summary:\n%s", r.stdout)
	}
}

func TestEvalUsageErrors(t *testing.T) {
	r := tw(t, "eval")
	wantCode(t, r, 3)
	wantContains(t, "stderr", r.stderr, "--corpus")

	missing := filepath.Join(t.TempDir(), "absent.jsonl")
	r = tw(t, "eval", "--corpus", missing)
	wantCode(t, r, 3)
	wantContains(t, "stderr", r.stderr, "absent.jsonl")

	r = tw(t, "eval", "--corpus", filepath.Join("testdata", "eval_cases.jsonl"),
		"--policy", filepath.Join("testdata", "policies", "negative_limit.yaml"))
	wantCode(t, r, 3)
	wantContains(t, "stderr", r.stderr, "negative_limit.yaml", "max_output_bytes")
}

func TestEvalUnlabelledCases(t *testing.T) {
	corpus := writeFile(t, t.TempDir(), "unlabelled.jsonl",
		`{"id": "u1", "language": "bash", "content": "ls"}`+"\n"+
			`{"id": "u2", "language": "python", "content": "import os\nos.system('rm -rf /')"}`+"\n")
	r := tw(t, "eval", "--corpus", corpus)
	wantCode(t, r, 0)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want two cases and a summary:\n%s", len(lines), r)
	}
	var u2 evalLine
	decodeJSON(t, "case line", lines[1], &u2)
	if u2.ID != "u2" || u2.Decision != "deny" {
		t.Errorf("u2 decided %q, want deny", u2.Decision)
	}
	var s evalSummaryLine
	decodeJSON(t, "summary line", lines[2], &s)
	if s.Summary == nil || s.Summary.Cases != 2 || s.Summary.Labelled != 0 || len(s.Summary.Confusion) != 0 {
		t.Errorf("summary %+v, want 2 cases, none labelled, an empty confusion matrix", s.Summary)
	}
}

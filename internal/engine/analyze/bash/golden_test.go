package bash

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strconv"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden facts files in testdata")

// TestGoldenFacts pins the complete facts document of the benchmark
// scripts, so that work on the analyzer's speed cannot change what it
// reports without the diff showing up here. Regenerate with -update only
// for an intended change of behaviour.
func TestGoldenFacts(t *testing.T) {
	bench1k, err := os.ReadFile("../../../../engine/testdata/bench_1k.sh")
	if err != nil {
		t.Fatalf("read bench script: %v", err)
	}
	for _, tc := range []struct{ name, src string }{
		{"bench_1k", string(bench1k)},
		{"typical", typicalScript},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.MarshalIndent(run(t, tc.src), "", " ")
			if err != nil {
				t.Fatalf("marshal facts: %v", err)
			}
			got = append(got, '\n')
			file := "testdata/" + tc.name + ".facts.json"
			if *updateGolden {
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatalf("write golden: %v", err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("read golden (run with -update to create it): %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("facts of %s differ from %s:\n%s", tc.name, file, firstDiff(string(want), string(got)))
			}
		})
	}
}

// firstDiff shows the first differing line of two texts with a little
// context, which is what a reader needs to see what changed.
func firstDiff(want, got string) string {
	wl, gl := bytes.Split([]byte(want), []byte("\n")), bytes.Split([]byte(got), []byte("\n"))
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g []byte
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if !bytes.Equal(w, g) {
			return "line " + strconv.Itoa(i+1) + ":\n want: " + string(w) + "\n  got: " + string(g)
		}
	}
	return "(no line differs)"
}

package bash

import (
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/internal/engine/facts"
)

// typicalScript is about 1 KB of the shell an agent sends: a build script
// with variables, a function, a loop, pipes and redirections.
const typicalScript = `#!/usr/bin/env bash
set -euo pipefail
ROOT=$(git rev-parse --show-toplevel)
cd "$ROOT"
OUT=build/out
log() { printf '[build] %s\n' "$*"; }
log "preparing $OUT"
rm -rf "$OUT" && mkdir -p "$OUT"
for pkg in ./internal/policy ./internal/scanner; do
  go test -count=1 -run 'Test' "$pkg" 2>&1 | tee -a "$OUT/test.log"
done
find . -name '*.go' -not -path './vendor/*' | xargs gofmt -l > "$OUT/fmt.txt"
if [ -s "$OUT/fmt.txt" ]; then
  echo "unformatted files:" >&2
  cat "$OUT/fmt.txt"
fi
grep -rn "TODO" --include="*.go" internal | sort | uniq -c | sort -rn | head -n 20
tar -czf "$OUT/site.tgz" -C build site
curl -fsS -o "$OUT/deps.json" https://proxy.golang.org/github.com/google/uuid/@v/list
go build -ldflags "-X main.commit=$(git rev-parse --short HEAD)" -o bin/app ./cmd/app
echo "done: $(date +%s)"
`

func benchmarkAnalyze(b *testing.B, src string) {
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		fb := facts.NewBuilder("bash", map[string]facts.AnalyzeFunc{"bash": Analyze})
		Analyze(fb, src, facts.Top)
	}
}

// BenchmarkAnalyze1KB measures a typical 1 KB script (target ≤ 50 µs).
func BenchmarkAnalyze1KB(b *testing.B) { benchmarkAnalyze(b, typicalScript) }

// BenchmarkAnalyze20KB measures a 20 KB script made of the same content.
func BenchmarkAnalyze20KB(b *testing.B) {
	benchmarkAnalyze(b, strings.Repeat(typicalScript, 20*1024/len(typicalScript)+1))
}

// BenchmarkParseOnly1KB is the floor the analyzer builds on: parsing the
// 1 KB script without looking at it. Compare BenchmarkAnalyze1KB to it.
func BenchmarkParseOnly1KB(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		k := parserPool.Get().(*parserKit)
		k.p.Parse(k.reader(typicalScript), "")
		k.put()
	}
}

// shortCommand is the engine's short-scan command (engine/bench_test.go).
const shortCommand = "cd /srv/app && git status --short && go test ./... 2>&1 | tail -n 20"

// BenchmarkAnalyzeShort measures a typical agent command (≤ 100 bytes),
// the analyzer's share of the engine's ScanNativeShort.
func BenchmarkAnalyzeShort(b *testing.B) { benchmarkAnalyze(b, shortCommand) }

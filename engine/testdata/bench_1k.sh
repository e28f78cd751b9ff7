#!/usr/bin/env bash
# Prepare a developer workspace and run the checks.
set -euo pipefail

ROOT=$(git rev-parse --show-toplevel)
cd "$ROOT"

log() { printf '[setup] %s\n' "$*"; }

log "checking toolchain"
go version
python3 --version

log "creating build directories"
mkdir -p build/reports build/cache build/bin

log "verifying module graph"
go mod verify

for f in testdata/*.tmpl; do
  out="${f%.tmpl}.json"
  log "  $f -> $out"
  cp "$f" "$out"
done

log "compiling"
go build -o build/bin/app ./cmd/app
go test -count=1 ./internal/... > build/reports/test.log 2>&1 || {
  tail -n 50 build/reports/test.log
  exit 1
}
git log --oneline -n 5 | cat
curl -fsSL https://github.com/org/repo/releases/download/v1/checksums.txt -o build/checksums.txt
sha256sum build/bin/app
ls -la build
log "done"

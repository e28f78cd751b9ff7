package wasmhost

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestABIDocExample keeps the minimal plugin printed in sdk/ABI.md honest:
// the same module, assembled here, loads and scans, and the packed
// constants the document prints match its data.
func TestABIDocExample(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "sdk", "ABI.md"))
	if err != nil {
		t.Fatalf("read ABI.md: %v", err)
	}
	describe := `{"name":"handmade","version":"0.1","rules":[{"id":"CONST_RULE","risk_type":"process_command","risk":"high","decision":"deny","description":"always fires"}]}`
	scan := `{"findings":[{"rule_id":"CONST_RULE","evidence":"hand-assembled"}]}`
	watString := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }
	for _, want := range []string{
		watString(describe),
		watString(scan),
		fmt.Sprintf("(i64.const 0x%x_%08x)", constDescribeAt, len(describe)),
		fmt.Sprintf("(i64.const 0x%x_%08x)", constScanAt, len(scan)),
	} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("ABI.md example does not contain %s", want)
		}
	}
	h := newHost(t, Options{PoolSize: 1})
	p, err := h.Load(context.Background(), "doc", constPlugin{abiVersion: 1, describe: describe, scan: scan}.wasm())
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	findings, err := p.Scan(context.Background(), input(t, "x", nil))
	if err != nil || len(findings) != 1 || findings[0].Decision != "deny" {
		t.Fatalf("Scan = %+v, %v", findings, err)
	}

	// The package example loads the same module from testdata.
	wasm := constPlugin{abiVersion: 1, describe: describe, scan: scan}.wasm()
	const fixture = "testdata/handmade.wasm"
	if *update {
		if err := os.WriteFile(fixture, wasm, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := os.ReadFile(fixture); err != nil || !bytes.Equal(got, wasm) {
		t.Errorf("%s is stale or missing (err %v); rerun with -update", fixture, err)
	}
}

var update = flag.Bool("update", false, "rewrite testdata fixtures")

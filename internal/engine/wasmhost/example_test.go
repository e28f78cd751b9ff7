package wasmhost_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/toolwarden/toolwarden/internal/engine/wasmhost"
	"github.com/toolwarden/toolwarden/sdk"
)

// A host loads a plugin once and scans many inputs with it. The input is
// the JSON of an sdk.ScanInput, encoded once and shared by all plugins; an
// error from Scan must become a RULE_PLUGIN_ERROR finding, never "allow".
func Example() {
	ctx := context.Background()
	h, err := wasmhost.New(ctx, wasmhost.Options{PoolSize: 2, CallTimeout: time.Minute})
	if err != nil {
		panic(err)
	}
	defer h.Close(ctx)

	// testdata/handmade.wasm is the minimal plugin printed in sdk/ABI.md.
	wasm, err := os.ReadFile("testdata/handmade.wasm")
	if err != nil {
		panic(err)
	}
	p, err := h.Load(ctx, "handmade.wasm", wasm)
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Info().Name, p.Info().Rules[0].ID)

	input, _ := json.Marshal(sdk.ScanInput{Content: "rm -rf /", Language: "bash"})
	findings, err := p.Scan(ctx, input)
	if err != nil {
		fmt.Println("fail closed:", err)
		return
	}
	for _, f := range findings {
		// risk_level and decision come from the rule's declaration.
		fmt.Println(f.RuleID, f.RiskLevel, f.Decision, f.Evidence)
	}
	// Output:
	// handmade CONST_RULE
	// CONST_RULE high deny hand-assembled
}

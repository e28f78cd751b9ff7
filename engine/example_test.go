package engine_test

import (
	"context"
	"fmt"

	"github.com/toolwarden/toolwarden/engine"
)

// Scanning a command: the built-in rules (here compiled natively; without
// Options.Packs the engine runs them in Wasm) judge what would run, not what
// is written — the quotes hiding rm do not help.
func ExampleEngine_Scan() {
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.Options{Policy: engine.DefaultPolicy(), Packs: engine.NativePacks()})
	if err != nil {
		panic(err)
	}
	defer eng.Close(ctx)
	for _, cmd := range []string{`echo "rm -rf /"`, `r''m -rf /`} {
		rep, err := eng.Scan(ctx, engine.Request{Language: "bash", Content: cmd})
		if err != nil {
			panic(err)
		}
		fmt.Println(cmd, "→", rep.Decision, rep.RuleIDs())
	}
	// Output:
	// echo "rm -rf /" → allow []
	// r''m -rf / → deny [BASH_RECURSIVE_DELETE]
}

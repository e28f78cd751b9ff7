package engine_test

import (
	"context"
	"testing"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/engine/wasmhost"
	"github.com/toolwarden/toolwarden/internal/policies"
)

// TestBuiltinPacksRunBounded: the engine loads the built-in packs without
// the interrupt check (bounded) unless CheckedBuiltins, and a fresh engine
// is healthy.
func TestBuiltinPacksRunBounded(t *testing.T) {
	for _, checked := range []bool{false, true} {
		e, err := engine.New(context.Background(), engine.Options{Policy: policies.Default(), CacheDir: "-", PoolSize: 1, CheckedBuiltins: checked})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Health(); err != nil {
			t.Errorf("checked=%v: fresh engine unhealthy: %v", checked, err)
		}
		if _, err := e.Scan(context.Background(), engine.Request{Language: "bash", Content: "ls"}); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, p := range e.Packs() {
			if pl, ok := p.(*wasmhost.Plugin); ok {
				n++
				if pl.Stats().Bounded == checked {
					t.Errorf("checked=%v: pack %s bounded=%v", checked, pl.Name(), pl.Stats().Bounded)
				}
			}
		}
		if n == 0 {
			t.Errorf("checked=%v: no Wasm packs loaded", checked)
		}
		e.Close(context.Background())
	}
}

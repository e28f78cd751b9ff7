// Package builtin carries the built-in rule packs, compiled to Wasm by
// `go tool task rules`, inside the toolwarden binary so that it runs from any
// directory with no extra files.
package builtin

import (
	"embed"
	"errors"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed wasm
var files embed.FS

// ErrNotBuilt is returned when the binary was built without its rule packs.
// Scanning without them would silently allow everything, so callers refuse
// to start instead.
var ErrNotBuilt = errors.New("built-in rule packs are missing from this build; run `go tool task rules` (or `go tool task build`) first")

// Pack is one built-in rule pack.
type Pack struct {
	// Name is the pack's file name without .wasm ("filesystem").
	Name string
	// Wasm is the compiled module.
	Wasm []byte
}

// Packs returns the embedded rule packs sorted by name, or ErrNotBuilt.
func Packs() ([]Pack, error) {
	entries, err := fs.ReadDir(files, "wasm")
	if err != nil {
		return nil, err
	}
	var packs []Pack
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".wasm") {
			continue
		}
		b, err := files.ReadFile(path.Join("wasm", e.Name()))
		if err != nil {
			return nil, err
		}
		packs = append(packs, Pack{Name: strings.TrimSuffix(e.Name(), ".wasm"), Wasm: b})
	}
	if len(packs) == 0 {
		return nil, ErrNotBuilt
	}
	sort.Slice(packs, func(i, j int) bool { return packs[i].Name < packs[j].Name })
	return packs, nil
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/toolwarden/toolwarden/internal/engine/wasmhost"
	"github.com/toolwarden/toolwarden/sdk"
)

// inspectTimeout bounds instantiating the module and calling abi_version:
// inspect runs modules of unknown origin, which may never return.
const inspectTimeout = 10 * time.Second

// moduleReport is what inspect prints: what a server sees of a module
// before it activates it.
type moduleReport struct {
	File       string          `json:"file"`
	Size       int             `json:"size"`
	Digest     string          `json:"digest"`
	ABIVersion uint32          `json:"abi_version,omitempty"`
	Imports    []string        `json:"imports"`
	Exports    []string        `json:"exports"`
	Describe   *sdk.PluginInfo `json:"describe,omitempty"`
	// Error says why the module would not load; the fields above are what
	// could be read anyway.
	Error string `json:"error,omitempty"`
}

func newPluginInspectCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "inspect FILE.wasm",
		Short: "Show a plugin module's digest, ABI version, imports, exports and declared rules",
		Long: `Inspect reads FILE.wasm as a server would before accepting it: its sha256 digest (the revision's
address), the functions it imports and exports, the ABI version it reports, and its describe output validated
by the host. A module the host would refuse is reported with the reason, and inspect exits 1.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			wasm, err := readModule(args[0])
			if err != nil {
				return usageErr(err)
			}
			rep := inspectModule(cmd.Context(), args[0], wasm)
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return usageErr(err)
				}
			} else {
				fmt.Fprintf(w, "file:     %s (%d bytes)\n", rep.File, rep.Size)
				fmt.Fprintf(w, "digest:   %s\n", rep.Digest)
				fmt.Fprintf(w, "abi:      %d\n", rep.ABIVersion)
				fmt.Fprintf(w, "imports:  %s\n", strings.Join(rep.Imports, " "))
				fmt.Fprintf(w, "exports:  %s\n", strings.Join(rep.Exports, " "))
				if d := rep.Describe; d != nil {
					fmt.Fprintf(w, "plugin:   %s %s\n", d.Name, d.Version)
					for _, r := range d.Rules {
						fmt.Fprintf(w, "rule:     %s  %s/%s  %s  %s\n", r.ID, r.Risk, r.Decision, r.RiskType, r.Description)
					}
				}
			}
			if rep.Error != "" {
				return &exitError{code: exitMismatch, err: fmt.Errorf("inspect: %s would not load: %s", args[0], rep.Error)}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// inspectModule fills a moduleReport, recording the first reason the host
// would refuse the module.
func inspectModule(ctx context.Context, file string, wasm []byte) moduleReport {
	rep := moduleReport{File: file, Size: len(wasm), Digest: moduleDigest(wasm), Imports: []string{}, Exports: []string{}}
	cfg := wazero.NewRuntimeConfig().WithCloseOnContextDone(true).
		WithMemoryLimitPages(uint32(wasmhost.DefaultMemoryLimitBytes / 65536))
	cacheDir := ""
	if dir, err := os.UserCacheDir(); err == nil {
		cacheDir = filepath.Join(dir, "toolwarden", "wasm-inspect")
		if cache, err := wazero.NewCompilationCacheWithDir(cacheDir); err == nil {
			cfg = cfg.WithCompilationCache(cache)
			defer cache.Close(context.Background())
		}
	}
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	defer rt.Close(context.Background())
	// Compiling cannot be interrupted and is bounded by the module's size;
	// the deadline covers running the module's code.
	mod, err := rt.CompileModule(ctx, wasm)
	if err != nil {
		rep.Error = fmt.Sprintf("compile: %v", err)
		return rep
	}
	runCtx, cancel := context.WithTimeout(ctx, inspectTimeout)
	defer cancel()
	for _, f := range mod.ImportedFunctions() {
		m, n, _ := f.Import()
		rep.Imports = append(rep.Imports, m+"."+n)
	}
	for name := range mod.ExportedFunctions() {
		rep.Exports = append(rep.Exports, name)
	}
	for name := range mod.ExportedMemories() {
		rep.Exports = append(rep.Exports, name+" (memory)")
	}
	sort.Strings(rep.Imports)
	sort.Strings(rep.Exports)
	rep.Imports = slices.Compact(rep.Imports)
	rep.ABIVersion, err = abiVersion(runCtx, rt, mod)
	if err != nil {
		rep.Error = err.Error()
		return rep
	}
	info, err := hostDescribe(ctx, cacheDir, wasm)
	if err != nil {
		rep.Error = err.Error()
		return rep
	}
	rep.Describe = &info
	return rep
}

// hostDescribe loads the module in the rule host, with the checks a server
// runs at load, and returns its validated describe output. The host's own
// compilation cache (beside inspect's, apart from it) makes a second
// inspect of the same module quick.
func hostDescribe(ctx context.Context, cacheDir string, wasm []byte) (_ sdk.PluginInfo, err error) {
	if cacheDir != "" {
		cacheDir += "-host"
	}
	h, err := wasmhost.New(ctx, wasmhost.Options{CacheDir: cacheDir, PoolSize: 1})
	if err != nil {
		return sdk.PluginInfo{}, err
	}
	defer func() {
		if cerr := h.Close(context.Background()); cerr != nil && err == nil {
			err = cerr
		}
	}()
	p, err := h.Load(ctx, "inspect", wasm)
	if err != nil {
		return sdk.PluginInfo{}, err
	}
	return p.Info(), nil
}

// abiVersion instantiates the module with an empty WASI, as the host does,
// and calls its abi_version export.
func abiVersion(ctx context.Context, rt wazero.Runtime, mod wazero.CompiledModule) (uint32, error) {
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		return 0, fmt.Errorf("instantiate wasi: %w", err)
	}
	var cfg wazero.ModuleConfig = wazero.NewModuleConfig().WithName("")
	if _, ok := mod.ExportedFunctions()["_initialize"]; ok {
		cfg = cfg.WithStartFunctions("_initialize")
	} else {
		cfg = cfg.WithStartFunctions()
	}
	inst, err := rt.InstantiateModule(ctx, mod, cfg)
	if err != nil {
		return 0, fmt.Errorf("instantiate: %w", err)
	}
	defer inst.Close(context.Background())
	fn := inst.ExportedFunction("abi_version")
	if fn == nil {
		return 0, fmt.Errorf("no abi_version export")
	}
	res, err := fn.Call(ctx)
	if err != nil {
		return 0, fmt.Errorf("abi_version: %w", err)
	}
	if len(res) != 1 {
		return 0, fmt.Errorf("abi_version returned %d values, want 1", len(res))
	}
	return api.DecodeU32(res[0]), nil
}

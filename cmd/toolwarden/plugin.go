package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
)

// The plugin commands are a rule author's workflow from nothing to an
// active plugin: init writes a Go plugin module on sdk/rule, build compiles
// it to a reactor module, test and bench judge it against a corpus exactly
// as the engine would, keygen/sign/verify make and check its minisign
// signature, inspect shows what a server will see, and push uploads it.

func init() { subcommands = append(subcommands, newPluginCmd) }

// exitMismatch is the exit code of plugin test when a case's decision or
// rules differ from what the corpus expects, and of plugin verify when a
// signature does not verify.
const exitMismatch = 1

func newPluginCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugin",
		Short: "Write, build, test, sign, inspect and upload custom rule plugins",
		Long: `A rule plugin is a WebAssembly module speaking the rule ABI (sdk/ABI.md). The usual round trip:

  toolwarden plugin init myrules          # a Go module on sdk/rule, with a test, a manifest and cases
  toolwarden plugin build myrules          # GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared
  toolwarden plugin test myrules/myrules.wasm --corpus myrules/cases.jsonl
  toolwarden plugin keygen --out ~/.toolwarden/plugin
  toolwarden plugin sign myrules/myrules.wasm --key ~/.toolwarden/plugin.key
  toolwarden plugin push myrules/myrules.wasm --server https://toolwarden.example --activate`,
	}
	for _, add := range []func() *cobra.Command{newPluginInitCmd, newPluginBuildCmd, newPluginTestCmd, newPluginBenchCmd,
		newPluginKeygenCmd, newPluginSignCmd, newPluginVerifyCmd, newPluginInspectCmd, newPluginPushCmd} {
		cmd.AddCommand(add())
	}
	return cmd
}

// pluginNamePattern is what a plugin name may be: it becomes a directory,
// a Go module path element, a .wasm file name and the prefix of the rule
// ids (upper-cased), so it is kept to lower-case letters, digits and dashes.
var pluginNamePattern = regexp.MustCompile(`^[a-z][a-z0-9-]{0,62}$`)

// ruleIDPrefix turns a plugin name into the prefix of its rule ids, which
// policies require to match ^[A-Z][A-Z0-9_]*$.
func ruleIDPrefix(name string) string {
	return strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// moduleDigest is the content address of a module as the server names it:
// "sha256:" and the hex SHA-256 of the bytes.
func moduleDigest(wasm []byte) string {
	sum := sha256.Sum256(wasm)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// readModule reads a .wasm file, refusing an empty one up front.
func readModule(path string) ([]byte, error) {
	wasm, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read module: %w", err)
	}
	if len(wasm) == 0 {
		return nil, fmt.Errorf("read module %s: empty file", path)
	}
	return wasm, nil
}

func newPluginBuildCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "build [DIR]",
		Short: "Compile a Go plugin module to a rule plugin (.wasm)",
		Long: `Build runs GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath in DIR (default ".") and
writes DIR/NAME.wasm (NAME is DIR's base name) or the -o file. The module is a WASI reactor: the host calls its
_initialize once and then the ABI exports that sdk/rule supplies.`,
		Args: cobra.RangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			abs, err := filepath.Abs(dir)
			if err != nil {
				return usageErr(fmt.Errorf("build: %w", err))
			}
			if _, err := os.Stat(filepath.Join(abs, "go.mod")); err != nil {
				return usageErr(fmt.Errorf("build: %s is not a Go module (no go.mod): %w", abs, err))
			}
			if out == "" {
				out = filepath.Join(abs, filepath.Base(abs)+".wasm")
			} else if out, err = filepath.Abs(out); err != nil {
				return usageErr(fmt.Errorf("build: -o: %w", err))
			}
			if err := goBuildWasm(cmd.Context(), abs, out, cmd.ErrOrStderr()); err != nil {
				return &exitError{code: exitMismatch, err: err}
			}
			wasm, err := readModule(out)
			if err != nil {
				return usageErr(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "built %s (%d bytes, %s)\n", out, len(wasm), moduleDigest(wasm))
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "output file (default DIR/NAME.wasm)")
	return cmd
}

// goBuildWasm compiles the Go main package in dir to a wasip1 reactor
// module at out. GOWORK=off keeps a go.work of an enclosing directory from
// deciding which sdk the plugin builds against: the plugin's own go.mod does.
func goBuildWasm(ctx context.Context, dir, out string, stderr interface{ Write([]byte) (int, error) }) error {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("build: the go command is needed to build a Go plugin: %w", err)
	}
	c := exec.CommandContext(ctx, goBin, "build", "-buildmode=c-shared", "-trimpath", "-o", out, ".")
	c.Dir = dir
	c.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "GOWORK=off", "CGO_ENABLED=0")
	c.Stdout, c.Stderr = stderr, stderr
	if err := c.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return fmt.Errorf("build: go build in %s failed (exit %d); its errors are above", dir, ee.ExitCode())
		}
		return fmt.Errorf("build: go build in %s: %w", dir, err)
	}
	return nil
}

package wasmhost

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// testPlugins are the rules-wasm/testplugins commands the tests load.
var testPlugins = []string{"echo", "loop", "hog", "panic", "badptr", "picky"}

// pluginWasm maps a test plugin name to its compiled bytes, filled by TestMain.
var pluginWasm = map[string][]byte{}

// testCacheDir is a compilation cache shared by the tests' hosts, so each
// plugin is compiled natively once per test binary instead of once per test.
var testCacheDir string

// TestMain compiles the test plugins to wasip1 once per test binary. The
// outputs are cached under os.UserCacheDir()/toolwarden-test by a hash of
// every source they depend on, so reruns skip the multi-second builds.
func TestMain(m *testing.M) {
	if err := buildTestPlugins(); err != nil {
		fmt.Fprintln(os.Stderr, "build wasm test plugins:", err)
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "wasmhost-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "create compilation cache dir:", err)
		os.Exit(1)
	}
	testCacheDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func buildTestPlugins() error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		if goBin, err = exec.LookPath("go"); err != nil {
			return fmt.Errorf("find go tool: %w", err)
		}
	}
	key, err := sourceHash(root, goBin)
	if err != nil {
		return err
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "toolwarden-test", "wasmhost-"+key)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create plugin cache dir: %w", err)
	}
	for _, name := range testPlugins {
		out := filepath.Join(dir, name+".wasm")
		if b, err := os.ReadFile(out); err == nil && len(b) > 0 {
			pluginWasm[name] = b
			continue
		}
		tmp, err := os.CreateTemp(dir, name+"-*.tmp")
		if err != nil {
			return fmt.Errorf("create temp output for %s: %w", name, err)
		}
		tmp.Close()
		cmd := exec.Command(goBin, "build", "-buildmode=c-shared", "-trimpath", "-o", tmp.Name(), "./rules-wasm/testplugins/"+name)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
		if msg, err := cmd.CombinedOutput(); err != nil {
			os.Remove(tmp.Name())
			return fmt.Errorf("go build %s: %w\n%s", name, err, msg)
		}
		if err := os.Rename(tmp.Name(), out); err != nil {
			return fmt.Errorf("store %s: %w", name, err)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
		pluginWasm[name] = b
	}
	return nil
}

// repoRoot walks up from the package directory to the directory of go.work.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("getwd: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.work above the package directory")
		}
		dir = parent
	}
}

// sourceHash hashes the Go toolchain version and every file the test
// plugins are built from.
func sourceHash(root, goBin string) (string, error) {
	ver, err := exec.Command(goBin, "version").Output()
	if err != nil {
		return "", fmt.Errorf("go version: %w", err)
	}
	h := sha256.New()
	h.Write(ver)
	var files []string
	for _, sub := range []string{"sdk", "rules-wasm/testplugins"} {
		err := filepath.WalkDir(filepath.Join(root, sub), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && (strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "go.mod")) {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("walk %s: %w", sub, err)
		}
	}
	files = append(files, filepath.Join(root, "go.work"), filepath.Join(root, "rules-wasm", "go.mod"))
	slices.Sort(files)
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return "", fmt.Errorf("hash %s: %w", f, err)
		}
		io.WriteString(h, f[len(root):]+"\x00")
		_, err = io.Copy(h, fh)
		fh.Close()
		if err != nil {
			return "", fmt.Errorf("hash %s: %w", f, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

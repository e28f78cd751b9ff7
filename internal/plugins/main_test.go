package plugins

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

// hostilePlugins are the rules-wasm/testplugins commands the refusal tests
// upload; TestMain builds them to wasip1 once (cached by a hash of their
// sources, in the same place the wasm host's tests keep them).
var hostilePlugins = []string{"echo", "loop", "hog", "panic", "badptr"}

var pluginWasm = map[string][]byte{}

func TestMain(m *testing.M) {
	if err := buildTestPlugins(); err != nil {
		fmt.Fprintln(os.Stderr, "build wasm test plugins:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
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
		return err
	}
	for _, name := range hostilePlugins {
		out := filepath.Join(dir, name+".wasm")
		if b, err := os.ReadFile(out); err == nil && len(b) > 0 {
			pluginWasm[name] = b
			continue
		}
		tmp, err := os.CreateTemp(dir, name+"-*.tmp")
		if err != nil {
			return err
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
			return err
		}
		b, err := os.ReadFile(out)
		if err != nil {
			return err
		}
		pluginWasm[name] = b
	}
	return nil
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
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

// sourceHash is engine/wasmhost's (main_test.go), so both test binaries
// share one build of the test plugins.
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
			return "", err
		}
	}
	files = append(files, filepath.Join(root, "go.work"), filepath.Join(root, "rules-wasm", "go.mod"))
	slices.Sort(files)
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return "", err
		}
		io.WriteString(h, f[len(root):]+"\x00")
		_, err = io.Copy(h, fh)
		fh.Close()
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

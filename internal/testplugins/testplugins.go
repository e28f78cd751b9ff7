// Package testplugins builds the rule plugins of rules-wasm/testplugins
// (a well-behaved echo, and plugins that loop, hog memory, panic or return
// bad pointers) to wasip1 for the tests of the Wasm host and the plugin
// store. A build takes seconds per plugin, so the outputs are cached under
// os.UserCacheDir()/toolwarden-test by a hash of every source they depend
// on (the sdk module, the test plugins, go.work, the Go version): the test
// binaries of both packages, and reruns, share one build. Only tests import
// it.
package testplugins

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
)

// RepoRoot walks up from the working directory (a test's package
// directory) to the directory that holds go.work.
func RepoRoot() (string, error) {
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
			return "", fmt.Errorf("testplugins: no go.work above the package directory")
		}
		dir = parent
	}
}

// Build returns the compiled bytes of each named plugin
// (rules-wasm/testplugins/<name>), building those the cache does not hold.
func Build(names ...string) (map[string][]byte, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		if goBin, err = exec.LookPath("go"); err != nil {
			return nil, fmt.Errorf("testplugins: find go tool: %w", err)
		}
	}
	key, err := sourceHash(root, goBin)
	if err != nil {
		return nil, err
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "toolwarden-test", "wasmhost-"+key)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("testplugins: create cache dir: %w", err)
	}
	out := make(map[string][]byte, len(names))
	for _, name := range names {
		b, err := buildOne(root, goBin, dir, name)
		if err != nil {
			return nil, err
		}
		out[name] = b
	}
	return out, nil
}

// buildOne returns the cached module of name, building it into a temporary
// file renamed into place, so a concurrent test binary never reads half a
// module.
func buildOne(root, goBin, dir, name string) ([]byte, error) {
	out := filepath.Join(dir, name+".wasm")
	if b, err := os.ReadFile(out); err == nil && len(b) > 0 {
		return b, nil
	}
	tmp, err := os.CreateTemp(dir, name+"-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("testplugins: temp output for %s: %w", name, err)
	}
	tmp.Close()
	cmd := exec.Command(goBin, "build", "-buildmode=c-shared", "-trimpath", "-o", tmp.Name(), "./rules-wasm/testplugins/"+name)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("testplugins: go build %s: %w\n%s", name, err, msg)
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return nil, fmt.Errorf("testplugins: store %s: %w", name, err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("testplugins: read %s: %w", name, err)
	}
	return b, nil
}

// sourceHash hashes every file the test plugins are built from.
func sourceHash(root, goBin string) (string, error) {
	ver, err := exec.Command(goBin, "version").Output()
	if err != nil {
		return "", fmt.Errorf("testplugins: go version: %w", err)
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

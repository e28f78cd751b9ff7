package wasmhost

import (
	"fmt"
	"os"
	"testing"

	"github.com/toolwarden/toolwarden/internal/testplugins"
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
	built, err := testplugins.Build(testPlugins...)
	if err != nil {
		return err
	}
	pluginWasm = built
	return nil
}

// repoRoot is the directory of go.work (testplugins.RepoRoot).
func repoRoot() (string, error) { return testplugins.RepoRoot() }

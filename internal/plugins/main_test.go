package plugins

import (
	"fmt"
	"os"
	"testing"

	"github.com/toolwarden/toolwarden/internal/testplugins"
)

// hostilePlugins are the rules-wasm/testplugins commands the refusal tests
// upload; TestMain builds them to wasip1 once (testplugins, cached by a hash of
// their sources and shared with the wasm host's tests).
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
	built, err := testplugins.Build(hostilePlugins...)
	if err != nil {
		return err
	}
	pluginWasm = built
	return nil
}

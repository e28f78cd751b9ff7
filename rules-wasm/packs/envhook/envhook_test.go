package envhook

import (
	"testing"

	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/packtest"
	"github.com/toolwarden/toolwarden/sdk"
)

// TestCommandValuesInTheContent: a static command line the content assigns
// to a command-valued name is in the scanned content (the analyzer judged
// it as nested code), so the name is not refused; a dynamic one, a hook
// that loads a file, or bash code assigning it from Python is.
func TestCommandValuesInTheContent(t *testing.T) {
	set := func(name, value string, dyn bool) sdk.Facts {
		return sdk.Facts{Assignments: []sdk.Assignment{{Name: name, Value: value, Dynamic: dyn, Op: "set"}}}
	}
	packtest.Run(t, Scan, []packtest.Case{
		{Name: "static pager", Lang: "bash", Facts: set("PAGER", "cat", false), Rule: Rule},
		{Name: "static ssh command", Lang: "bash", Facts: set("GIT_SSH_COMMAND", "ssh -o BatchMode=yes", false), Rule: Rule},
		{Name: "dynamic pager", Lang: "bash", Facts: set("PAGER", "$P", true), Rule: Rule, Want: sdk.Deny},
		{Name: "library preload", Lang: "bash", Facts: set("LD_PRELOAD", "/w/x.so", false), Rule: Rule, Want: sdk.Deny},
		{Name: "python environ write", Lang: "python", Facts: set("GIT_SSH_COMMAND", "ssh", false), Rule: Rule, Want: sdk.Deny},
	})
}

package resources

import (
	"testing"

	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/packtest"
	"github.com/toolwarden/toolwarden/sdk"
)

// TestEnvPrinted: a whole-environment dump that reaches the terminal, alone
// or through commands that pass it on whole, prints every secret value; one
// sent to a file, counted by a filter or substituted into a word does not.
func TestEnvPrinted(t *testing.T) {
	cmd := func(id int, name string, args ...string) sdk.Command {
		return sdk.Command{ID: id, Name: name, Args: args, Evidence: name}
	}
	piped := func(a, b sdk.Command) sdk.Facts {
		b.StdinSources = []int{a.ID}
		return sdk.Facts{Commands: []sdk.Command{a, b}}
	}
	toFile := cmd(1, "env")
	toFile.Redirects = []sdk.Redirect{{Op: ">", Fd: -1, Target: "build/env.txt"}}
	inSubst := cmd(1, "printenv")
	inSubst.Reach = []string{"substitution"}
	fromProc := cmd(1, "tr", "\\0", "\\n")
	fromProc.Redirects = []sdk.Redirect{{Op: "<", Fd: -1, Target: "/proc/self/environ"}}
	packtest.Run(t, Scan, []C{
		{Name: "env alone", Lang: "bash", Facts: sdk.Facts{Commands: []sdk.Command{cmd(1, "env")}}, Rule: "SENSITIVE_OUTPUT", Want: sdk.Deny},
		{Name: "export -p", Lang: "bash", Facts: sdk.Facts{Commands: []sdk.Command{cmd(1, "export", "-p")}}, Rule: "SENSITIVE_OUTPUT", Want: sdk.Deny},
		{Name: "env | sort", Lang: "bash", Facts: piped(cmd(1, "env"), cmd(2, "sort")), Rule: "SENSITIVE_OUTPUT", Want: sdk.Deny},
		{Name: "environ file", Lang: "bash", Facts: sdk.Facts{Commands: []sdk.Command{fromProc}}, Rule: "SENSITIVE_OUTPUT", Want: sdk.Deny},
		{Name: "cat environ | tr", Lang: "bash", Facts: piped(cmd(1, "cat", "/proc/1/environ"), cmd(2, "tr", "\\0", "\\n")), Rule: "SENSITIVE_OUTPUT", Want: sdk.Deny},
		{Name: "env with a command", Lang: "bash", Facts: sdk.Facts{Commands: []sdk.Command{cmd(1, "env", "LANG=C", "ls")}}, Rule: "SENSITIVE_OUTPUT"},
		{Name: "env to a file", Lang: "bash", Facts: sdk.Facts{Commands: []sdk.Command{toFile}}, Rule: "SENSITIVE_OUTPUT"},
		{Name: "env counted", Lang: "bash", Facts: piped(cmd(1, "env"), cmd(2, "grep", "-c", "PATH")), Rule: "SENSITIVE_OUTPUT"},
		{Name: "env substituted", Lang: "bash", Facts: sdk.Facts{Commands: []sdk.Command{inSubst}}, Rule: "SENSITIVE_OUTPUT"},
	})
}

// TestEnvDumpOutputs: Python output whose source is the whole environment
// ("*") is a dump; a variable of unknown name ("?") is not.
func TestEnvDumpOutputs(t *testing.T) {
	out := func(sink string, vars ...string) sdk.Facts {
		return sdk.Facts{Outputs: []sdk.Output{{Sink: sink, Vars: vars, Evidence: "print(x)"}}}
	}
	packtest.Run(t, Scan, []C{
		{Name: "whole environment printed", Lang: "python", Facts: out("stdout", "*"), Rule: "SENSITIVE_OUTPUT", Want: sdk.Deny},
		{Name: "unknown variable printed", Lang: "python", Facts: out("stdout", "?"), Rule: "SENSITIVE_OUTPUT"},
		{Name: "whole environment to a file", Lang: "python", Facts: out("file", "*"), Rule: "SENSITIVE_OUTPUT"},
	})
}

// TestIndirectOverDump: ${!n} printed where the content lists the
// environment's names prints every value; ${!ref} without a listing is
// judged by what ref resolves to, elsewhere.
func TestIndirectOverDump(t *testing.T) {
	names := sdk.Command{ID: 1, Name: "compgen", Args: []string{"-e"}, Reach: []string{"substitution"}}
	echo := sdk.Command{ID: 2, Name: "echo", Args: []string{"$n=${!n}"}, DynamicArgs: []int{0}, Evidence: `echo "$n=${!n}"`}
	packtest.Run(t, Scan, []C{
		{Name: "over compgen -e", Lang: "bash", Facts: sdk.Facts{Commands: []sdk.Command{names, echo}}, Rule: "SENSITIVE_OUTPUT", Want: sdk.Deny},
		{Name: "no listing", Lang: "bash", Facts: sdk.Facts{Commands: []sdk.Command{echo}}, Rule: "SENSITIVE_OUTPUT"},
		{Name: "names alone", Lang: "bash", Facts: sdk.Facts{Commands: []sdk.Command{{ID: 1, Name: "compgen", Args: []string{"-e"}}}}, Rule: "SENSITIVE_OUTPUT"},
	})
}

// TestOtherDumpers: jq's env builtin and $ENV, ps with the BSD option e,
// and a dump written to a file then printed from it are dumps too; one
// member of the environment, ps -e (every process) and a count of the
// dump's file are not.
func TestOtherDumpers(t *testing.T) {
	cmd := func(id int, name string, args ...string) sdk.Command {
		return sdk.Command{ID: id, Name: name, Args: args, Evidence: name}
	}
	one := func(c sdk.Command) sdk.Facts { return sdk.Facts{Commands: []sdk.Command{c}} }
	saved := cmd(1, "env")
	saved.Redirects = []sdk.Redirect{{Op: ">", Fd: -1, Target: "/tmp/e.txt"}}
	readBack := func(c sdk.Command) sdk.Facts { return sdk.Facts{Commands: []sdk.Command{saved, c}} }
	fromFile := cmd(2, "sort")
	fromFile.Redirects = []sdk.Redirect{{Op: "<", Fd: -1, Target: "/tmp/e.txt"}}
	packtest.Run(t, Scan, []C{
		{Name: "jq -n env", Lang: "bash", Facts: one(cmd(1, "jq", "-n", "env")), Rule: "SENSITIVE_OUTPUT", Want: sdk.Deny},
		{Name: "jq $ENV", Lang: "bash", Facts: one(cmd(1, "jq", "-n", "$ENV")), Rule: "SENSITIVE_OUTPUT", Want: sdk.Deny},
		{Name: "jq --arg then env", Lang: "bash", Facts: one(cmd(1, "jq", "--arg", "a", "b", "-n", "env | keys")), Rule: "SENSITIVE_OUTPUT", Want: sdk.Deny},
		{Name: "jq env.HOME", Lang: "bash", Facts: one(cmd(1, "jq", "-n", "env.HOME")), Rule: "SENSITIVE_OUTPUT"},
		{Name: "jq $ENV.LANG", Lang: "bash", Facts: one(cmd(1, "jq", "-n", "$ENV.LANG")), Rule: "SENSITIVE_OUTPUT"},
		{Name: "jq .env field", Lang: "bash", Facts: one(cmd(1, "jq", ".env", "config.json")), Rule: "SENSITIVE_OUTPUT"},
		{Name: "ps eww", Lang: "bash", Facts: one(cmd(1, "ps", "eww", "1")), Rule: "SENSITIVE_OUTPUT", Want: sdk.Deny},
		{Name: "ps auxe", Lang: "bash", Facts: one(cmd(1, "ps", "auxe")), Rule: "SENSITIVE_OUTPUT", Want: sdk.Deny},
		{Name: "ps -ef", Lang: "bash", Facts: one(cmd(1, "ps", "-ef")), Rule: "SENSITIVE_OUTPUT"},
		{Name: "ps -C sleep", Lang: "bash", Facts: one(cmd(1, "ps", "-C", "sleep")), Rule: "SENSITIVE_OUTPUT"},
		{Name: "dump saved then cat", Lang: "bash", Facts: readBack(cmd(2, "cat", "/tmp/e.txt")), Rule: "SENSITIVE_OUTPUT", Want: sdk.Deny},
		{Name: "dump saved then sort <", Lang: "bash", Facts: readBack(fromFile), Rule: "SENSITIVE_OUTPUT", Want: sdk.Deny},
		{Name: "dump saved then grep token", Lang: "bash", Facts: readBack(cmd(2, "grep", "-i", "token", "/tmp/e.txt")), Rule: "SENSITIVE_OUTPUT", Want: sdk.Deny},
		{Name: "dump saved then counted", Lang: "bash", Facts: readBack(cmd(2, "grep", "-c", "PATH", "/tmp/e.txt")), Rule: "SENSITIVE_OUTPUT"},
		{Name: "dump saved, other file printed", Lang: "bash", Facts: readBack(cmd(2, "cat", "notes.txt")), Rule: "SENSITIVE_OUTPUT"},
	})
}

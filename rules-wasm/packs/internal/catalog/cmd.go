package catalog

import (
	"strings"
	"unsafe"

	"github.com/toolwarden/toolwarden/sdk"
)

// Names returns the names a command may run as: its Name, or for a glob
// command word ("/bin/r?") every candidate it could expand to. Rules call it
// for every command, so the common case (a plain name, no candidates)
// allocates nothing: the result then aliases c.Name. Callers must treat the
// slice as read-only.
func Names(c *sdk.Command) []string {
	if plainName(c.Name) {
		if len(c.Candidates) == 0 {
			return unsafe.Slice(&c.Name, 1)
		}
		return append([]string{c.Name}, c.Candidates...)
	}
	return c.Candidates
}

// plainName reports whether a command word is a literal name rather than a
// glob: non-empty and free of "*?[".
func plainName(n string) bool {
	if n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		switch n[i] {
		case '*', '?', '[':
			return false
		}
	}
	return true
}

// Is reports whether the command may run as one of names. It walks the
// same names as Names without building them, and checks that the command
// word is not a glob only once it equals a wanted name: rules ask about
// every command, and almost every answer is no.
func Is(c *sdk.Command, names ...string) bool {
	for _, want := range names {
		if c.Name == want && plainName(c.Name) {
			return true
		}
	}
	for _, n := range c.Candidates {
		for _, want := range names {
			if n == want {
				return true
			}
		}
	}
	return false
}

// IsIn reports whether the command may run as a name in set. Rules holding
// their names in a map should call it rather than Is(c, keys(set)...),
// which builds the key list for every command.
func IsIn(c *sdk.Command, set map[string]bool) bool {
	if set[c.Name] && plainName(c.Name) {
		return true
	}
	for _, n := range c.Candidates {
		if set[n] {
			return true
		}
	}
	return false
}

// NameHasPrefix reports whether the command may run as a name starting
// with prefix ("mkfs" matches "mkfs.ext4").
func NameHasPrefix(c *sdk.Command, prefix string) bool {
	if plainName(c.Name) && strings.HasPrefix(c.Name, prefix) {
		return true
	}
	for _, n := range c.Candidates {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}

// HasReach reports whether the command is reached in the given way.
func HasReach(c *sdk.Command, reach string) bool {
	for _, r := range c.Reach {
		if r == reach {
			return true
		}
	}
	return false
}

// ArgDynamic reports whether argument i is not static.
func ArgDynamic(c *sdk.Command, i int) bool {
	for _, d := range c.DynamicArgs {
		if d == i {
			return true
		}
	}
	return false
}

// Operands returns the arguments that are not options, with their indexes.
// Everything after "--" is an operand.
func Operands(c *sdk.Command) (ops []string, idx []int) {
	dd := false
	for i, a := range c.Args {
		if !dd && a == "--" {
			dd = true
			continue
		}
		if !dd && strings.HasPrefix(a, "-") && a != "-" {
			continue
		}
		ops = append(ops, a)
		idx = append(idx, i)
	}
	return ops, idx
}

// FirstOperand returns the first non-option argument ("install" in
// `pip install -U x`), skipping the values of the given options that take
// one ("-n 19" for nice).
func FirstOperand(args []string, valued ...string) (string, int) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") && a != "-" {
			for _, v := range valued {
				if a == v {
					i++
					break
				}
			}
			continue
		}
		return a, i
	}
	return "", -1
}

// HasShortFlag reports whether args contain the short option letter in any
// combined form ("-rf" has r and f) or one of the long forms.
func HasShortFlag(args []string, letter byte, long ...string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if strings.HasPrefix(a, "--") {
			for _, l := range long {
				if a == l || strings.HasPrefix(a, l+"=") {
					return true
				}
			}
			continue
		}
		if len(a) > 1 && a[0] == '-' && strings.IndexByte(a[1:], letter) >= 0 {
			return true
		}
	}
	return false
}

// Interpreters are programs that execute code read from stdin, a string or
// a file argument.
var Interpreters = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "fish": true, "ash": true,
	"busybox": true, "csh": true, "tcsh": true, "mksh": true,
	"python": true, "python2": true, "python3": true, "pypy": true, "pypy3": true,
	"perl": true, "ruby": true, "node": true, "nodejs": true, "php": true, "lua": true,
	"deno": true, "bun": true, "osascript": true, "pwsh": true, "powershell": true,
}

// Shells are the interpreters that run shell code.
var Shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true,
	"fish": true, "ash": true, "busybox": true, "csh": true, "tcsh": true, "mksh": true}

// IsInterpreter reports whether a command name is an interpreter, including
// versioned names ("python3.12"). Rules ask it about every command, so the
// names of Interpreters are spelled out as a switch, which compiles to a few
// length and byte comparisons instead of hashing the name (a test keeps the
// two lists equal).
func IsInterpreter(name string) bool {
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "busybox", "csh", "tcsh", "mksh",
		"python", "python2", "python3", "pypy", "pypy3",
		"perl", "ruby", "node", "nodejs", "php", "lua", "deno", "bun", "osascript", "pwsh", "powershell":
		return true
	}
	return strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pypy")
}

// ValueStrings flattens a Python argument into the constant strings it
// holds: a str, or the str items of a list/tuple (`["pip", "install", x]`).
// ok is false when any element is not constant.
func ValueStrings(v sdk.Value) (out []string, ok bool) {
	switch v.Kind {
	case "list", "tuple":
		ok = true
		for _, it := range v.Items {
			if it.Const && (it.Kind == "str" || it.Kind == "bytes") {
				out = append(out, it.Str)
			} else {
				ok = false
				out = append(out, "")
			}
		}
		return out, ok
	case "str", "bytes":
		return []string{v.Str}, v.Const
	}
	return nil, false
}

// Kwarg returns a keyword argument of a call.
func Kwarg(c *sdk.Call, name string) (sdk.Value, bool) {
	v, ok := c.Kwargs[name]
	return v, ok
}

// ConstTrue reports whether v is a constant true value (True, 1, "1").
func ConstTrue(v sdk.Value) bool {
	if !v.Const {
		return false
	}
	switch strings.ToLower(v.Str) {
	case "true", "1":
		return true
	}
	return false
}

// ArgStr returns the constant string value of positional argument i.
func ArgStr(c *sdk.Call, i int) (string, bool) {
	if i >= len(c.Args) {
		return "", false
	}
	v := c.Args[i]
	if v.Const && (v.Kind == "str" || v.Kind == "bytes") {
		return v.Str, true
	}
	return "", false
}

// PythonProcessAPIs are the Python calls that start a process.
var PythonProcessAPIs = map[string]bool{
	"subprocess.run": true, "subprocess.call": true, "subprocess.check_call": true,
	"subprocess.check_output": true, "subprocess.Popen": true, "subprocess.getoutput": true,
	"subprocess.getstatusoutput": true, "os.system": true, "os.popen": true, "os.popen2": true,
	"os.popen3": true, "os.startfile": true, "os.posix_spawn": true, "os.posix_spawnp": true,
	"pty.spawn": true, "asyncio.create_subprocess_exec": true, "asyncio.create_subprocess_shell": true,
	"commands.getoutput": true, "commands.getstatusoutput": true, "platform.popen": true,
}

// ShellAPIs run their command string through a shell.
var ShellAPIs = map[string]bool{"os.system": true, "os.popen": true, "subprocess.getoutput": true,
	"subprocess.getstatusoutput": true, "asyncio.create_subprocess_shell": true,
	"commands.getoutput": true, "commands.getstatusoutput": true, "platform.popen": true}

// IsPythonProcessAPI reports whether a qualified call name starts a process,
// including the os.exec*/os.spawn* families.
func IsPythonProcessAPI(name string) bool {
	if PythonProcessAPIs[name] {
		return true
	}
	return strings.HasPrefix(name, "os.exec") || strings.HasPrefix(name, "os.spawn")
}

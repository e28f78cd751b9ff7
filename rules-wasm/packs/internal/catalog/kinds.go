package catalog

import (
	"slices"
	"strings"

	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/lookup"
	"github.com/toolwarden/toolwarden/sdk"
)

// Kind is a class of commands a rule asks about ("the deleters", "the
// interpreters"). Every command of a facts document is classified once per
// scan, by one table lookup per name, and a rule then walks only the
// commands of its kind (Env.Commands) instead of asking Is of every
// command: inside Wasm each loop iteration and call costs an exit to the
// host, and almost every command is of no interest to almost every rule.
//
// A kind only selects: the rule still applies its own conditions to the
// commands it gets, so a kind may safely hold more than the rule needs, but
// never less.
type Kind uint8

// KindSpec defines a Kind: a command belongs to it when any of the fields
// says so.
type KindSpec struct {
	// Names: the command may run as one of them, as Is decides.
	Names []string
	// BaseNames: a name holding "/" also counts by its base name
	// ("/usr/bin/pip" as pip).
	BaseNames bool
	// Prefixes: it may run as a name starting with one of them, as
	// NameHasPrefix decides.
	Prefixes []string
	// Dynamic: its name is not known (Dynamic set, or no name and no
	// candidates).
	Dynamic bool
	// Encoded: it was reached through decoded content (Pos.Encoded).
	Encoded bool
	// Redirected: it has redirections.
	Redirected bool
	// ScriptPath: its command word is a path outside /usr/ and /bin/, the
	// first case of ExecutedFile.
	ScriptPath bool
	// ShellFeature: it is a later pipeline stage, redirects other than by
	// heredoc, or is reached by substitution, process substitution or in
	// the background.
	ShellFeature bool
}

// maxKinds bounds the registry: a command's kinds are one uint64.
const maxKinds = 64

const (
	flagDynamic = 1 << iota
	flagEncoded
	flagRedirected
	flagScriptPath
	flagShellFeature
)

// The registry, written only during package initialization (NewKind) and
// read-only afterwards.
var (
	nKinds    int
	kindNames lookup.Table
	// kindPrefix holds the prefixes by their first byte, so a name is
	// compared only with the prefixes it could start with.
	kindPrefix [256][]prefixKind
	// kindFlags holds, per flag, the kinds that include commands with it.
	kindFlags [5]uint64
	anyFlags  int
	// baseKinds are the kinds that classify "/"-holding names by their base
	// name too.
	baseKinds uint64
	// listedNames are the names in kindNames.
	listedNames []string
)

// prefixKind is a kind's name prefix. The second and last bytes of the
// prefix rule out most names before comparing strings, which inside Wasm
// costs a call.
type prefixKind struct {
	prefix       string
	second, last byte
	bits         uint64
}

// NewKind registers a kind. Call it only to initialize a package-level
// variable: the registry must not change once scans run.
func NewKind(s KindSpec) Kind {
	if nKinds == maxKinds {
		panic("catalog: more than 64 command kinds")
	}
	for _, n := range s.Names {
		if n == "" || strings.ContainsAny(n, "*?[/") {
			// Is never matches a glob by a command's own word, and Of
			// must agree with Is; a name with a slash would need its
			// base name looked up too.
			panic("catalog: kind name " + n + " is empty, a glob or a path")
		}
	}
	k := Kind(nKinds)
	nKinds++
	bit := uint64(1) << k
	for _, n := range s.Names {
		// A listed name carries the kinds of the prefixes it starts with,
		// so that nameKinds need not try them for it.
		kindNames.Add(n, bit|prefixKinds(n))
		if !slices.Contains(listedNames, n) {
			listedNames = append(listedNames, n)
		}
	}
	for _, p := range s.Prefixes {
		if len(p) < 2 {
			panic("catalog: kind prefix " + p + " is shorter than two bytes")
		}
		kindPrefix[p[0]] = append(kindPrefix[p[0]], prefixKind{prefix: p, second: p[1], last: p[len(p)-1], bits: bit})
		for _, n := range listedNames {
			if strings.HasPrefix(n, p) {
				kindNames.Add(n, bit)
			}
		}
	}
	if s.BaseNames {
		baseKinds |= bit
	}
	for i, on := range []bool{s.Dynamic, s.Encoded, s.Redirected, s.ScriptPath, s.ShellFeature} {
		if on {
			kindFlags[i] |= bit
			anyFlags |= 1 << i
		}
	}
	return k
}

// NamesKind registers the kind of the commands that may run as one of
// names.
func NamesKind(names ...string) Kind { return NewKind(KindSpec{Names: names}) }

// InterpreterNames are the names IsInterpreter accepts exactly; it also
// accepts the prefixes InterpreterPrefixes.
func InterpreterNames() []string {
	out := make([]string, 0, len(Interpreters))
	for n := range Interpreters {
		out = append(out, n)
	}
	return out
}

// InterpreterPrefixes start the versioned interpreter names IsInterpreter
// accepts ("python3.12").
var InterpreterPrefixes = []string{"python", "pypy"}

// nameKinds returns the kinds a command name belongs to. A listed name
// holds its prefix kinds already and no slash, so only the other names are
// tried against the prefixes and searched for a slash.
func nameKinds(n string) uint64 {
	if n == "" {
		return 0
	}
	if k := kindNames.Get(n); k != 0 {
		return k
	}
	k := prefixKinds(n)
	if baseKinds != 0 && strings.IndexByte(n, '/') >= 0 {
		k |= nameKinds(n[strings.LastIndexByte(n, '/')+1:]) & baseKinds
	}
	return k
}

// prefixKinds returns the kinds whose prefixes n starts with.
func prefixKinds(n string) uint64 {
	var k uint64
	if len(n) > 1 {
		for _, p := range kindPrefix[n[0]] {
			if len(n) >= len(p.prefix) && n[1] == p.second && n[len(p.prefix)-1] == p.last && n[:len(p.prefix)] == p.prefix {
				k |= p.bits
			}
		}
	}
	return k
}

// commandKinds classifies one command.
func commandKinds(c *sdk.Command) uint64 {
	var k uint64
	if c.Name != "" {
		k = nameKinds(c.Name)
	}
	for _, n := range c.Candidates {
		k |= nameKinds(n)
	}
	if anyFlags == 0 {
		return k
	}
	if c.Dynamic || (c.Name == "" && len(c.Candidates) == 0) {
		k |= kindFlags[0]
	}
	if c.Pos.Encoded {
		k |= kindFlags[1]
	}
	if len(c.Redirects) > 0 {
		k |= kindFlags[2]
	}
	if c.Path != "" && anyFlags&flagScriptPath != 0 && strings.Contains(c.Path, "/") &&
		!strings.HasPrefix(c.Path, "/usr/") && !strings.HasPrefix(c.Path, "/bin/") {
		k |= kindFlags[3]
	}
	if anyFlags&flagShellFeature != 0 && shellFeature(c) {
		k |= kindFlags[4]
	}
	return k
}

func shellFeature(c *sdk.Command) bool {
	if c.Pipeline > 0 && c.Stage > 0 {
		return true
	}
	for _, r := range c.Redirects {
		if r.Op != "<<" {
			return true
		}
	}
	for _, r := range c.Reach {
		switch r {
		case "substitution", "process_substitution", "background":
			return true
		}
	}
	return false
}

package catalog

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/match"
	"github.com/toolwarden/toolwarden/sdk"
)

// DefaultLongSleepSeconds is used when a policy leaves long_sleep_seconds
// unset (zero), so that "sleep infinity" is still reviewed.
const DefaultLongSleepSeconds = 300

// Matchers are the policy lists compiled for matching.
type Matchers struct {
	Paths    *match.PathMatcher
	Domains  *match.DomainMatcher
	Commands map[string]bool
}

// cached is a compiled policy with the lists it was compiled from. The
// lists are deep copies taken at compile time: the guest kit decodes each
// scan into the memory of the previous one (sdk.Decoder), so a string of the
// input must never outlive its scan, and a policy edited in place after
// compiling is recognised as different.
type cached struct {
	denied, domains, commands []string
	m                         *Matchers
}

// same reports whether p's lists equal the ones m was compiled from.
func (c *cached) same(p *sdk.Policy) bool {
	return slices.Equal(c.denied, p.DeniedPaths) && slices.Equal(c.domains, p.AllowedDomains) &&
		slices.Equal(c.commands, p.AllowedCommands)
}

// last caches the matchers of the most recent policy, keyed by the content
// of the lists they are compiled from, never by pointer: each Wasm call
// decodes the policy anew (into the same memory), and comparing a few dozen
// strings costs far less than compiling them again.
var last atomic.Pointer[cached]

// Compile returns the matchers for p, reusing the previous result when p
// holds the same denied_paths, allowed_domains and allowed_commands as last
// time.
func Compile(p *sdk.Policy) *Matchers {
	if c := last.Load(); c != nil && c.same(p) {
		return c.m
	}
	c := &cached{denied: deepClone(p.DeniedPaths), domains: deepClone(p.AllowedDomains),
		commands: deepClone(p.AllowedCommands)}
	c.m = &Matchers{
		Paths:    match.NewPathMatcher(c.denied),
		Domains:  match.NewDomainMatcher(c.domains),
		Commands: make(map[string]bool, len(c.commands)),
	}
	for _, cmd := range c.commands {
		if cmd = strings.TrimSpace(cmd); cmd != "" {
			c.m.Commands[cmd] = true
		}
	}
	last.Store(c)
	return c.m
}

// deepClone copies ss and the bytes of each string, so nothing of the
// input's memory is kept.
func deepClone(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.Clone(s)
	}
	return out
}

// defaultPolicy applies when the input carries none: no allowlists, every
// switch on (fail closed: deny stays deny).
var defaultPolicy = &sdk.Policy{
	Name: "builtin-default", DenyDependencyInstall: true, DenyPrivilegeEscalation: true,
	ReviewUnknownNetwork: true, ReviewProcessExecution: true, ReviewShellFeatures: true,
	LongSleepSeconds: DefaultLongSleepSeconds,
}

// Env is one scan as a pack sees it: the facts, the effective policy, the
// compiled matchers and the findings collected so far. A pack keeps its Env
// on the stack (Init), so preparing a scan allocates nothing.
type Env struct {
	In     *sdk.ScanInput
	Facts  *sdk.Facts
	Policy *sdk.Policy
	M      *Matchers
	// Lang is the language of the top-level content ("bash" or "python").
	Lang string

	x    *index
	out  []sdk.Finding
	cols []int
	seen smallSet[seenKey]
}

// memo is the per-scan state that Begin opens: the index and matchers of
// one input, shared by the packs that judge it one after the other.
type memo struct {
	in     *sdk.ScanInput
	x      *index
	m      *Matchers
	shared bool // opened by Begin: later packs of the scan reuse x and m
}

var current atomic.Pointer[memo]

// Begin opens a scan of in by several packs (packs.Combine calls it), so
// that they index the facts and look up the policy's matchers once instead
// of once each. The packs' Init calls share the work only while Begin's scan
// is the current one and only for this very input; any other Init works
// from scratch, so concurrent scans (natively) stay correct, just slower.
// Identity of the pointer alone would not do: the guest kit decodes every
// scan into the same ScanInput.
//
// The index and matchers are built here, in the one memo every pack then
// reads, rather than by the first Init into a second memo: inside Wasm each
// allocation costs microseconds. An input Init would refuse (no facts, a
// newer facts version) is left for Init to refuse.
func Begin(in *sdk.ScanInput) {
	m := &memo{in: in, shared: true}
	if in != nil && in.Facts != nil && in.Facts.Version <= sdk.FactsVersion {
		p := in.Policy
		if p == nil {
			p = defaultPolicy
		}
		m.x, m.m = buildIndex(in.Facts), Compile(p)
	}
	current.Store(m)
}

// End closes the scan Begin opened, so nothing of its input stays
// reachable from the package once the scan is over.
func End() {
	current.Store(nil)
}

// ErrNoFacts is returned when a scan input carries no facts document; the
// host turns it into a fail-closed RULE_PLUGIN_ERROR.
var ErrNoFacts = errors.New("scan input has no facts document")

// NewEnv prepares a scan in a new Env; see Init.
func NewEnv(in *sdk.ScanInput) (*Env, error) {
	e := new(Env)
	if err := e.Init(in); err != nil {
		return nil, err
	}
	return e, nil
}

// Init prepares a scan. A missing policy means the built-in default; a
// missing facts document is an error, never an empty (allowing) scan.
func (e *Env) Init(in *sdk.ScanInput) error {
	if in == nil || in.Facts == nil {
		return ErrNoFacts
	}
	if v := in.Facts.Version; v > sdk.FactsVersion {
		return fmt.Errorf("facts version %d is newer than the supported %d", v, sdk.FactsVersion)
	}
	p := in.Policy
	if p == nil {
		p = defaultPolicy
	}
	lang := lowerLang(in.Facts.Language)
	if lang == "" {
		lang = lowerLang(in.Language)
	}
	var x *index
	var m *Matchers
	switch s := current.Load(); {
	case s != nil && s.shared && s.in == in && s.x != nil:
		x, m = s.x, s.m
	case s != nil && s.shared && s.in == in:
		// The first pack of the scan: publish a filled memo rather than
		// fill the published one, which other goroutines may be reading.
		x, m = buildIndex(in.Facts), Compile(p)
		current.CompareAndSwap(s, &memo{in: in, x: x, m: m, shared: true})
	default:
		// A pack judging an input on its own: index it afresh, and let
		// the helpers that take only the facts (FileSources, Feeders)
		// find that index.
		x, m = buildIndex(in.Facts), Compile(p)
		current.Store(&memo{in: in, x: x, m: m})
	}
	*e = Env{In: in, Facts: in.Facts, Policy: p, M: m, Lang: lang, x: x}
	return nil
}

// lowerLang is strings.ToLower for the language names the analyzers emit,
// which are lower case already: it returns them without copying.
func lowerLang(s string) string {
	switch s {
	case "bash", "python", "":
		return s
	}
	return strings.ToLower(s)
}

// Commands returns the positions in Facts.Commands of the commands of kind
// k, in document order. The slice is shared: callers must not modify it.
func (e *Env) Commands(k Kind) []int32 { return e.x.commandsOf(k) }

// Of reports whether the command at position i is of kind k, by a bit
// test. For a kind defined by Names alone (no BaseNames, prefixes or
// flags) it is exactly Is of those names, without comparing strings, which
// inside Wasm costs a call each; for any other kind false is certain and
// true means only that the kind's definition selects the command.
func (e *Env) Of(i int32, k Kind) bool { return e.x.kinds[i]&(1<<k) != 0 }

// seenKey identifies a finding for deduplication: rule, line and key, and
// the message when the finding has no key.
type seenKey struct {
	rule string
	line int
	key  string
	msg  string
}

// Finding describes one match for Add. Empty Decision and Risk take the
// catalog's defaults; an empty Recommendation takes the rule's.
type Finding struct {
	Rule           string
	Decision       sdk.Decision
	Risk           sdk.RiskLevel
	Evidence       string
	Pos            sdk.Pos
	Message        string
	Metadata       map[string]any
	Recommendation string
	// Key distinguishes findings of one rule on one line; findings with the
	// same rule, line and key are reported once.
	Key string
}

// Add records a finding, filling risk type, level, decision and
// recommendation from the catalog and the nesting chain into metadata.
func (e *Env) Add(f Finding) {
	rule, ok := Rules[f.Rule]
	if !ok {
		panic("catalog: finding for unknown rule " + f.Rule)
	}
	k := seenKey{rule: f.Rule, line: f.Pos.Line, key: f.Key}
	if f.Key == "" {
		k.msg = f.Message
	}
	if !e.seen.add(k) {
		return
	}
	d := f.Decision
	if d == "" {
		d = rule.Decision
	}
	risk := f.Risk
	if risk == "" {
		risk = rule.Risk
	}
	rec := f.Recommendation
	if rec == "" {
		rec = rule.Recommendation
	}
	meta := f.Metadata
	if meta == nil {
		meta = map[string]any{}
	}
	if _, ok := meta["language"]; !ok && e.Lang != "" {
		meta["language"] = langValue(e.Lang)
	}
	if f.Pos.Depth > 0 {
		meta["via"] = f.Pos.Via
		meta["depth"] = f.Pos.Depth
	}
	if f.Pos.Encoded {
		meta["encoded"] = true
	}
	var col *int
	if f.Pos.Col > 0 {
		// Columns are handed out of a small shared array, not one
		// allocation each; a full array is left to the findings that
		// point into it.
		if len(e.cols) == cap(e.cols) {
			e.cols = make([]int, 0, 8)
		}
		e.cols = append(e.cols, f.Pos.Col)
		col = &e.cols[len(e.cols)-1]
	}
	if e.out == nil {
		e.out = make([]sdk.Finding, 0, 4)
	}
	e.out = append(e.out, sdk.Finding{
		RuleID: f.Rule, RiskType: rule.RiskType, RiskLevel: risk, Decision: d,
		Evidence: Trim(f.Evidence), Line: f.Pos.Line, Column: col, Message: f.Message,
		Metadata: meta, Recommendation: rec,
	})
}

// The common languages as interface values, so that filling a finding's
// metadata does not allocate a copy of the string.
var (
	langBash   any = "bash"
	langPython any = "python"
)

func langValue(lang string) any {
	switch lang {
	case "bash":
		return langBash
	case "python":
		return langPython
	}
	return lang
}

// Findings returns the collected findings ordered by line, then rule id,
// so output is stable whatever order the checks ran in.
func (e *Env) Findings() []sdk.Finding {
	slices.SortStableFunc(e.out, func(a, b sdk.Finding) int {
		if a.Line != b.Line {
			return cmp.Compare(a.Line, b.Line)
		}
		return strings.Compare(a.RuleID, b.RuleID)
	})
	if e.out == nil {
		return []sdk.Finding{}
	}
	return e.out
}

// Switch returns the catalog decision when on is set, else review: the
// policy switches (deny_dependency_install, deny_privilege_escalation) turn
// a deny into a review, never into silence.
func Switch(on bool) sdk.Decision {
	if on {
		return sdk.Deny
	}
	return sdk.NeedsHumanReview
}

// Trim bounds evidence to one line of at most 300 bytes.
func Trim(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	if len(s) > 300 {
		cut := 300
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// FactLang returns the language of the content a fact at pos was found in:
// the top-level language at depth 0, else inferred from the last step of
// the nesting chain ("bash -c" → bash, "python3 -c" → python, "os.system" →
// bash, "exec" inside Python → python).
func (e *Env) FactLang(pos sdk.Pos) string {
	if pos.Depth == 0 || pos.Via == "" {
		return e.Lang
	}
	step := pos.Via
	if i := strings.LastIndexByte(step, '>'); i >= 0 {
		step = step[i+1:]
	}
	step = strings.ToLower(strings.TrimSpace(step))
	switch {
	case strings.Contains(step, "python"), strings.HasPrefix(step, "py"),
		step == "exec", step == "eval", step == "compile", strings.HasPrefix(step, "runpy"),
		strings.HasPrefix(step, "importlib"), strings.HasPrefix(step, "builtins."):
		if (step == "eval") && e.Lang == "bash" && !strings.Contains(pos.Via, "python") {
			return "bash"
		}
		return "python"
	case strings.HasPrefix(step, "os."), strings.HasPrefix(step, "subprocess."),
		strings.HasPrefix(step, "pty."), strings.HasPrefix(step, "asyncio."),
		strings.Contains(step, "sh"), strings.Contains(step, "eval"), strings.Contains(step, "source"),
		strings.Contains(step, "xargs"), strings.Contains(step, "find"), strings.Contains(step, "awk"):
		return "bash"
	}
	return e.Lang
}

package bash

import (
	"fmt"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// The analyzer's knowledge of commands is data: each topic file registers
// the names it knows with the aspect it knows them for, the way OPA's
// topdown registers builtins and the Python analyzer registers APIs
// (../python/dispatch.go). semantics looks a command's name up once and
// applies the aspects found, in a fixed order:
//
//	wrapper   runs the command named in its arguments (sudo, env, timeout)
//	interp    an interpreter whose code arguments are scanned (interp.go)
//	runner    runs commands its script or config names (sed e, vim -c, make)
//	run       the command's own semantics (shells, eval, read, echo)
//	net       the hosts it reaches (curl, ssh, git)
//	files     its file accesses, when no argSpec can say them (dd, tar, git)
//	spec      its operands' file semantics, an argSpec row of specs
//
// Topics: cmd_wrappers.go, cmd_shells.go, cmd_interpreters.go,
// cmd_runners.go, cmd_builtins.go, cmd_network.go, cmd_files.go and
// cmd_vcs.go; topics lists each topic's register function.

// stepHandler applies one aspect of the command named name to its args.
type stepHandler func(a *analyzer, s *syntax.Stmt, name string, args []field, c *ctx)

// runHandler applies a command's own semantics. It returns true when that
// is all the command does with its arguments (they are code or text), so
// the network and file aspects are not applied.
type runHandler func(a *analyzer, s *syntax.Stmt, name string, args []field, c *ctx) (done bool)

// wrapHandler reads the arguments of a command that runs another one. It
// returns the index of the inner command's name in args (-1 when there is
// none to run) and the Reach of the inner command.
type wrapHandler func(a *analyzer, s *syntax.Stmt, args []field, c *ctx) (inner int, reach string)

// innerFunc is the side-effect-free part of a wrapper: the index of the
// inner command's name in args, -1 when the wrapper runs none or runs code
// of its own (env -S, runuser -c). Callers that only need to see through
// the wrapper (the interpreter at the end of a pipe) use it.
type innerFunc func(args []field) int

// aspect names one part of a command's semantics (see the table above).
type aspect uint8

const (
	aspWrapper aspect = iota
	aspInterp
	aspRunner
	aspRun
	aspNet
	aspFiles
	aspSpec
	numAspects
)

// aspectNames name the aspects in panics and test messages.
var aspectNames = [numAspects]string{"wrapper", "interp", "runner", "run", "net", "files", "spec"}

// command is everything the analyzer knows about one command name. Each
// aspect is optional; topic records which topic registered each one.
type command struct {
	wrapper wrapHandler
	peel    innerFunc
	interp  *interpLang
	runner  stepHandler
	run     runHandler
	net     stepHandler
	files   stepHandler
	spec    *argSpec
	topic   [numAspects]string
}

// family is a set of names no table can list (python3.12, mkfs.ext4),
// matched by a predicate after the exact lookup fails. Its aspects are
// also merged into every exact entry it matches, so a member some topic
// lists by name for another aspect keeps the family's (and one aspect
// registered both ways panics like any duplicate).
type family struct {
	topic string
	match func(name string) bool
	set   func(*command)
	cmd   command
}

// registry is the command table under construction; buildCommands fills
// it from the topic files and freezes it into a commandTable.
type registry struct {
	names    map[string]*command
	families []*family
}

// entry returns the command for name, created empty on first use.
func (r *registry) entry(name string) *command {
	e := r.names[name]
	if e == nil {
		e = &command{}
		r.names[name] = e
	}
	return e
}

// add sets aspect asp of each name to what set installs, under topic. A
// name registered twice for one aspect is a programming error (two topics
// would disagree on what the command does), so it panics rather than
// letting one registration silently win.
func (r *registry) add(asp aspect, topic string, set func(*command), names []string) {
	if topic == "" {
		panic("bash command registered without a topic")
	}
	for _, n := range names {
		e := r.entry(n)
		if old := e.topic[asp]; old != "" {
			panic(fmt.Sprintf("bash command %q: %s registered by topic %q and again by %q",
				n, aspectNames[asp], old, topic))
		}
		e.topic[asp] = topic
		set(e)
	}
}

// wrapper registers h as the wrapper aspect of names.
func (r *registry) wrapper(topic string, h wrapHandler, names ...string) {
	r.add(aspWrapper, topic, func(e *command) { e.wrapper = h }, names)
}

// pureWrapper registers f as the wrapper aspect of names: a wrapper that
// only finds its inner command (Reach "wrapper"), so others can see
// through it with peel.
func (r *registry) pureWrapper(topic string, f innerFunc, names ...string) {
	r.wrapperPeel(topic, func(_ *analyzer, _ *syntax.Stmt, args []field, _ *ctx) (int, string) {
		return f(args), "wrapper"
	}, f, names...)
}

// wrapperPeel registers h as the wrapper aspect of names and peel as its
// side-effect-free part.
func (r *registry) wrapperPeel(topic string, h wrapHandler, peel innerFunc, names ...string) {
	r.add(aspWrapper, topic, func(e *command) { e.wrapper, e.peel = h, peel }, names)
}

// interpreter registers the interpreter l under its names.
func (r *registry) interpreter(topic string, l *interpLang) {
	r.add(aspInterp, topic, func(e *command) { e.interp = l }, l.names)
}

// runner registers h as the runner aspect of names.
func (r *registry) runner(topic string, h stepHandler, names ...string) {
	r.add(aspRunner, topic, func(e *command) { e.runner = h }, names)
}

// run registers h as the own semantics of names.
func (r *registry) run(topic string, h runHandler, names ...string) {
	r.add(aspRun, topic, func(e *command) { e.run = h }, names)
}

// net registers h as the network aspect of names.
func (r *registry) net(topic string, h stepHandler, names ...string) {
	r.add(aspNet, topic, func(e *command) { e.net = h }, names)
}

// files registers h as the file aspect of names, in place of an argSpec.
func (r *registry) files(topic string, h stepHandler, names ...string) {
	r.add(aspFiles, topic, func(e *command) { e.files = h }, names)
}

// spec registers the operand semantics of each name in specs.
func (r *registry) spec(topic string, specs map[string]*argSpec) {
	for n, sp := range specs {
		r.add(aspSpec, topic, func(e *command) { e.spec = sp }, []string{n})
	}
}

// family registers a family of names matched by match, with the aspects
// set installs.
func (r *registry) family(topic string, match func(string) bool, set func(*command)) {
	f := &family{topic: topic, match: match, set: set}
	set(&f.cmd)
	for asp := aspect(0); asp < numAspects; asp++ {
		if f.cmd.hasAspect(asp) {
			f.cmd.topic[asp] = topic
		}
	}
	r.families = append(r.families, f)
}

// hasAspect reports whether aspect asp of e is set.
func (e *command) hasAspect(asp aspect) bool {
	switch asp {
	case aspWrapper:
		return e.wrapper != nil
	case aspInterp:
		return e.interp != nil
	case aspRunner:
		return e.runner != nil
	case aspRun:
		return e.run != nil
	case aspNet:
		return e.net != nil
	case aspFiles:
		return e.files != nil
	case aspSpec:
		return e.spec != nil
	}
	return false
}

// merge installs the aspects of f into e; an aspect both set is a
// conflict.
func (e *command) merge(name string, f *family) {
	for asp := aspect(0); asp < numAspects; asp++ {
		if !f.cmd.hasAspect(asp) {
			continue
		}
		if old := e.topic[asp]; old != "" {
			panic(fmt.Sprintf("bash command %q: %s registered by topic %q and again by family of topic %q",
				name, aspectNames[asp], old, f.topic))
		}
		e.topic[asp] = f.topic
	}
	f.set(e)
}

// commandTable is the frozen registry: exact names and families.
type commandTable struct {
	names    map[string]*command
	families []*family
}

// lookup returns what is known about the command named name, or nil.
func (t *commandTable) lookup(name string) *command {
	if e := t.names[name]; e != nil {
		return e
	}
	for _, f := range t.families {
		if f.match(name) {
			return &f.cmd
		}
	}
	return nil
}

// topics are the register functions of the topic files.
func topics() []func(*registry) {
	return []func(*registry){
		registerWrapperCommands,
		registerShellCommands,
		registerInterpreterCommands,
		registerRunnerCommands,
		registerBuiltinCommands,
		registerNetworkCommands,
		registerListenerCommands,
		registerFileCommands,
		registerArchiveCommands,
		registerVCSCommands,
		registerClientCommands,
	}
}

// buildCommands builds the command table from every topic, then from
// extra (tests add names with it). The order of the calls does not
// matter: each aspect of a name has one owner, and a second registration
// panics.
func buildCommands(extra ...func(*registry)) *commandTable {
	r := &registry{names: make(map[string]*command, 512)}
	for _, register := range append(topics(), extra...) {
		register(r)
	}
	return r.freeze()
}

// freeze merges each family into the exact names it matches and returns
// the table semantics reads.
func (r *registry) freeze() *commandTable {
	for n, e := range r.names {
		for _, f := range r.families {
			if f.match(n) {
				e.merge(n, f)
			}
		}
	}
	return &commandTable{names: r.names, families: r.families}
}

var (
	commandsOnce sync.Once
	commandsTab  *commandTable
	commandsErr  any
)

// commands returns the command table, built on first use; analyze calls
// it before walking, so semantics reads commandsTab directly. (It is not a
// package-level initializer: the handlers reach the analyzer that consults
// the table, which Go's initialization order forbids.) A table that fails
// to build fails every analysis closed (analyze turns the panic into a
// ParseError), never a silently empty table.
func commands() *commandTable {
	commandsOnce.Do(func() {
		defer func() { commandsErr = recover() }()
		commandsTab = buildCommands()
	})
	if commandsErr != nil {
		panic(commandsErr)
	}
	return commandsTab
}

// semantics applies what the command named name does with its args: the
// aspects its table entry registers, in the order of the table above. A
// name nothing is registered for gets the generic treatment: operands that
// look like paths are references.
func (a *analyzer) semantics(s *syntax.Stmt, name string, args []field, c *ctx) {
	if _, ok := cwdOpts[name]; ok {
		a.inCwdOption(s, name, args, c, func() { a.commandSemantics(s, name, args, c) })
		return
	}
	a.commandSemantics(s, name, args, c)
}

// commandSemantics is semantics in the working directory in effect.
func (a *analyzer) commandSemantics(s *syntax.Stmt, name string, args []field, c *ctx) {
	a.optExecCommands(s, name, args, c)
	a.loadWritten(s, name, args)
	a.remoteSpecArgs(s, name, args)
	a.containerPull(s, name, args)
	if extractors[name] != nil {
		defer a.noteDownloadedTree(name, args, c, len(a.b.Facts.Files))
	}
	e := commandsTab.lookup(name)
	if e == nil {
		a.genericRefs(s, name, args, c)
		return
	}
	if e.wrapper != nil {
		if inner, reach := e.wrapper(a, s, args, c); inner >= 0 && inner < len(args) {
			wc := a.with(c, reach)
			a.emitCommand(s, args[inner:], &wc)
		}
		return
	}
	if e.interp != nil {
		a.interpArgs(s, name, e.interp, args, c)
	}
	if e.runner != nil {
		e.runner(a, s, name, args, c)
	}
	if e.run != nil && e.run(a, s, name, args, c) {
		return
	}
	a.netAspect(s, name, e, args, c)
	a.fileAspect(s, name, e, args, c)
}

// netAspect applies e's network aspect; the proxies a command is routed
// through are recorded on the network uses it produced.
func (a *analyzer) netAspect(s *syntax.Stmt, name string, e *command, args []field, c *ctx) {
	if e == nil || e.net == nil {
		return
	}
	start := len(a.b.Facts.Network)
	e.net(a, s, name, args, c)
	if len(a.b.Facts.Network) > start {
		a.proxyRoutes(s, name)
	}
}

// fileAspect applies e's file aspect: its handler, else its argSpec, else
// the generic treatment.
func (a *analyzer) fileAspect(s *syntax.Stmt, name string, e *command, args []field, c *ctx) {
	switch {
	case e != nil && e.files != nil:
		e.files(a, s, name, args, c)
	case e == nil || e.spec == nil:
		a.genericRefs(s, name, args, c)
	case e.spec != noFiles:
		a.specFiles(s, name, e.spec, args, c)
	}
}

// exclusive is the run aspect of a command whose arguments are only code
// or text for h: nothing else is applied to them.
func exclusive(h stepHandler) runHandler {
	return func(a *analyzer, s *syntax.Stmt, name string, args []field, c *ctx) bool {
		h(a, s, name, args, c)
		return true
	}
}

// additive is the run aspect of a command whose arguments are also files
// and hosts: the net and files aspects follow h.
func additive(h stepHandler) runHandler {
	return func(a *analyzer, s *syntax.Stmt, name string, args []field, c *ctx) bool {
		h(a, s, name, args, c)
		return false
	}
}

// hasPrefixAny reports whether s starts with one of prefixes.
func hasPrefixAny(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

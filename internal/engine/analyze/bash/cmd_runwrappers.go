package bash

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Run wrappers described as data: programs that run the command in their
// arguments after options of their own (systemd-run, nsenter, bwrap,
// numactl …). Each one's value-taking options are listed, with how many
// values they take, so that an option's value is never taken for the inner
// command and the inner command is never taken for a value.

// runSpec describes the options of one run wrapper.
type runSpec struct {
	// shortVal are the short options that take one value (-p VAL / -pVAL).
	shortVal string
	// longVal maps the long options that take values to how many
	// (--bind SRC DEST is 2); --opt=VAL is always one word.
	longVal map[string]int
	// extra operands precede the command (a new root, a priority).
	extra int
	// noRun are options with which no command runs (taskset -p PID).
	noRun []string
}

// runSpecs are the run wrappers described as data.
var runSpecs = map[string]*runSpec{
	"systemd-run": {shortVal: "pEuMHsC", longVal: vals("--property", "--setenv", "--unit", "--machine", "--host",
		"--description", "--slice", "--uid", "--gid", "--nice", "--working-directory", "--on-calendar",
		"--on-active", "--on-boot", "--on-startup", "--on-unit-active", "--on-unit-inactive", "--timer-property",
		"--path-property", "--socket-property", "--service-type", "--capsule", "--background", "--json")},
	// nsenter's namespace options take an optional value, attached only.
	"nsenter": {shortVal: "tSGL", longVal: vals("--target", "--setuid", "--setgid", "--wdns", "--env-file")},
	"unshare": {shortVal: "SGRwl", longVal: vals("--setuid", "--setgid", "--root", "--wd", "--propagation",
		"--map-user", "--map-group", "--map-users", "--map-groups", "--setgroups", "--monotonic", "--boottime",
		"--load-interp")},
	"setpriv": {longVal: vals("--reuid", "--regid", "--ruid", "--euid", "--rgid", "--egid", "--groups",
		"--inh-caps", "--ambient-caps", "--bounding-set", "--securebits", "--pdeathsig", "--selinux-label",
		"--apparmor-profile", "--landlock-access", "--landlock-rule", "--seccomp-filter")},
	"firejail": {longVal: vals("--profile", "--name", "--join", "--private", "--whitelist", "--blacklist")},
	"bwrap": {longVal: map[string]int{"--bind": 2, "--ro-bind": 2, "--dev-bind": 2, "--bind-try": 2,
		"--ro-bind-try": 2, "--dev-bind-try": 2, "--symlink": 2, "--chmod": 2, "--setenv": 2, "--file": 2,
		"--bind-data": 2, "--ro-bind-data": 2, "--overlay": 3, "--unsetenv": 1, "--lock-file": 1, "--sync-fd": 1,
		"--tmpfs": 1, "--dev": 1, "--proc": 1, "--mqueue": 1, "--dir": 1, "--remount-ro": 1, "--seccomp": 1,
		"--add-seccomp-fd": 1, "--userns": 1, "--userns2": 1, "--pidns": 1, "--uid": 1, "--gid": 1,
		"--hostname": 1, "--chdir": 1, "--exec-label": 1, "--file-label": 1, "--info-fd": 1,
		"--json-status-fd": 1, "--block-fd": 1, "--userns-block-fd": 1, "--cap-add": 1, "--cap-drop": 1,
		"--perms": 1, "--size": 1, "--args": 1, "--argv0": 1, "--overlay-src": 1, "--tmp-overlay": 1,
		"--ro-overlay": 1}},
	"proot": {shortVal: "rbmqwkivRS", longVal: vals("--rootfs", "--bind", "--mount", "--qemu", "--pwd", "--cwd",
		"--kernel-release", "--change-id", "--verbose")},
	"chrt":        {shortVal: "TPD", longVal: vals("--sched-runtime", "--sched-period", "--sched-deadline"), extra: 1, noRun: []string{"-p", "--pid", "-m", "--max"}},
	"taskset":     {extra: 1, noRun: []string{"-p", "--pid"}},
	"numactl":     {shortVal: "imNCpPwb", longVal: vals("--interleave", "--membind", "--cpunodebind", "--physcpubind", "--preferred", "--preferred-many", "--weighted-interleave"), noRun: []string{"-s", "--show", "-H", "--hardware"}},
	"prlimit":     {shortVal: "po", longVal: vals("--pid", "--output"), noRun: []string{"-p", "--pid"}},
	"cgexec":      {shortVal: "g"},
	"faketime":    {shortVal: "p", longVal: vals("--date-prog"), extra: 1},
	"torsocks":    {shortVal: "upaP", longVal: vals("--user", "--pass", "--address", "--port")},
	"proxychains": {shortVal: "f"}, "proxychains4": {shortVal: "f"},
	"unbuffer": {},
}

// specWrapper returns the wrapper handler of a run wrapper described by sp.
func specWrapper(sp *runSpec) innerFunc { return sp.skip }

// skip returns the index of the inner command in args, -1 when none runs.
func (sp *runSpec) skip(args []field) int {
	return skipOpts(args, &optTable{short: sp.shortVal, long: sp.longVal, dyn: dynFlag}, sp.noRun, sp.extra)
}

// registerRunWrappers registers the run wrappers of runSpecs and the ones
// whose command is built from several options.
func registerRunWrappers(r *registry) {
	const topic = "wrappers"
	for name, sp := range runSpecs {
		r.pureWrapper(topic, specWrapper(sp), name)
	}
	r.wrapper(topic, capshWrapper, "capsh")
	r.wrapperPeel(topic, ipWrapper, ipInner, "ip")
	r.wrapper(topic, startStopWrapper, "start-stop-daemon")
	r.wrapper(topic, sgWrapper, "sg")
	r.wrapperPeel(topic, runuserWrapper, runuserInner, "runuser")
}

// capshWrapper: capsh [--opt=VAL…] -- ARGS runs a shell with ARGS
// (`capsh -- -c CMD` is bash -c CMD), the shell of --shell= if given.
func capshWrapper(a *analyzer, s *syntax.Stmt, args []field, c *ctx) (int, string) {
	shell := "bash"
	for i, f := range args {
		if v, ok := strings.CutPrefix(f.s, "--shell="); ok {
			shell = v
		}
		if f.s == "--" {
			run := append([]field{{s: shell}}, args[i+1:]...)
			wc := a.with(c, "wrapper")
			a.emitCommand(s, run, &wc)
			return -1, ""
		}
	}
	return -1, ""
}

// ipWrapper: ip [opts] netns exec NAME CMD (ip -all netns exec CMD) runs
// CMD; ip's other subcommands get the generic treatment. ip accepts
// abbreviations (`ip net e`).
func ipWrapper(a *analyzer, s *syntax.Stmt, args []field, c *ctx) (int, string) {
	if j := ipInner(args); j >= 0 {
		return j, "wrapper"
	}
	a.genericRefs(s, "ip", args, c)
	return -1, ""
}

// ipInner is the inner command of ip netns exec, -1 for ip's other
// subcommands (and a netns exec with no command).
func ipInner(args []field) int {
	i, all := 0, false
	for i < len(args) && strings.HasPrefix(args[i].s, "-") {
		switch strings.TrimPrefix(args[i].s, "-") {
		case "n", "netns", "b", "batch", "rc", "rcvbuf":
			i++
		case "a", "all":
			all = true
		}
		i++
	}
	if i+1 < len(args) && len(args[i].s) >= 3 && strings.HasPrefix("netns", args[i].s) &&
		args[i+1].s != "" && strings.HasPrefix("exec", args[i+1].s) {
		j := i + 3
		if all {
			j = i + 2
		}
		if j < len(args) {
			return j
		}
	}
	return -1
}

// startStopWrapper: start-stop-daemon --start --exec X [--startas Y] --
// ARGS runs Y (else X) with ARGS.
func startStopWrapper(a *analyzer, s *syntax.Stmt, args []field, c *ctx) (int, string) {
	start := false
	var prog *field
	var rest []field
	for i := 0; i < len(args); i++ {
		f := args[i]
		opt, val, hasVal := strings.Cut(f.s, "=")
		switch {
		case f.s == "--":
			rest = args[i+1:]
			i = len(args)
		case opt == "-S" || opt == "--start":
			start = true
		case (opt == "-x" || opt == "--exec" || opt == "-a" || opt == "--startas") && hasVal:
			v := field{s: val, dyn: f.dyn}
			if prog == nil || opt == "-a" || opt == "--startas" {
				prog = &v
			}
		case (opt == "-x" || opt == "--exec" || opt == "-a" || opt == "--startas") && i+1 < len(args):
			i++
			if prog == nil || opt == "-a" || opt == "--startas" {
				prog = &args[i]
			}
		case len(f.s) == 2 && strings.IndexByte("pnucrgNPIkdt", f.s[1]) >= 0,
			contains([]string{"--pidfile", "--name", "--user", "--chuid", "--chroot", "--group", "--nicelevel",
				"--umask", "--chdir", "--signal", "--retry", "--procsched", "--iosched", "--ppid", "--output",
				"--notify-timeout"}, f.s):
			i++
		}
	}
	if !start || prog == nil {
		return -1, ""
	}
	run := append([]field{*prog}, rest...)
	wc := a.with(c, "wrapper")
	a.emitCommand(s, run, &wc)
	return -1, ""
}

// sgWrapper: sg [-] GROUP [-c] CMD runs CMD through /bin/sh -c.
func sgWrapper(a *analyzer, s *syntax.Stmt, args []field, _ *ctx) (int, string) {
	if code, ok := sgCode(args); ok {
		a.nestedShell(s, "sg", code)
	}
	return -1, ""
}

// runuserWrapper: runuser -u USER [--] CMD runs CMD; runuser [-l] USER
// -c CMD runs CMD through the user's shell, as su does.
func runuserWrapper(a *analyzer, s *syntax.Stmt, args []field, _ *ctx) (int, string) {
	if i, code := runuserCode(args); code != nil {
		if i >= 0 {
			a.nestedShell(s, "runuser", *code)
		}
		return -1, ""
	}
	if i := runuserInner(args); i >= 0 {
		return i, "wrapper"
	}
	return -1, ""
}

// runuserCode returns runuser's -c code (i >= 0 when there is one to
// run, code non-nil when -c is given at all).
func runuserCode(args []field) (int, *field) {
	for i, f := range args {
		if f.s == "--" {
			break
		}
		if (f.s == "-c" || f.s == "--command") && i+1 < len(args) {
			return i + 1, &args[i+1]
		}
		if v, ok := strings.CutPrefix(f.s, "--command="); ok {
			return i, &field{s: v, dyn: f.dyn}
		}
	}
	return -1, nil
}

// runuserOpts are runuser's options that take a value.
var runuserOpts = optTable{short: "ugGws", long: vals("--user", "--group", "--supp-group", "--shell",
	"--whitelist-environment")}

// runuserInner is the inner command of runuser -u USER [--] CMD, -1 for
// the -c form or without -u.
func runuserInner(args []field) int {
	if _, code := runuserCode(args); code != nil {
		return -1
	}
	for _, f := range args {
		if f.s == "-u" || f.s == "--user" || strings.HasPrefix(f.s, "--user=") || strings.HasPrefix(f.s, "-u") && len(f.s) > 2 {
			return skipOpts(args, &runuserOpts, nil, 0)
		}
	}
	return -1
}

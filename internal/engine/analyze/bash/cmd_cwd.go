package bash

import "mvdan.cc/sh/v3/syntax"

// Working-directory options: commands that run (or run their inner
// command) in another directory than the shell's — env -C, sudo -D,
// git -C, make -C … The relative paths the command writes are judged
// under that directory, as after a cd (`env -C /etc tar -xf a.tar` writes
// /etc), and the directory is forgotten when the command ends.

// cwdOpt describes the working-directory options of one command.
type cwdOpt struct {
	// dir are the options whose value is the directory ("-C", "--chdir");
	// one not in opts takes its value only attached (nsenter --wd=DIR: a
	// bare --wd names no directory here).
	dir []string
	// opts are the command's options that take a value, the directory
	// options among them, so that a value is never taken for the first
	// operand (where scanning stops when leading).
	opts optTable
	// leading: the options come before the first operand only (a wrapper's
	// inner command, git's subcommand); otherwise they may be anywhere.
	leading bool
	// writesHere: the command writes into its working directory itself (a
	// build), so the directory is recorded as written when it is outside
	// the workspace.
	writesHere bool
}

// makeOpts are make's (and gmake's) working-directory options.
var makeOpts = &cwdOpt{dir: []string{"-C", "--directory"}, opts: optTable{short: "CfIjlOoW", long: vals("--directory",
	"--file", "--makefile", "--include-dir", "--jobs", "--load-average", "--old-file", "--assume-old", "--what-if",
	"--new-file", "--assume-new")}, writesHere: true}

// cwdOpts maps command names to their working-directory options.
var cwdOpts = map[string]*cwdOpt{
	"env": {dir: []string{"-C", "--chdir"}, opts: optTable{short: "CuS", long: vals("--chdir", "--unset", "--split-string")}, leading: true},
	"sudo": {dir: []string{"-D", "--chdir"}, opts: optTable{short: "DugChpRrtTU", long: vals("--chdir", "--user", "--group",
		"--prompt", "--chroot", "--role", "--type", "--close-from", "--host", "--other-user", "--command-timeout")}, leading: true},
	"git": {dir: []string{"-C"}, opts: optTable{short: "Cc", long: vals("--git-dir", "--work-tree", "--namespace",
		"--config-env", "--exec-path")}, leading: true},
	"make":  makeOpts,
	"gmake": makeOpts,
	"ninja": {dir: []string{"-C"}, opts: optTable{short: "Cfjlkdt"}, writesHere: true},
	"nsenter": {dir: []string{"--wd"}, opts: optTable{short: "tSGL", long: vals("--target", "--setuid", "--setgid")},
		leading: true},
	"systemd-run": {dir: []string{"--working-directory"}, opts: optTable{short: "pEuMH", long: vals("--working-directory",
		"--property", "--setenv", "--unit", "--machine", "--host", "--description", "--slice", "--uid", "--gid", "--nice",
		"--on-calendar")}, leading: true},
	"start-stop-daemon": {dir: []string{"-d", "--chdir"}, opts: optTable{short: "dpxnaucrgNPIk", long: vals("--chdir",
		"--pidfile", "--exec", "--name", "--startas", "--user", "--chuid", "--chroot", "--group", "--nicelevel",
		"--umask")}},
}

// cwdOption returns the working directory the command named name runs in
// when its options name one (several -C options compose, as in git and
// make: `-C a -C b` is a/b).
func cwdOption(name string, args []field) (field, bool) {
	o := cwdOpts[name]
	if o == nil {
		return field{}, false
	}
	var dir field
	found := false
	r := o.opts.read(args)
	for {
		it, ok := r.next()
		if !ok || it.end || it.operand() && o.leading {
			break
		}
		if !it.hasVal || !contains(o.dir, it.name) {
			continue
		}
		v := it.val
		found = true
		if dir.s == "" || v.s == "" || v.s[0] == '/' || v.s[0] == '~' || v.s[0] == '$' {
			dir = v
			continue
		}
		dir = field{s: dir.s + "/" + v.s, dyn: dir.dyn || v.dyn}
	}
	return dir, found
}

// inCwdOption applies a working-directory option of the command: the
// shell's directory is moved for the command's analysis (run) and put
// back after it.
func (a *analyzer) inCwdOption(s *syntax.Stmt, name string, args []field, c *ctx, run func()) {
	saved := a.cwd
	if dir, ok := cwdOption(name, args); ok {
		a.chdir(normPath(dir.s), dir.dyn)
	}
	run()
	if cwdOpts[name].writesHere && a.cwd != "" {
		a.addFile(s, field{s: "."}, "write", name, c, fileFlags{})
	}
	a.cwd = saved
}

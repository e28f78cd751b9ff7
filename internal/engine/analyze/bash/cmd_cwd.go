package bash

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Working-directory options: commands that run (or run their inner
// command) in another directory than the shell's — env -C, sudo -D,
// git -C, make -C … The relative paths the command writes are judged
// under that directory, as after a cd (`env -C /etc tar -xf a.tar` writes
// /etc), and the directory is forgotten when the command ends.

// cwdOpt describes the working-directory options of one command.
type cwdOpt struct {
	// short is the short option letter ('C' for -C DIR / -CDIR), 0 if none.
	short byte
	// long are the long options (--chdir DIR / --chdir=DIR).
	long []string
	// attached are long options whose value is optional and so only ever
	// attached (nsenter --wd=DIR; a bare --wd names no directory here).
	attached []string
	// valued are the other options that take a value, so their value is not
	// taken for the first operand (where scanning stops when leading).
	shortVal string
	longVal  []string
	// leading: the options come before the first operand only (a wrapper's
	// inner command, git's subcommand); otherwise they may be anywhere.
	leading bool
	// writesHere: the command writes into its working directory itself (a
	// build), so the directory is recorded as written when it is outside
	// the workspace.
	writesHere bool
}

// cwdOpts maps command names to their working-directory options.
var cwdOpts = map[string]*cwdOpt{
	"env":               {short: 'C', long: []string{"--chdir"}, shortVal: "uS", longVal: []string{"--unset", "--split-string"}, leading: true},
	"sudo":              {short: 'D', long: []string{"--chdir"}, shortVal: "ugChpRrtTU", longVal: []string{"--user", "--group", "--prompt", "--chroot", "--role", "--type", "--close-from", "--host", "--other-user", "--command-timeout"}, leading: true},
	"git":               {short: 'C', shortVal: "c", longVal: []string{"--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path"}, leading: true},
	"make":              {short: 'C', long: []string{"--directory"}, shortVal: "fIjlOoW", longVal: []string{"--file", "--makefile", "--include-dir", "--jobs", "--load-average", "--old-file", "--assume-old", "--what-if", "--new-file", "--assume-new"}, writesHere: true},
	"gmake":             {short: 'C', long: []string{"--directory"}, shortVal: "fIjlOoW", longVal: []string{"--file", "--makefile", "--include-dir", "--jobs", "--load-average", "--old-file", "--assume-old", "--what-if", "--new-file", "--assume-new"}, writesHere: true},
	"ninja":             {short: 'C', shortVal: "fjlkdt", writesHere: true},
	"nsenter":           {attached: []string{"--wd"}, shortVal: "tSGL", longVal: []string{"--target", "--setuid", "--setgid"}, leading: true},
	"systemd-run":       {long: []string{"--working-directory"}, shortVal: "pEuMH", longVal: []string{"--property", "--setenv", "--unit", "--machine", "--host", "--description", "--slice", "--uid", "--gid", "--nice", "--on-calendar"}, leading: true},
	"start-stop-daemon": {short: 'd', long: []string{"--chdir"}, shortVal: "pxnaucrgNPIk", longVal: []string{"--pidfile", "--exec", "--name", "--startas", "--user", "--chuid", "--chroot", "--group", "--nicelevel", "--umask"}, leading: false},
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
	set := func(v field) {
		found = true
		if dir.s == "" || v.s == "" || v.s[0] == '/' || v.s[0] == '~' || v.s[0] == '$' {
			dir = v
			return
		}
		dir = field{s: dir.s + "/" + v.s, dyn: dir.dyn || v.dyn}
	}
	for i := 0; i < len(args); i++ {
		f := args[i]
		if f.s == "--" {
			break
		}
		if !strings.HasPrefix(f.s, "-") || f.s == "-" {
			if o.leading {
				break
			}
			continue
		}
		if strings.HasPrefix(f.s, "--") {
			opt, val, hasVal := strings.Cut(f.s, "=")
			switch {
			case contains(o.long, opt) && hasVal:
				set(field{s: val, dyn: f.dyn})
			case contains(o.attached, opt) && hasVal:
				set(field{s: val, dyn: f.dyn})
			case contains(o.long, opt) && i+1 < len(args):
				i++
				set(args[i])
			case !hasVal && contains(o.longVal, opt):
				i++
			}
			continue
		}
		for j := 1; j < len(f.s); j++ {
			ch := f.s[j]
			if o.short != 0 && ch == o.short {
				if j+1 < len(f.s) {
					set(field{s: f.s[j+1:], dyn: f.dyn})
				} else if i+1 < len(args) {
					i++
					set(args[i])
				}
				break
			}
			if strings.IndexByte(o.shortVal, ch) >= 0 {
				if j == len(f.s)-1 {
					i++
				}
				break
			}
		}
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

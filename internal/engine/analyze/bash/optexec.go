package bash

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Options that run a command: many programs take a shell command line or a
// program to start as an option's value (`tar --checkpoint-action=exec=CMD`,
// `tar --to-command=CMD`, `tar -I CMD`, `zip -TT CMD`, `git clone
// --upload-pack=CMD`, `rsync -e CMD`, `ssh -o ProxyCommand=CMD`, `tcpdump -z
// CMD`, `strace -o '|CMD'`, `man -P CMD`). What the value runs is judged as
// the shell code it is (RULES.md principle 6: command runners), whatever
// else the program does. The table is data: a row per program, an entry per
// option. It is read for every command before its other aspects, so a
// program's own handlers (net, files, runners) need not know of it.

// optExec is one option whose value runs a command.
type optExec struct {
	// name is the option ("--to-command", "-I"). A long option takes its
	// value attached ("--x=V") or as the next argument; a two-letter short
	// option also attached without '=' ("-IV").
	name string
	// prefix, when set, is what the value must start with to run the rest
	// ("exec=" of tar's --checkpoint-action, "|" of strace -o); the rest is
	// the command.
	prefix string
	// sshKeys: the value is an ssh "Key=Value" (or "Key Value") option and
	// only these keys (lower case) run their value.
	sshKeys []string
}

// sshCommandKeys are the ssh_config keywords whose value is a command the
// client runs locally.
var sshCommandKeys = []string{"proxycommand", "localcommand", "knownhostscommand", "remotecommand"}

// optExecTable maps a program to its command-running options.
var optExecTable = map[string][]optExec{
	"tar": {{name: "--to-command"}, {name: "--checkpoint-action", prefix: "exec="}, {name: "-I"},
		{name: "--use-compress-program"}, {name: "--rsh-command"}, {name: "-F"}, {name: "--info-script"},
		{name: "--new-volume-script"}},
	"bsdtar": {{name: "--use-compress-program"}},
	"zip":    {{name: "-TT"}, {name: "--unzip-command"}},
	"rsync":  {{name: "-e"}, {name: "--rsh"}, {name: "--rsync-path"}},
	"scp":    {{name: "-S"}, {name: "-o", sshKeys: sshCommandKeys}},
	"sftp":   {{name: "-S"}, {name: "-o", sshKeys: sshCommandKeys}},
	"ssh":    {{name: "-o", sshKeys: sshCommandKeys}},
	// git's short spellings (-u of clone, -x of rebase) mean other things
	// in other subcommands (push -u, cherry-pick -x): only long options.
	"git":     {{name: "--upload-pack"}, {name: "--receive-pack"}, {name: "--exec"}},
	"tcpdump": {{name: "-z"}},
	"strace":  {{name: "-o", prefix: "|"}, {name: "-o", prefix: "!"}, {name: "--output", prefix: "|"}},
	"ltrace":  {{name: "-o", prefix: "|"}},
	"man":     {{name: "-P"}, {name: "--pager"}, {name: "-H"}, {name: "--html"}},
	"mysql":   {{name: "--pager"}},
	"dpkg":    {{name: "--pre-invoke"}, {name: "--post-invoke"}},
	"apt-get": {{name: "-o", prefix: "APT::Update::Pre-Invoke::="}, {name: "-o", prefix: "DPkg::Pre-Invoke::="},
		{name: "-o", prefix: "DPkg::Post-Invoke::="}, {name: "-o", prefix: "APT::Update::Post-Invoke::="}},
	"apt": {{name: "-o", prefix: "APT::Update::Pre-Invoke::="}, {name: "-o", prefix: "DPkg::Pre-Invoke::="},
		{name: "-o", prefix: "DPkg::Post-Invoke::="}, {name: "-o", prefix: "APT::Update::Post-Invoke::="}},
}

// optExecCommands judges the commands that name's options run.
func (a *analyzer) optExecCommands(s *syntax.Stmt, name string, args []field, c *ctx) {
	rows := optExecTable[name]
	if name == "git" {
		a.gitExtURLs(s, args, c)
	}
	if len(rows) == 0 {
		return
	}
	n := 0
	for i := 0; i < len(args); i++ {
		f := args[i]
		if f.s == "--" {
			return
		}
		for _, o := range rows {
			val, next, ok := optValue(o.name, f, args, i)
			if !ok {
				continue
			}
			if next {
				i++
			}
			code, runs := o.command(val)
			if !runs {
				continue
			}
			switch {
			case code.dyn:
				// a command the scan cannot read: dynamic execution
				a.dynExec(s, "shell_c", name, code, code, false)
			case strings.TrimSpace(code.s) == "":
			case plainCommand(code.s):
				// a program and its words (`tar -I zstd`,
				// `--to-command=cat`): the command itself, as a wrapper
				// runs one, not shell code
				words := strings.Fields(code.s)
				fs := make([]field, len(words))
				for k, w := range words {
					fs[k] = field{s: w}
				}
				wc := a.with(c, name)
				a.emitCommand(s, fs, &wc)
			default:
				a.dynExec(s, "shell_c", name, code, field{}, true)
			}
			if n++; n == maxRunnerExpansions {
				return
			}
			break
		}
	}
}

// plainCommand reports whether code is a program and plain words: nothing
// the shell would interpret (quotes, expansions, operators, redirections,
// comments, globs) and not a shell or interpreter started to run code.
func plainCommand(code string) bool {
	if strings.ContainsAny(code, "'\"\\$`;|&<>()#*?[]{}~\n") {
		return false
	}
	w := strings.Fields(code)
	return len(w) > 0 && !strings.Contains(w[0], "=")
}

// optValue returns the value of option name at args[i]: attached
// ("--x=V", "-xV" for a two-letter short option) or the next argument
// (next is then true).
func optValue(name string, f field, args []field, i int) (val field, next, ok bool) {
	v, attached, ok := optWord(name, f.s)
	switch {
	case !ok:
		return field{}, false, false
	case attached:
		return field{s: v, dyn: f.dyn}, false, true
	case i+1 < len(args):
		return args[i+1], true, true
	}
	return field{}, false, false
}

// optWord reports whether word is option name, alone (attached false: the
// value is the next argument) or with its value attached ("--x=V", or
// "-xV" for a two-letter short option). The one reading of an option word
// for every table in this package that names options.
func optWord(name, word string) (val string, attached, ok bool) {
	switch {
	case word == name:
		return "", false, true
	case len(word) > len(name) && word[len(name)] == '=' && strings.HasPrefix(word, name):
		return word[len(name)+1:], true, true
	case len(name) == 2 && name[0] == '-' && name[1] != '-' && strings.HasPrefix(word, name) && len(word) > 2:
		return word[2:], true, true
	}
	return "", false, false
}

// command returns the command an option value runs, when it runs one.
func (o optExec) command(v field) (field, bool) {
	s := v.s
	if o.sshKeys != nil {
		k, rest, ok := cutSSHOption(s)
		if !ok {
			return field{}, false
		}
		for _, want := range o.sshKeys {
			if k == want {
				if strings.EqualFold(rest, "none") {
					return field{}, false
				}
				return field{s: rest, dyn: v.dyn}, true
			}
		}
		return field{}, false
	}
	if o.prefix != "" {
		rest, ok := strings.CutPrefix(s, o.prefix)
		if !ok {
			return field{}, false
		}
		s = rest
	}
	return field{s: s, dyn: v.dyn}, true
}

// cutSSHOption splits an ssh -o value, "Key=Value" or "Key Value", into the
// lower-case key and the value.
func cutSSHOption(s string) (string, string, bool) {
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, "= \t")
	if i <= 0 {
		return "", "", false
	}
	k := strings.ToLower(s[:i])
	rest := strings.TrimLeft(s[i:], "= \t")
	return k, rest, true
}

// gitExtURLs judges git's ext:: transport, whose URL is a command git runs:
// its words are split at spaces, where "% " is a space inside a word and
// "%%" a percent sign ("ext::sh -c touch% /tmp/x" runs sh with the two
// arguments "-c" and "touch /tmp/x").
func (a *analyzer) gitExtURLs(s *syntax.Stmt, args []field, c *ctx) {
	for _, f := range args {
		rest, ok := strings.CutPrefix(f.s, "ext::")
		if !ok {
			continue
		}
		if f.dyn {
			a.dynExec(s, "shell_c", "git", f, f, false)
			continue
		}
		var words []field
		var w strings.Builder
		for i := 0; i < len(rest); i++ {
			switch ch := rest[i]; {
			case ch == '%' && i+1 < len(rest):
				i++
				switch rest[i] {
				case ' ':
					w.WriteByte(' ')
				case '%':
					w.WriteByte('%')
				}
				// %s, %S, %G: the service and host, judged unknown
			case ch == ' ':
				if w.Len() > 0 {
					words = append(words, field{s: w.String()})
					w.Reset()
				}
			default:
				w.WriteByte(ch)
			}
		}
		if w.Len() > 0 {
			words = append(words, field{s: w.String()})
		}
		if len(words) > 0 {
			wc := a.with(c, "git ext::")
			a.emitCommand(s, words, &wc)
		}
	}
}

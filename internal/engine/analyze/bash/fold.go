package bash

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"path"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// foldResult is the statically computed stdout of a short producer
// pipeline (echo/printf/cat of a heredoc, through decoders).
type foldResult struct {
	content    string
	static     bool
	encoded    bool
	decoders   []string
	downloaded bool
}

// maxFold bounds folded content.
const maxFold = 1 << 16

// maxFoldDepth bounds substitutions folded inside substitutions.
const maxFoldDepth = 8

// foldStmts computes the output of stmts (a substitution body) when it is
// static. It never records facts.
func (a *analyzer) foldStmts(stmts []*syntax.Stmt) foldResult {
	if len(stmts) == 0 {
		return foldResult{static: true}
	}
	if a.foldDepth >= maxFoldDepth {
		return foldResult{}
	}
	a.foldDepth++
	defer func() { a.foldDepth-- }()
	var out foldResult
	out.static = true
	for _, s := range stmts {
		var r foldResult
		if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
			stages, _ := flattenPipe(b.X, nil, nil)
			stages, _ = flattenPipe(b.Y, stages, nil)
			r = a.foldStages(stages)
		} else if _, ok := s.Cmd.(*syntax.CallExpr); ok {
			r = a.foldStages([]*syntax.Stmt{s})
		} else {
			r.downloaded = a.mentionsDownloader(s)
		}
		out.content += r.content
		out.static = out.static && r.static
		out.encoded = out.encoded || r.encoded
		out.decoders = append(out.decoders, r.decoders...)
		out.downloaded = out.downloaded || r.downloaded
		if len(out.content) > maxFold {
			out.static = false
		}
	}
	if out.downloaded {
		out.static = false
	}
	return out
}

// mentionsDownloader reports whether a compound statement runs a
// downloader anywhere inside.
func (a *analyzer) mentionsDownloader(s *syntax.Stmt) bool {
	found := false
	syntax.Walk(s, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok && len(call.Args) > 0 {
			if downloaders[path.Base(call.Args[0].Lit())] {
				found = true
			}
		}
		return !found
	})
	return found
}

// decoderNames are pipeline stages that transform their input.
var decoderNames = map[string]bool{"base64": true, "base32": true, "xxd": true, "rev": true, "tr": true,
	"gunzip": true, "zcat": true, "gzip": true, "bunzip2": true, "bzcat": true, "xz": true, "unxz": true,
	"xzcat": true, "openssl": true, "uudecode": true, "basenc": true, "zstd": true, "unzstd": true}

// foldStages folds a pipeline stage by stage.
func (a *analyzer) foldStages(stages []*syntax.Stmt) foldResult {
	r := foldResult{static: true}
	in, inKnown := "", true
	for i, st := range stages {
		call, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			r.static = false
			r.downloaded = r.downloaded || a.mentionsDownloader(st)
			inKnown = false
			continue
		}
		fs := a.callWords(call)
		if len(fs) == 0 || fs[0].dyn {
			r.static = false
			inKnown = false
			continue
		}
		for _, f := range fs {
			if f.downloaded {
				r.downloaded = true
			}
			if f.enc {
				r.encoded = true
				r.decoders = append(r.decoders, f.decoderList()...)
			}
		}
		// Input from a heredoc / here-string of this stage.
		for _, rd := range st.Redirs {
			switch rd.Op {
			case syntax.Hdoc, syntax.DashHdoc:
				f := a.heredocBody(rd, false)
				in, inKnown = f.s, !f.dyn
			case syntax.WordHdoc:
				f := a.expandOne(rd.Word, false)
				in, inKnown = f.s+"\n", !f.dyn
			case syntax.RdrIn:
				in, inKnown = "", false
			}
		}
		if i == 0 && !stageHasInput(st) {
			in, inKnown = "", false
		}
		name := path.Base(fs[0].s)
		args := fs[1:]
		dyn := false
		for _, f := range args {
			dyn = dyn || f.dyn
		}
		out, outKnown := "", false
		switch {
		case name == "echo":
			s, coded := echoOut(args)
			out, outKnown = s, !dyn
			if coded {
				r.encoded = true
				r.decoders = append(r.decoders, "echo -e")
			}
		case name == "printf":
			s, coded := printfOut(args)
			out, outKnown = s, !dyn
			if coded {
				r.encoded = true
				r.decoders = append(r.decoders, "printf")
			}
		case name == "cat" && len(nonOptions(args)) == 0:
			out, outKnown = in, inKnown
		case (name == "which" || name == "command" || name == "type") && !dyn && len(nonOptions(args)) == 1:
			// `which rm`, `command -v rm`, `type -P rm` print a path.
			if n := nonOptions(args)[0].s; isIdent(strings.ReplaceAll(n, "-", "_")) {
				out, outKnown = "/usr/bin/"+n+"\n", true
			}
		case (name == "dirname" || name == "basename") && !dyn && len(nonOptions(args)) == 1:
			// `$(dirname ~)` is /home: path arithmetic on known text.
			p := normPath(nonOptions(args)[0].s)
			if name == "basename" {
				out, outKnown = path.Base(p)+"\n", true
			} else if p == "~" {
				out, outKnown = path.Dir(assumedHome)+"\n", true
			} else {
				out, outKnown = path.Dir(p)+"\n", true
			}
		case name == "pwd" && len(nonOptions(args)) == 0:
			// The working directory is the workspace: `$(pwd)/.env` is `./.env`.
			out, outKnown = ".\n", true
		case downloaders[name]:
			r.downloaded = true
		case decoderNames[name]:
			dec, s, known, transforms := decode(name, args, in, inKnown && !dyn)
			if transforms {
				r.encoded = true
				r.decoders = append(r.decoders, dec)
			}
			out, outKnown = s, known
		}
		in, inKnown = out, outKnown
		if len(in) > maxFold {
			inKnown = false
		}
	}
	r.content = in
	r.static = r.static && inKnown && !r.downloaded
	if !r.static {
		r.content = ""
	}
	return r
}

func stageHasInput(st *syntax.Stmt) bool {
	for _, rd := range st.Redirs {
		if rd.Op == syntax.Hdoc || rd.Op == syntax.DashHdoc || rd.Op == syntax.WordHdoc {
			return true
		}
	}
	return false
}

func nonOptions(args []field) []field {
	var out []field
	for _, f := range args {
		if !strings.HasPrefix(f.s, "-") || f.s == "-" {
			out = append(out, f)
		}
	}
	return out
}

// echoOut computes echo's output; it reports whether -e decoded character
// codes.
func echoOut(args []field) (string, bool) {
	newline, esc := true, false
	i := 0
	for ; i < len(args); i++ {
		s := args[i].s
		if len(s) < 2 || s[0] != '-' || strings.Trim(s[1:], "neE") != "" {
			break
		}
		for _, c := range s[1:] {
			switch c {
			case 'n':
				newline = false
			case 'e':
				esc = true
			case 'E':
				esc = false
			}
		}
	}
	parts := make([]string, 0, len(args)-i)
	for _, f := range args[i:] {
		parts = append(parts, f.s)
	}
	out := strings.Join(parts, " ")
	coded := false
	if esc {
		out, coded = decodeEscapes(out, false)
	}
	if newline {
		out += "\n"
	}
	return out, coded
}

// printfOut computes printf's output for %s/%b/%d/%c/%% formats.
func printfOut(args []field) (string, bool) {
	if len(args) > 0 && args[0].s == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return "", false
	}
	if args[0].s == "-v" {
		return "", false
	}
	format, coded := decodeEscapes(args[0].s, false)
	rest := args[1:]
	var sb strings.Builder
	ai := 0
	for iter := 0; iter < 64; iter++ {
		consumed := false
		for i := 0; i < len(format); i++ {
			c := format[i]
			if c != '%' || i+1 >= len(format) {
				sb.WriteByte(c)
				continue
			}
			j := i + 1
			for j < len(format) && strings.IndexByte("-+ #0123456789.", format[j]) >= 0 {
				j++
			}
			if j >= len(format) {
				sb.WriteString(format[i:])
				break
			}
			verb := format[j]
			i = j
			if verb == '%' {
				sb.WriteByte('%')
				continue
			}
			arg := ""
			if ai < len(rest) {
				arg = rest[ai].s
				ai++
				consumed = true
			}
			switch verb {
			case 'b':
				d, c2 := decodeEscapes(arg, false)
				coded = coded || c2
				sb.WriteString(d)
			case 'c':
				if arg != "" {
					sb.WriteByte(arg[0])
				}
			case 'd', 'i', 'u':
				if arg == "" {
					arg = "0"
				}
				sb.WriteString(arg)
			default:
				sb.WriteString(arg)
			}
		}
		if !consumed || ai >= len(rest) {
			break
		}
	}
	return sb.String(), coded
}

// decode applies a decoder stage. It returns the decoder's name, the output
// when known, and whether the stage transforms (hides) its input.
func decode(name string, args []field, in string, known bool) (string, string, bool, bool) {
	has := func(opts ...string) bool {
		for _, f := range args {
			for _, o := range opts {
				if f.s == o {
					return true
				}
				if len(o) == 2 && o[0] == '-' && len(f.s) > 1 && f.s[0] == '-' && f.s[1] != '-' && strings.IndexByte(f.s[1:], o[1]) >= 0 {
					return true
				}
			}
		}
		return false
	}
	switch name {
	case "base64", "base32", "basenc":
		if !has("-d", "--decode", "-D") {
			if known && name == "base64" {
				return name, base64.StdEncoding.EncodeToString([]byte(in)) + "\n", true, false
			}
			return name, "", false, false
		}
		if !known {
			return name, "", false, true
		}
		clean := strings.Map(func(r rune) rune {
			if r == ' ' || r == '\n' || r == '\t' || r == '\r' {
				return -1
			}
			return r
		}, in)
		if name == "base32" {
			if b, err := base32.StdEncoding.DecodeString(clean); err == nil {
				return name, string(b), true, true
			}
			return name, "", false, true
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			if b, err := enc.DecodeString(clean); err == nil {
				return "base64", string(b), true, true
			}
		}
		return "base64", "", false, true
	case "xxd":
		if !has("-r") {
			return name, "", false, false
		}
		if !known || !has("-p", "-ps", "-plain", "-postscript") {
			return "hex", "", false, true
		}
		clean := strings.Map(func(r rune) rune {
			if isHex(byte(r)) && r < utf8.RuneSelf {
				return r
			}
			return -1
		}, in)
		if b, err := hex.DecodeString(clean); err == nil {
			return "hex", string(b), true, true
		}
		return "hex", "", false, true
	case "rev":
		if !known {
			return "rev", "", false, true
		}
		lines := strings.Split(in, "\n")
		for i, l := range lines {
			r := []rune(l)
			for x, y := 0, len(r)-1; x < y; x, y = x+1, y-1 {
				r[x], r[y] = r[y], r[x]
			}
			lines[i] = string(r)
		}
		return "rev", strings.Join(lines, "\n"), true, true
	case "tr":
		ops := nonOptions(args)
		del := has("-d")
		if del && len(ops) >= 1 {
			if !known {
				return "tr", "", false, true
			}
			set := expandTrSet(ops[0].s)
			return "tr", strings.Map(func(r rune) rune {
				if strings.ContainsRune(set, r) {
					return -1
				}
				return r
			}, in), true, true
		}
		if len(ops) < 2 || has("-s", "-c", "-C") {
			return "tr", "", false, true
		}
		if !known {
			return "tr", "", false, true
		}
		s1, s2 := []rune(expandTrSet(ops[0].s)), []rune(expandTrSet(ops[1].s))
		if len(s2) == 0 {
			return "tr", "", false, true
		}
		m := map[rune]rune{}
		for i, r := range s1 {
			j := i
			if j >= len(s2) {
				j = len(s2) - 1
			}
			m[r] = s2[j]
		}
		return "tr", strings.Map(func(r rune) rune {
			if x, ok := m[r]; ok {
				return x
			}
			return r
		}, in), true, true
	case "gzip", "xz", "zstd":
		if !has("-d", "--decompress") {
			return name, "", false, false
		}
		return name, "", false, true
	case "openssl":
		if !has("-d") {
			return name, "", false, false
		}
		if has("base64", "-base64", "-a", "-A") && !has("-aes-256-cbc", "-k", "-K", "-pass") {
			// openssl base64 -d / openssl enc -base64 -d
			return decode("base64", []field{{s: "-d"}}, in, known)
		}
		return "openssl", "", false, true
	}
	return name, "", false, true
}

// expandTrSet expands tr ranges (a-z) and escapes.
func expandTrSet(s string) string {
	s, _ = decodeEscapes(s, false)
	switch s {
	case "[:lower:]":
		s = "a-z"
	case "[:upper:]":
		s = "A-Z"
	case "[:digit:]":
		s = "0-9"
	}
	r := []rune(s)
	var sb strings.Builder
	for i := 0; i < len(r); i++ {
		if i+2 < len(r) && r[i+1] == '-' && r[i] <= r[i+2] && r[i+2]-r[i] < 256 {
			for c := r[i]; c <= r[i+2]; c++ {
				sb.WriteRune(c)
			}
			i += 2
			continue
		}
		sb.WriteRune(r[i])
	}
	return sb.String()
}

// stdinInterpreters maps interpreters that run code read from stdin to
// the language of that code ("" when no analyzer exists for it).
func interpreterLang(name string) (string, bool) {
	switch {
	case isShell(name):
		return "bash", true
	case isPython(name):
		return "python", true
	case name == "perl" || name == "ruby" || name == "node" || name == "php" || name == "lua" || name == "Rscript":
		return "", true
	case name == "at" || name == "batch":
		return "bash", true
	case interpByName[name] != nil && !interpByName[name].programArg:
		return "", true // deno, bun, jruby, luajit …: the registry's rows
	}
	return "", false
}

// readsStdinCode reports whether an interpreter invocation takes its
// program from stdin (no -c/-e code, no script operand).
func readsStdinCode(name string, args []field) bool {
	if name == "at" || name == "batch" {
		for _, f := range args {
			if f.s == "-f" || f.s == "-l" || f.s == "-r" || f.s == "-d" || f.s == "-c" {
				return false
			}
		}
		return true
	}
	if l := interpByName[name]; l != nil && !l.programArg {
		// The option syntax of the registry row: no inline program
		// and no script, or "-".
		for _, f := range args {
			if f.dyn {
				return false
			}
		}
		inv := parseInterpArgs(l, args)
		return inv.stdin || len(inv.codes) == 0 && !inv.script
	}
	for i, f := range args {
		if f.dyn {
			return false
		}
		if f.s == "-" || isStdinPath(f.s) {
			return true
		}
		if f.s == "-s" && isShell(name) {
			return true
		}
		if strings.HasPrefix(f.s, "-") {
			if f.s == "-c" || f.s == "-e" && !isShell(name) || f.s == "-m" || f.s == "-E" && name == "perl" {
				return false
			}
			if isShell(name) && !strings.HasPrefix(f.s, "--") && strings.IndexByte(f.s, 'c') >= 0 {
				return false
			}
			if f.s == "-o" && i+1 < len(args) {
				continue
			}
			continue
		}
		if i > 0 && args[i-1].s == "-o" {
			continue
		}
		return false
	}
	return true
}

// pipeInterpreter detects `producer | [decoders |] interpreter` and
// analyzes the folded content nested.
func (a *analyzer) pipeInterpreter(stages []*syntax.Stmt, c *ctx) {
	last := stages[len(stages)-1]
	call, ok := last.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || !mayBe(call, interpreterOrWrapper) && !mayBe(call, isAwk) && !mayBe(call, isLineRunner) &&
		!mayBe(call, isSed) {
		return
	}
	fs := a.callWords(call)
	// See through the wrappers in front of the interpreter (sudo, env,
	// firejail, systemd-run …): the registry's side-effect-free part of
	// each names its inner command, which inherits the pipe.
	for len(fs) > 0 && !fs[0].dyn {
		if n := path.Base(fs[0].s); n == "env" {
			// env -S 'sh -x': the split string is the command.
			if _, split := envSkip(fs[1:]); split >= 0 {
				if split+2 >= len(fs) || fs[split+2].dyn {
					return
				}
				words := []field{}
				for _, w := range strings.Fields(fs[split+2].s) {
					words = append(words, field{s: w})
				}
				fs = append(words, fs[split+3:]...)
				continue
			}
		}
		if words, ok := pipedCode(fs); ok {
			// sg GROUP -c sh: the code's shell reads the pipe.
			fs = words
			continue
		}
		e := commandsTab.lookup(path.Base(fs[0].s))
		if e == nil || e.peel == nil {
			break
		}
		i := e.peel(fs[1:])
		if i < 0 || 1+i >= len(fs) {
			return
		}
		fs = fs[1+i:]
	}
	if len(fs) == 0 || fs[0].dyn {
		return
	}
	name := path.Base(fs[0].s)
	if (name == "source" || name == ".") && len(fs) > 1 && isStdinPath(fs[1].s) {
		name, fs = "bash", fs[:1]
	}
	if isLineRunner(name) {
		// `echo CMD | parallel`: each input line is a command line.
		if !lineRunnerRunsInput(fs[1:]) {
			return
		}
		name = "sh"
	} else if isAwk(name) {
		if !awkRunsInput(fs[1:]) {
			return
		}
	} else if isSed(name) {
		// `echo CMD | sed 's/.*/&/e'`: each input line is a command line.
		if !sedRunsInput(fs[1:]) {
			return
		}
		name = "sh"
	} else if _, ok := interpreterLang(name); !ok || !readsStdinCode(name, fs[1:]) {
		return
	}
	r := a.foldStages(stages[:len(stages)-1])
	content := field{s: r.content, dyn: !r.static, enc: r.encoded, downloaded: r.downloaded}
	content.setDecoders(r.decoders)
	a.dynExec(stages[0], "pipe_interpreter", name, content, field{}, r.static)
}

// knownCommands are the names a glob command word is matched against.
var knownCommands = []string{"rm", "sh", "bash", "dash", "zsh", "ksh", "curl", "wget", "nc", "ncat", "netcat",
	"python", "python3", "perl", "ruby", "node", "php", "sudo", "su", "doas", "chmod", "chown", "chattr", "dd",
	"mkfs", "cat", "cp", "mv", "ls", "echo", "base64", "xxd", "kill", "pkill", "killall", "shred", "find",
	"xargs", "ssh", "scp", "sftp", "rsync", "socat", "telnet", "crontab", "systemctl", "service", "iptables",
	"ufw", "setenforce", "useradd", "usermod", "passwd", "mount", "umount", "tar", "git", "apt", "apt-get",
	"yum", "dnf", "apk", "pip", "pip3", "npm", "awk", "sed", "grep", "head", "tail", "less", "more", "touch",
	"mkdir", "rmdir", "ln", "env", "nohup", "id", "whoami", "uname", "ps", "printf", "tee", "dig", "nslookup",
	"host", "ping", "openssl", "gzip", "gunzip", "zcat", "rev", "tr", "shutdown", "reboot", "halt",
	"poweroff", "history", "unlink", "truncate", "wipefs", "fdisk", "parted", "eval", "exec", "source",
	"timeout", "nice", "strings", "od", "hexdump", "install", "chgrp", "visudo", "pkexec", "unshare"}

// globCandidates returns the known command names matching a glob pattern.
func globCandidates(pattern string) []string {
	var out []string
	for _, n := range knownCommands {
		if ok, err := path.Match(pattern, n); err == nil && ok {
			out = append(out, n)
		}
	}
	return out
}

// producedText collects the static output of every echo/printf inside st
// (a pipeline stage that may be a subshell or group), skipping what cannot
// be known. It serves content that is installed to run later (crontab,
// shell startup files), where the known part is what matters.
func (a *analyzer) producedText(st *syntax.Stmt) string {
	var sb strings.Builder
	syntax.Walk(st, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		fs := a.callWords(call)
		if len(fs) == 0 || fs[0].dyn {
			return false
		}
		switch path.Base(fs[0].s) {
		case "echo":
			out, _ := echoOut(fs[1:])
			sb.WriteString(out)
		case "printf":
			out, _ := printfOut(fs[1:])
			sb.WriteString(out)
		}
		return false
	})
	return sb.String()
}

// installedCode analyzes content that is written somewhere to be run
// later: lines piped into `crontab -` (schedule fields removed) and text
// echoed into shell startup files.
func (a *analyzer) installedCode(s *syntax.Stmt, text, via string, cron bool) {
	var code strings.Builder
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if cron {
			fields := strings.Fields(line)
			skip := 5
			if strings.HasPrefix(fields[0], "@") {
				skip = 1
			} else if strings.Contains(fields[0], "=") {
				continue // environment line
			}
			if len(fields) <= skip {
				continue
			}
			// Keep the command text as written after the schedule.
			rest := line
			for i := 0; i < skip; i++ {
				rest = strings.TrimLeft(rest, " \t")
				k := strings.IndexAny(rest, " \t")
				if k < 0 {
					rest = ""
					break
				}
				rest = rest[k:]
			}
			line = strings.TrimSpace(rest)
		}
		code.WriteString(line)
		code.WriteByte('\n')
	}
	if code.Len() == 0 {
		return
	}
	l, col := a.lc(s.Pos())
	a.nested("bash", code.String(), l, col, via, false)
}

// crontabPipe handles `… | crontab [-]`: the upstream text is installed as
// cron jobs.
func (a *analyzer) crontabPipe(stages []*syntax.Stmt) {
	last := stages[len(stages)-1]
	call, ok := last.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || !mayBe(call, func(n string) bool { return n == "crontab" }) {
		return
	}
	fs := a.callWords(call)
	if len(fs) == 0 || path.Base(fs[0].s) != "crontab" {
		return
	}
	for _, f := range fs[1:] {
		if f.s == "-l" || f.s == "-r" || f.s == "-e" || (f.s != "-" && !strings.HasPrefix(f.s, "-")) {
			return
		}
	}
	var text strings.Builder
	for _, st := range stages[:len(stages)-1] {
		text.WriteString(a.producedText(st))
	}
	a.installedCode(stages[0], text.String(), "crontab", true)
}

// startupFiles are files whose content a shell runs at login or start.
var startupFiles = []string{"~/.bashrc", "~/.bash_profile", "~/.bash_login", "~/.profile", "~/.zshrc",
	"~/.zprofile", "~/.zshenv", "~/.zlogin", "/etc/profile", "/etc/bash.bashrc", "/etc/zshrc", "/etc/rc.local",
	"/etc/environment"}

func isStartupFile(p string) bool {
	p = normPath(p)
	for _, s := range startupFiles {
		if p == s || strings.HasPrefix(p, "/etc/profile.d/") || strings.HasSuffix(p, "/"+strings.TrimPrefix(s, "~/")) && strings.HasPrefix(s, "~/") {
			return true
		}
	}
	return false
}

// startupWrite analyzes echo/printf text redirected into a startup file.
func (a *analyzer) startupWrite(s *syntax.Stmt, name string) {
	if name != "echo" && name != "printf" {
		return
	}
	for _, r := range s.Redirs {
		if r.Op != syntax.AppOut && r.Op != syntax.RdrOut && r.Op != syntax.ClbOut {
			continue
		}
		t, ok := a.staticWord(r.Word)
		if !ok || !isStartupFile(t) {
			continue
		}
		a.installedCode(s, a.producedText(&syntax.Stmt{Cmd: s.Cmd, Position: s.Position}), "startup_file", false)
		return
	}
}

// mayBe is a cheap pre-check before expanding a command's words: a plain
// literal command name must satisfy want; anything else (quotes,
// expansions) might and is expanded.
func mayBe(call *syntax.CallExpr, want func(string) bool) bool {
	if len(call.Assigns) > 0 {
		return true
	}
	lit := call.Args[0].Lit()
	if lit == "" || hasWordMeta(lit) {
		return true
	}
	return want(path.Base(lit))
}

// isLineRunner reports a program that runs each line of its input as a
// command line when given no command of its own (GNU parallel, sem).
func isLineRunner(n string) bool { return n == "parallel" || n == "sem" }

// lineRunnerRunsInput reports whether parallel's arguments leave the
// command to stdin: options only, no template and no ::: inputs.
func lineRunnerRunsInput(args []field) bool {
	for i := 0; i < len(args); i++ {
		f := args[i]
		if f.dyn || strings.HasPrefix(f.s, ":::") {
			return false
		}
		if !strings.HasPrefix(f.s, "-") {
			return false
		}
		switch f.s {
		case "-j", "--jobs", "-S", "--sshlogin", "--joblog", "--results", "-d", "--delimiter", "--timeout",
			"--retries", "-P", "--max-procs", "--tmpdir", "--workdir", "--wd":
			i++
		case "-a", "--arg-file", "-n", "--max-args", "-N", "-X", "-m":
			return false // arguments for a command, not command lines
		}
	}
	return true
}

// isAwk reports an awk implementation's name.
func isAwk(n string) bool { return n == "awk" || n == "gawk" || n == "mawk" || n == "nawk" }

// awkRunsInput reports whether an awk invocation's program passes its
// input lines to system() (`awk '{system($0)}'`): awk is then a shell
// reading the pipe.
func awkRunsInput(args []field) bool {
	for i := 0; i < len(args); i++ {
		f := args[i]
		if f.s == "-F" || f.s == "-v" {
			i++
			continue
		}
		if strings.HasPrefix(f.s, "-") && len(f.s) > 1 {
			if f.s == "-f" {
				return false
			}
			continue
		}
		if f.dyn {
			return false
		}
		_, fromInput, _ := awkSystemArgs(f.s)
		return fromInput
	}
	return false
}

// interpreterOrWrapper reports an interpreter, source, or a wrapper the
// registry can see through (a pipe into it may reach an interpreter).
func interpreterOrWrapper(n string) bool {
	if _, ok := interpreterLang(n); ok || n == "source" || n == "." {
		return true
	}
	e := commandsTab.lookup(n)
	return e != nil && e.peel != nil || codeRunners[n] != nil
}

func isKnownCommand(name string) bool {
	for _, n := range knownCommands {
		if n == name {
			return true
		}
	}
	return false
}

package bash

import (
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/toolwarden/toolwarden/sdk"
)

// The interpreter registry: what each scripting language's own APIs do,
// as data. A language lists the options that pass it inline code, how it
// concatenates strings, the expressions that stand for the home directory
// and its API calls with their effect. One generic scanner (interpscan.go)
// reads inline code with these tables and records the same facts the shell
// commands would (a command run, a file read, written or deleted, a URL
// fetched), so `perl -e 'unlink glob("$ENV{HOME}/.ssh/*")'` is judged like
// `rm ~/.ssh/*`. Adding a language or an API is adding a row.

// apiEffect is what an interpreter API does with its arguments.
type apiEffect uint8

const (
	// effShell runs its argument as a shell command line, or its
	// arguments as an argv list (system, exec, popen, execSync…).
	effShell apiEffect = iota + 1
	// effRead, effWrite, effAppend and effDelete access the path given as
	// the first static string argument.
	effRead
	effWrite
	effAppend
	effDelete
	// effDeleteTree deletes a directory tree (rm_rf, rmtree, rmSync).
	effDeleteTree
	// effOpen opens a path with a mode argument ("r", "w", "<", ">>"…)
	// or a perl-style mode prefix ("<path", ">path", "|cmd").
	effOpen
	// effNet fetches a URL given as a static string argument, or found
	// among the call's string literals (an options object's url/host
	// field); the environment values and file contents its arguments
	// carry are sent (interpNet).
	effNet
	// effEval runs a string as code of the same language.
	effEval
	// effPass is a pure function of its string arguments whose value is
	// their concatenation with "/" (File.expand_path, path.join, glob,
	// URI): it is folded, not recorded.
	effPass
	// effFormat is sprintf-like: "%s" in the first argument is replaced
	// by the following arguments in order.
	effFormat
	// effURL is a URL constructor with an optional base (new URL(path,
	// base)): an absolute first argument, else the base joined with it.
	effURL
	// effConnect opens a raw connection to the host given as a static
	// string argument, "host" or "host:port", or an options object's
	// host literal (net.connect, TCPSocket.new, IO::Socket::INET->new,
	// fsockopen, socket.connect).
	effConnect
	// effSend sends its arguments on a connection made elsewhere
	// (curl_setopt's POSTFIELDS): only the environment values it carries
	// are recorded, as sent over the network.
	effSend
	// effConcat is a pure function whose value is the concatenation of
	// its string arguments (R's paste0).
	effConcat
	// effVector is a pure function whose value is the list of its string
	// arguments (R's c("-rf", "/")), an argv when passed to a process API.
	effVector
	// effList lists the directory or glob pattern given as the first
	// static string argument (Dir.glob, readdirSync, scandir): recorded
	// as `ls` is, a list of that path, so listing a denied directory
	// (and reading what it yields) is judged as ls ~/.ssh/* is.
	effList
)

// interpAPI is one API of a language; name may be qualified ("os.execute",
// "File.read"): a call matches when its dotted name ends with it.
type interpAPI struct {
	name string
	eff  apiEffect
}

// interpLang describes one interpreter for the scanner.
type interpLang struct {
	// names are the command names that start the interpreter.
	names []string
	// inline are the options whose next argument is program text.
	// programArg is set when the first operand is the program (awk, sed).
	inline     []string
	programArg bool
	// concat are the string concatenation operators; juxtapose is set when
	// adjacent strings concatenate (awk).
	concat    []string
	juxtapose bool
	// home are expressions whose value is the home directory.
	home []string
	// backticks is set when `…` (and qx/%x forms) runs a shell command.
	backticks bool
	// awkIO is set for awk's own I/O syntax (`cmd | getline`, `print >
	// file`, `print | cmd`).
	awkIO bool
	// bareCalls is set when a call may omit parentheses (`system "x"`).
	bareCalls bool
	apis      []interpAPI
	// wholeEnv are expressions for the whole environment as one value
	// (perl %ENV, node process.env passed whole, php getenv()); printers
	// are the language's output calls. Code holding both prints every
	// variable, secrets included (an Output of "*", see codeEnvDump).
	wholeEnv, printers []string
	// envVar are regular expressions whose first group is the name of an
	// environment variable read (`process\.env\.(\w+)`); envAll match
	// the whole environment as one value. They find what a network call's
	// arguments carry (string interpolation included), for
	// DATA_EXFILTRATION.
	envVar, envAll []string
	// clusters is set when short options combine into one word (perl
	// -lane, ruby -ne, perl -pi.bak): each letter is an option; a letter
	// of restFlags takes the rest of the word as its value (or, for
	// sepFlags, the next word when nothing follows), one of digitFlags
	// only the digits after it (perl -l0, -0777).
	clusters                        bool
	restFlags, sepFlags, digitFlags string
	// loopFlags are the options that wrap the code in a loop over the
	// lines of the file operands (perl/ruby -n, -p): the operands are
	// files read. inplace is the option that rewrites them (-i).
	loopFlags string
	inplace   byte
	// argvRead are regular expressions for code that reads the lines of
	// the file operands itself (perl <>, ruby ARGF, gets).
	argvRead []string
	// argv are the expressions for the program's n-th operand, a %d
	// standing for n+argvBase (perl $ARGV[%d], node process.argv[%d]);
	// an expression without %d is the first operand (ARGV.first). They
	// are folded to the operand's value, so `open F, $ARGV[0]` given
	// ~/.ssh/id_rsa reads it.
	argv     []string
	argvBase int
	// subInline are subcommands whose next word is the program text
	// (deno eval, bun eval); subSkip are subcommands that precede the
	// script or "-" (deno run).
	subInline, subSkip []string
	// sigils is set when "$" only starts a variable name (perl, php), so
	// `system$_` is the call system with $_.
	sigils bool
	// assign are assignment operators besides "=" (R's "<-").
	assign []string
	// netFiles are the prefixes of paths that open a network connection
	// when read or written (gawk's /inet/tcp/…).
	netFiles []string
	// treeFlags are argument texts (spaces removed) that make a delete
	// API recursive (R's unlink(p, recursive=TRUE)).
	treeFlags []string
	// rewrite turns the language's own syntax into the call syntax the
	// scanner reads, before it is tokenized (Tcl's command words,
	// interptcl.go).
	rewrite func(string) string
}

// netFile reports whether p is one of lang's network special files.
func (l *interpLang) netFile(p string) bool {
	return hasPrefixAny(p, l.netFiles...)
}

// envRes caches the compiled envVar and envAll expressions of each
// language.
var envRes = map[*interpLang][2][]*regexp.Regexp{}

// argvReadRes caches the compiled argvRead expressions of each language.
var argvReadRes = map[*interpLang][]*regexp.Regexp{}

func init() {
	for _, l := range interpreters {
		var res [2][]*regexp.Regexp
		for _, e := range l.envVar {
			res[0] = append(res[0], regexp.MustCompile(e))
		}
		for _, e := range l.envAll {
			res[1] = append(res[1], regexp.MustCompile(e))
		}
		envRes[l] = res
		for _, e := range l.argvRead {
			argvReadRes[l] = append(argvReadRes[l], regexp.MustCompile(e))
		}
	}
}

// envRefs returns the environment variable names text reads in lang, "*"
// for the whole environment.
func (l *interpLang) envRefs(text string) []string {
	res := envRes[l]
	var out []string
	for _, re := range res[0] {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			out = append(out, m[1])
		}
	}
	for _, re := range res[1] {
		if re.MatchString(text) {
			out = append(out, "*")
			break
		}
	}
	return out
}

var shellAPIs = []interpAPI{{"system", effShell}, {"exec", effShell}, {"popen", effShell}, {"spawn", effShell}}

// interpreters is the registry.
var interpreters = []*interpLang{
	{
		names: []string{"perl"}, inline: []string{"-e", "-E"}, concat: []string{"."}, backticks: true, bareCalls: true, sigils: true,
		clusters: true, restFlags: "iFIMmxCdD", sepFlags: "I", digitFlags: "l0", loopFlags: "np", inplace: 'i',
		argvRead: []string{`<(?:<>|ARGV|\$ARGV)?>`, `\breadline\s*\(?\s*\*?ARGV\b`, `\beof\s*\(\s*\)`},
		argv:     []string{"$ARGV[%d]", "shift(@ARGV)", "shift @ARGV"},
		wholeEnv: []string{"%ENV"}, printers: []string{"print", "say", "printf", "Dumper"},
		home:   []string{"$ENV{HOME}", "$ENV{'HOME'}", `$ENV{"HOME"}`, "File::HomeDir->my_home"},
		envVar: []string{`\$ENV\{\s*['"]?(\w+)['"]?\s*\}`}, envAll: []string{`%ENV\b`},
		apis: append([]interpAPI{{"qx", effShell}, {"readpipe", effShell}, {"open", effOpen}, {"sysopen", effOpen},
			{"unlink", effDelete}, {"remove_tree", effDeleteTree}, {"rmtree", effDeleteTree}, {"rmdir", effDelete},
			{"glob", effPass}, {"sprintf", effFormat}, {"eval", effEval}, {"get", effNet}, {"getstore", effNet},
			{"getprint", effNet}, {"post", effNet}, {"post_form", effNet}, {"put", effNet}, {"request", effNet},
			{"mirror", effNet}, {"head", effNet}, {"IO::Socket::INET->new", effConnect}, {"IO::Socket::IP->new", effConnect},
			{"IO::Socket::SSL->new", effConnect}, {"IO::Socket::INET", effConnect}, {"IO::Socket::IP", effConnect},
			{"connect", effConnect}, {"File::Slurp::read_file", effRead}, {"read_file", effRead}, {"write_file", effWrite},
			{"copy", effRead}}, shellAPIs...),
	},
	{
		names: []string{"ruby", "jruby"}, inline: []string{"-e"}, concat: []string{"+", "<<"}, backticks: true, bareCalls: true,
		clusters: true, restFlags: "iFIrxCEKTW", sepFlags: "rICE", digitFlags: "0", loopFlags: "np", inplace: 'i',
		argvRead: []string{`\bARGF\b`, `\$<`, `(?:^|[^.\w:])(?:gets|readlines|readline)\b`},
		argv:     []string{"ARGV[%d]", "ARGV.first", "ARGV.shift", "$*[%d]"},
		wholeEnv: []string{"ENV.to_h", "ENV.to_a", "ENV.each", "ENV.inspect", "ENV.map", "ENV.sort", "ENV.select",
			"ENV.keys.each", "p ENV", "pp ENV", "puts ENV", "p(ENV", "pp(ENV", "ENV.to_s"},
		printers: []string{"p ", "pp ", "puts", "print", "printf", "p(", "pp(", "display", "$stdout", "STDOUT"},
		home:     []string{"Dir.home", "ENV['HOME']", `ENV["HOME"]`, "Etc.getpwuid.dir"},
		envVar:   []string{`\bENV\[\s*['"](\w+)['"]\s*\]`, `\bENV\.fetch\(\s*['"](\w+)['"]`},
		envAll:   []string{`\bENV\.(?:to_h|to_a|to_hash|inspect|to_s|map|each|select|sort|keys|values)\b`, `\bENV\s*(?:[,)}]|$)`},
		apis: append([]interpAPI{{"IO.popen", effShell}, {"Open3.capture2", effShell}, {"Open3.capture2e", effShell},
			{"Open3.capture3", effShell}, {"Open3.popen3", effShell}, {"PTY.spawn", effShell},
			{"File.read", effRead}, {"IO.read", effRead}, {"File.readlines", effRead}, {"IO.readlines", effRead},
			{"File.binread", effRead}, {"File.foreach", effRead}, {"IO.foreach", effRead}, {"IO.binread", effRead}, {"File.open", effOpen}, {"File.new", effOpen},
			{"File.write", effWrite}, {"IO.write", effWrite}, {"File.binwrite", effWrite},
			{"File.delete", effDelete}, {"File.unlink", effDelete}, {"FileUtils.rm", effDelete}, {"FileUtils.rm_f", effDelete},
			{"FileUtils.rm_rf", effDeleteTree}, {"FileUtils.rm_r", effDeleteTree}, {"FileUtils.remove_dir", effDeleteTree},
			{"FileUtils.remove_entry", effDeleteTree}, {"FileUtils.cp", effRead}, {"FileUtils.cp_r", effRead},
			{"File.expand_path", effPass}, {"File.join", effPass}, {"URI", effPass}, {"URI.parse", effPass},
			{"Dir.glob", effList}, {"Dir.children", effList}, {"Dir.entries", effList}, {"Dir.each_child", effList},
			{"Net::HTTP.get", effNet}, {"Net::HTTP.post", effNet}, {"Net::HTTP.get_response", effNet},
			{"Net::HTTP.post_form", effNet}, {"Net::HTTP.start", effNet}, {"Net::HTTP.new", effNet},
			{"Net::HTTP.get_print", effNet}, {"HTTParty.get", effNet}, {"HTTParty.post", effNet},
			{"Faraday.get", effNet}, {"Faraday.post", effNet}, {"RestClient.get", effNet}, {"RestClient.post", effNet},
			{"TCPSocket.new", effConnect}, {"TCPSocket.open", effConnect}, {"Socket.tcp", effConnect},
			{"UDPSocket.new.send", effConnect}, {"open", effOpen},
			{"URI.open", effNet}, {"open-uri", effNet}, {"format", effFormat}, {"sprintf", effFormat},
			{"eval", effEval}, {"instance_eval", effEval}}, shellAPIs...),
	},
	jsLang([]string{"node", "nodejs"}, nil, nil),
	jsLang([]string{"deno"}, []string{"eval"}, []interpAPI{{"Deno.readTextFile", effRead},
		{"Deno.readTextFileSync", effRead}, {"Deno.readFile", effRead}, {"Deno.readFileSync", effRead},
		{"Deno.open", effRead}, {"Deno.openSync", effRead}, {"Deno.copyFile", effRead}, {"Deno.copyFileSync", effRead},
		{"Deno.writeTextFile", effWrite}, {"Deno.writeTextFileSync", effWrite}, {"Deno.writeFile", effWrite},
		{"Deno.writeFileSync", effWrite}, {"Deno.remove", effDelete}, {"Deno.removeSync", effDelete},
		{"Deno.readDir", effList}, {"Deno.readDirSync", effList}, {"Deno.Command", effShell}, {"Deno.run", effShell},
		{"Deno.connect", effConnect}, {"Deno.connectTls", effConnect}}),
	jsLang([]string{"bun"}, []string{"eval"}, []interpAPI{{"Bun.file", effRead}, {"Bun.write", effWrite},
		{"Bun.spawn", effShell}, {"Bun.spawnSync", effShell}, {"Bun.$", effShell}, {"Bun.connect", effConnect}}),
	{
		names: []string{"php"}, inline: []string{"-r"}, concat: []string{"."}, backticks: true, sigils: true,
		argv: []string{"$argv[%d]", "$_SERVER['argv'][%d]", `$_SERVER["argv"][%d]`}, argvBase: 1,
		wholeEnv: []string{"getenv()", "$_ENV", "$_SERVER"},
		printers: []string{"print_r", "var_dump", "var_export", "echo", "print", "printf", "json_encode"},
		envVar:   []string{`getenv\(\s*['"](\w+)['"]`, `\$_(?:ENV|SERVER)\[\s*['"](\w+)['"]\s*\]`},
		envAll:   []string{`getenv\(\s*\)`, `\$_ENV(?:$|[^\[\w])`},
		home:     []string{`getenv("HOME")`, "getenv('HOME')", `$_SERVER["HOME"]`, "$_SERVER['HOME']", `$_ENV["HOME"]`, "$_ENV['HOME']"},
		apis: append([]interpAPI{{"shell_exec", effShell}, {"passthru", effShell}, {"proc_open", effShell},
			{"pcntl_exec", effShell}, {"file_get_contents", effRead}, {"readfile", effRead}, {"file", effRead},
			{"fopen", effOpen}, {"file_put_contents", effWrite}, {"unlink", effDelete}, {"rmdir", effDelete},
			{"copy", effRead}, {"curl_init", effNet}, {"curl_setopt", effSend}, {"curl_setopt_array", effSend},
			{"stream_context_create", effSend}, {"fsockopen", effConnect}, {"pfsockopen", effConnect},
			{"stream_socket_client", effConnect}, {"sprintf", effFormat}, {"eval", effEval},
			{"glob", effList}, {"scandir", effList}, {"opendir", effList},
			{"assert", effEval}}, shellAPIs...),
	},
	{
		names: []string{"lua", "luajit", "lua5.1", "lua5.2", "lua5.3", "lua5.4"}, inline: []string{"-e"}, concat: []string{".."},
		bareCalls: true,
		home:      []string{`os.getenv("HOME")`, "os.getenv('HOME')"},
		envVar:    []string{`os\.getenv\(\s*['"](\w+)['"]`},
		apis: []interpAPI{{"http.request", effNet}, {"https.request", effNet}, {"socket.connect", effConnect},
			{"connect", effConnect}, {"os.execute", effShell}, {"io.popen", effShell}, {"io.open", effOpen}, {"io.lines", effRead},
			{"os.remove", effDelete}, {"string.format", effFormat}, {"loadstring", effEval}, {"load", effEval},
			{"dofile", effEval}},
	},
	{
		// Tcl: commands of words, read through tclCalls.
		names: []string{"tclsh", "tclsh8.6", "tclsh9.0", "wish"}, concat: []string{"+"},
		rewrite: tclCalls,
		home:    []string{"$env(HOME)", "$::env(HOME)", "${env(HOME)}", "[file normalize ~]"},
		apis: []interpAPI{{"exec", effShell}, {"open", effOpen}, {"socket", effConnect}, {"http::geturl", effNet},
			{"eval", effEval}, {"uplevel", effEval}, {"source", effRead}, {"file.delete", effDelete},
			{"file.copy", effRead}, {"file.rename", effRead}, {"glob", effList}, {"format", effFormat},
			{"file.join", effPass}},
	},
	{
		names: []string{"Rscript", "R"}, inline: []string{"-e", "--expr"}, assign: []string{"<-"},
		home:   []string{`Sys.getenv("HOME")`, "Sys.getenv('HOME')", `path.expand("~")`, "path.expand('~')"},
		envVar: []string{`Sys\.getenv\(\s*['"](\w+)['"]`}, envAll: []string{`Sys\.getenv\(\s*\)`},
		wholeEnv: []string{"Sys.getenv()"}, printers: []string{"print", "cat", "str", "writeLines", "message"},
		treeFlags: []string{"recursive=TRUE", "recursive=T"},
		apis: []interpAPI{{"system", effShell}, {"system2", effShell}, {"shell", effShell}, {"pipe", effShell},
			{"readLines", effRead}, {"readRDS", effRead}, {"read.csv", effRead}, {"read.table", effRead},
			{"readChar", effRead}, {"scan", effRead}, {"source", effRead}, {"file", effOpen}, {"file.copy", effRead},
			{"file.remove", effDelete}, {"unlink", effDelete}, {"download.file", effNet}, {"url", effNet},
			{"httr::GET", effNet}, {"httr::POST", effNet}, {"GET", effNet}, {"POST", effNet},
			{"curl::curl_download", effNet}, {"curl_download", effNet}, {"curl::curl", effNet},
			{"socketConnection", effConnect}, {"make.socket", effConnect}, {"eval", effEval},
			{"sprintf", effFormat}, {"file.path", effPass}, {"paste0", effConcat}, {"c", effVector},
			{"list.files", effList}, {"dir", effList}},
	},
	{
		names: []string{"awk", "gawk", "mawk", "nawk", "busybox-awk"}, programArg: true, juxtapose: true, awkIO: true,
		netFiles: []string{"/inet/", "/inet4/", "/inet6/"},
		wholeEnv: []string{"in ENVIRON"}, printers: []string{"print"},
		home:   []string{`ENVIRON["HOME"]`},
		envVar: []string{`ENVIRON\[\s*"(\w+)"\s*\]`}, envAll: []string{`\bin\s+ENVIRON\b`},
		apis: []interpAPI{{"system", effShell}, {"sprintf", effFormat}},
	},
}

// interpByName indexes the registry by command name.
var interpByName = func() map[string]*interpLang {
	m := map[string]*interpLang{}
	for _, l := range interpreters {
		for _, n := range l.names {
			m[n] = l
		}
	}
	return m
}()

// lookupAPI returns the API a dotted call name denotes in lang.
func (l *interpLang) lookupAPI(name string) (interpAPI, bool) {
	name = strings.TrimPrefix(name, ".")
	best, found := interpAPI{}, false
	for _, api := range l.apis {
		if name == api.name || strings.HasSuffix(name, "."+api.name) || strings.HasSuffix(name, "::"+api.name) ||
			strings.HasSuffix(name, "->"+api.name) {
			if !found || len(api.name) > len(best.name) {
				best, found = api, true
			}
		}
	}
	return best, found
}

// interpArgs finds the inline program of a registered interpreter's
// command line and scans it; the operands after it are files read when
// the program loops over them (perl -n, ruby -p) or reads them itself
// (<>, ARGF), and the values of its argv expressions.
func (a *analyzer) interpArgs(s *syntax.Stmt, name string, l *interpLang, args []field, c *ctx) {
	if l.programArg {
		for i := 0; i < len(args); i++ {
			f := args[i]
			switch {
			case f.s == "-f" || f.s == "--file":
				if i+1 < len(args) {
					a.scriptOperand(s, name, args[i+1], c)
				}
				return
			case f.s == "-F" || f.s == "-v" || f.s == "-i" || f.s == "-l":
				i++
				continue
			case strings.HasPrefix(f.s, "-") && len(f.s) > 1:
				continue
			}
			a.interpCode(s, name, l, f, c)
			return
		}
		return
	}
	inv := parseInterpArgs(l, args)
	switch {
	case inv.script:
		// A script file, judged by the command's own run handler when it
		// has one (it reads the interpreter's own options), else here;
		// under -n/-p its operands are still the files the loop reads.
		if e := commandsTab.lookup(name); e == nil || e.run == nil {
			a.scriptOperand(s, name, args[inv.at], c)
		}
		a.interpOperands(s, name, l, inv, field{dyn: true}, c)
		return
	case inv.stdin || len(inv.codes) == 0:
		// Neither inline code nor a script: the program is read from
		// standard input.
		a.interpStdin(s, name, l, c)
		return
	}
	code := joinCode(inv.codes)
	a.interpCode(s, name, l, code, c, inv.operands...)
	a.interpOperands(s, name, l, inv, code, c)
}

// interpInvocation is what an interpreter's command line runs.
type interpInvocation struct {
	// codes are the inline program texts, in order (perl -e a -e b).
	codes []field
	// flags are the single-letter options given (clustered languages).
	flags string
	// operands are the words after the program: its arguments.
	operands []field
	// stdin is set when the program is read from standard input ("-"),
	// script when the word at index at is a script file.
	stdin, script bool
	at            int
}

// parseInterpArgs reads an interpreter's command line with the option
// syntax of its registry row.
func parseInterpArgs(l *interpLang, args []field) interpInvocation {
	var inv interpInvocation
	for i := 0; i < len(args); i++ {
		f := args[i]
		if len(inv.codes) > 0 {
			// After the program: more options, then its operands.
			if f.s == "--" {
				inv.operands = args[i+1:]
				return inv
			}
			if strings.HasPrefix(f.s, "-") && f.s != "-" {
				if code, next, ok := l.inlineOption(args, i, &inv.flags); ok {
					inv.codes = append(inv.codes, code)
					i = next
				} else if l.clusters {
					inv.flags += l.clusterFlags(args, &i)
				}
				continue
			}
			inv.operands = args[i:]
			return inv
		}
		switch {
		case f.s == "-":
			inv.stdin, inv.at = true, i
			return inv
		case f.s == "--":
			if i+1 < len(args) {
				inv.script, inv.at = true, i+1
			}
			return inv
		case isScriptFile(f.s):
			inv.script, inv.at, inv.operands = true, i, args[i+1:]
			return inv
		case contains(l.subInline, f.s) && i+1 < len(args):
			inv.codes = append(inv.codes, args[i+1])
			i++
			continue
		}
		if code, next, ok := l.inlineOption(args, i, &inv.flags); ok {
			inv.codes = append(inv.codes, code)
			i = next
			continue
		}
		switch {
		case strings.HasPrefix(f.s, "--"):
		case l.clusters && strings.HasPrefix(f.s, "-"):
			inv.flags += l.clusterFlags(args, &i)
		case l.clusters:
			// perl and ruby run their first operand as the script.
			inv.script, inv.at, inv.operands = true, i, args[i+1:]
			return inv
		}
	}
	return inv
}

// inlineOption reports whether args[i] passes program text: an inline
// option followed by the text (-e CODE, --eval CODE, --eval=CODE), a
// cluster ending in one (perl -ne CODE, node -pe CODE) or joined to it
// (perl -eCODE). next is the index of the last word used. The letters of
// the cluster before the inline one are added to flags.
func (l *interpLang) inlineOption(args []field, i int, flags *string) (field, int, bool) {
	f := args[i]
	for _, fl := range l.inline {
		if f.s == fl {
			if i+1 < len(args) {
				return args[i+1], i + 1, true
			}
			return field{}, i, false
		}
		if strings.HasPrefix(fl, "--") && strings.HasPrefix(f.s, fl+"=") {
			return field{s: f.s[len(fl)+1:], dyn: f.dyn}, i, true
		}
	}
	if !strings.HasPrefix(f.s, "-") || strings.HasPrefix(f.s, "--") || len(f.s) < 2 {
		return field{}, i, false
	}
	if !l.clusters {
		// node -pe CODE: short options before the inline one.
		if len(f.s) <= 5 && isLetters(f.s[1:]) && l.inlineLetter(f.s[len(f.s)-1]) && i+1 < len(args) {
			return args[i+1], i + 1, true
		}
		return field{}, i, false
	}
	for k := 1; k < len(f.s); k++ {
		ch := f.s[k]
		if l.inlineLetter(ch) {
			if rest := f.s[k+1:]; rest != "" {
				return field{s: rest, dyn: f.dyn}, i, true
			}
			if i+1 < len(args) {
				return args[i+1], i + 1, true
			}
			return field{}, i, false
		}
		if flags != nil {
			*flags += string(ch)
		}
		if strings.IndexByte(l.restFlags, ch) >= 0 {
			return field{}, i, false
		}
		if strings.IndexByte(l.digitFlags, ch) >= 0 {
			for k+1 < len(f.s) && (f.s[k+1] >= '0' && f.s[k+1] <= '9' || ch == '0' && f.s[k+1] == 'x') {
				k++
			}
		}
	}
	return field{}, i, false
}

// inlineLetter reports whether ch is the letter of a one-letter inline
// option (-e, -E, -r).
func (l *interpLang) inlineLetter(ch byte) bool {
	for _, fl := range l.inline {
		if len(fl) == 2 && fl[1] == ch {
			return true
		}
	}
	return false
}

// clusterFlags returns the option letters of the cluster args[*i] (no
// inline option in it), consuming the next word when a value option
// takes it.
func (l *interpLang) clusterFlags(args []field, i *int) string {
	f := args[*i]
	var out []byte
	for k := 1; k < len(f.s); k++ {
		ch := f.s[k]
		out = append(out, ch)
		if strings.IndexByte(l.restFlags, ch) >= 0 {
			if k+1 == len(f.s) && strings.IndexByte(l.sepFlags, ch) >= 0 && *i+1 < len(args) {
				*i++
			}
			break
		}
		if strings.IndexByte(l.digitFlags, ch) >= 0 {
			for k+1 < len(f.s) && (f.s[k+1] >= '0' && f.s[k+1] <= '9' || ch == '0' && f.s[k+1] == 'x') {
				k++
			}
		}
	}
	return string(out)
}

// joinCode is the program of several inline options, one per line.
func joinCode(codes []field) field {
	if len(codes) == 1 {
		return codes[0]
	}
	var out field
	for k, c := range codes {
		if k > 0 {
			out.s += "\n"
		}
		out.s += c.s
		out.dyn = out.dyn || c.dyn
	}
	return out
}

// interpOperands records the operands of inline code as files read when
// the program loops over their lines (perl -n/-p, ruby -n/-p) or reads
// them through the language's argument-file handle (<>, ARGF, gets), and
// as files rewritten with the in-place option (-i), so `perl -ne print
// /etc/shadow` is judged as `cat /etc/shadow` is.
func (a *analyzer) interpOperands(s *syntax.Stmt, name string, l *interpLang, inv interpInvocation, code field, c *ctx) {
	if len(inv.operands) == 0 {
		return
	}
	loop := l.loopFlags != "" && strings.ContainsAny(inv.flags, l.loopFlags)
	reads := loop
	for _, re := range argvReadRes[l] {
		if !reads && !code.dyn && re.MatchString(code.s) {
			reads = true
		}
	}
	if !reads {
		return
	}
	inplace := l.inplace != 0 && strings.IndexByte(inv.flags, l.inplace) >= 0
	by := name + " -n"
	if !loop {
		by = name + " <>"
	}
	for _, f := range inv.operands {
		if f.s == "-" {
			continue
		}
		a.addFile(s, f, "read", by, c, fileFlags{})
		if inplace {
			a.addFile(s, f, "write", name+" -i", c, fileFlags{})
		}
	}
}

// interpStdin analyzes the program a registered interpreter reads from a
// heredoc or here-string (`node <<EOF`, `ruby <<< 'code'`): inline code
// executed (reviewed as such), whose API calls are scanned like -e code.
// Piped programs are judged by pipeInterpreter.
func (a *analyzer) interpStdin(s *syntax.Stmt, name string, l *interpLang, c *ctx) {
	for _, r := range s.Redirs {
		var body field
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			body = a.heredocBody(r, false)
		case syntax.WordHdoc:
			body = a.expandOne(r.Word, false)
			body.s += "\n"
		default:
			continue
		}
		a.b.Facts.DynamicExec = append(a.b.Facts.DynamicExec, sdk.DynamicExec{Kind: "heredoc_interpreter",
			Interpreter: name, Static: !body.dyn, Content: capContent(body.s),
			Evidence: a.evidence(s.Pos()), Pos: a.pos(s.Pos())})
		if !body.dyn {
			a.codeListeners(s, name, body.s)
		}
		a.interpCode(s, name, l, body, c)
		return
	}
}

// isScriptFile reports whether an interpreter operand names a program file
// by its extension (its heredoc, if any, is then the program's input).
func isScriptFile(p string) bool {
	if strings.HasPrefix(p, "-") {
		return false
	}
	k := strings.LastIndexByte(p, '.')
	if k < 0 {
		return false
	}
	switch p[k+1:] {
	case "js", "mjs", "cjs", "ts", "rb", "pl", "pm", "php", "lua", "awk", "tcl", "R", "r":
		return true
	}
	return false
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
			return false
		}
	}
	return s != ""
}

// jsLang is the row of a JavaScript runtime (node, deno, bun): the same
// language and standard APIs, the runtime's own subcommands and APIs.
func jsLang(names, sub []string, extra []interpAPI) *interpLang {
	return &interpLang{
		names: names, subInline: sub, subSkip: []string{"run"}, inline: []string{"-e", "--eval", "-p", "--print"}, concat: []string{"+"},
		wholeEnv: []string{"process.env)", "process.env,", "process.env]", "process.env;", "(process.env", "in process.env",
			"of Object.entries(process.env", "Deno.env.toObject()"},
		printers: []string{"console.log", "console.dir", "console.table", "console.error", "console.info",
			"process.stdout.write", "JSON.stringify", "util.inspect"},
		envVar: []string{`process\.env\.([A-Za-z_]\w*)`, `process\.env\[\s*['"]([A-Za-z_]\w*)['"]\s*\]`,
			`Deno\.env\.get\(\s*['"](\w+)['"]`, `Bun\.env\.([A-Za-z_]\w*)`},
		envAll: []string{`process\.env(?:$|[^.\[\w])`, `Deno\.env\.toObject\(`},
		home: []string{"process.env.HOME", "process.env['HOME']", `process.env["HOME"]`, "os.homedir()",
			`require("os").homedir()`, "require('os').homedir()", "os.userInfo().homedir", "Deno.env.get('HOME')",
			`Deno.env.get("HOME")`},
		argv: []string{"process.argv[%d]", "Deno.args[%d]", "Bun.argv[%d]"}, argvBase: 1,
		apis: append([]interpAPI{{"execSync", effShell}, {"execFileSync", effShell}, {"execFile", effShell},
			{"spawnSync", effShell},
			{"readFileSync", effRead}, {"readFile", effRead}, {"createReadStream", effRead}, {"copyFileSync", effRead},
			{"writeFileSync", effWrite}, {"writeFile", effWrite}, {"createWriteStream", effWrite},
			{"appendFileSync", effAppend}, {"appendFile", effAppend}, {"unlinkSync", effDelete}, {"unlink", effDelete},
			{"rmSync", effDeleteTree}, {"rmdirSync", effDeleteTree}, {"rm", effDeleteTree}, {"rmdir", effDeleteTree},
			{"openSync", effOpen}, {"URL", effURL}, {"path.join", effPass}, {"path.resolve", effPass},
			{"readdirSync", effList}, {"readdir", effList}, {"opendirSync", effList},
			{"fetch", effNet}, {"http.get", effNet}, {"https.get", effNet}, {"http.request", effNet},
			{"https.request", effNet}, {"axios.get", effNet}, {"axios.post", effNet}, {"axios.put", effNet},
			{"axios.request", effNet}, {"axios", effNet}, {"http2.connect", effNet}, {"got", effNet}, {"got.post", effNet},
			{"net.connect", effConnect}, {"net.createConnection", effConnect}, {"tls.connect", effConnect},
			{"dgram.createSocket.send", effConnect}, {"Socket.connect", effConnect},
			{"XMLHttpRequest.open", effNet}, {"XMLHttpRequest.send", effSend}, {"WebSocket", effNet},
			{"WebSocket.send", effSend},
			{"EventSource", effNet}, {"sendBeacon", effNet}, {"request", effNet},
			{"eval", effEval}, {"Function", effEval}, {"runInThisContext", effEval}}, append(extra, shellAPIs...)...),
	}
}

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
	// effConnect opens a raw connection to the host given as a static
	// string argument, "host" or "host:port", or an options object's
	// host literal (net.connect, TCPSocket.new, IO::Socket::INET->new,
	// fsockopen, socket.connect).
	effConnect
	// effSend sends its arguments on a connection made elsewhere
	// (curl_setopt's POSTFIELDS): only the environment values it carries
	// are recorded, as sent over the network.
	effSend
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
}

// envRes caches the compiled envVar and envAll expressions of each
// language.
var envRes = map[*interpLang][2][]*regexp.Regexp{}

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
		names: []string{"perl"}, inline: []string{"-e", "-E"}, concat: []string{"."}, backticks: true, bareCalls: true,
		wholeEnv: []string{"%ENV"}, printers: []string{"print", "say", "printf", "Dumper"},
		home:   []string{"$ENV{HOME}", "$ENV{'HOME'}", `$ENV{"HOME"}`, "File::HomeDir->my_home"},
		envVar: []string{`\$ENV\{\s*['"]?(\w+)['"]?\s*\}`}, envAll: []string{`%ENV\b`},
		apis: append([]interpAPI{{"qx", effShell}, {"readpipe", effShell}, {"open", effOpen}, {"sysopen", effOpen},
			{"unlink", effDelete}, {"remove_tree", effDeleteTree}, {"rmtree", effDeleteTree}, {"rmdir", effDelete},
			{"glob", effPass}, {"sprintf", effFormat}, {"eval", effEval}, {"get", effNet}, {"getstore", effNet},
			{"getprint", effNet}, {"post", effNet}, {"post_form", effNet}, {"put", effNet}, {"request", effNet},
			{"mirror", effNet}, {"head", effNet}, {"IO::Socket::INET->new", effConnect}, {"IO::Socket::IP->new", effConnect},
			{"IO::Socket::SSL->new", effConnect}, {"File::Slurp::read_file", effRead}, {"read_file", effRead}, {"write_file", effWrite},
			{"copy", effRead}}, shellAPIs...),
	},
	{
		names: []string{"ruby", "jruby"}, inline: []string{"-e"}, concat: []string{"+", "<<"}, backticks: true, bareCalls: true,
		wholeEnv: []string{"ENV.to_h", "ENV.to_a", "ENV.each", "ENV.inspect", "ENV.map", "ENV.sort", "ENV.select",
			"ENV.keys.each", "p ENV", "pp ENV", "puts ENV", "p(ENV", "pp(ENV", "ENV.to_s"},
		printers: []string{"p ", "pp ", "puts", "print", "printf", "p(", "pp(", "display", "$stdout", "STDOUT"},
		home:     []string{"Dir.home", "ENV['HOME']", `ENV["HOME"]`, "Etc.getpwuid.dir"},
		envVar:   []string{`\bENV\[\s*['"](\w+)['"]\s*\]`, `\bENV\.fetch\(\s*['"](\w+)['"]`},
		envAll:   []string{`\bENV\.(?:to_h|to_a|to_hash|inspect|to_s|map|each|select|sort|keys|values)\b`, `\bENV\s*(?:[,)}]|$)`},
		apis: append([]interpAPI{{"IO.popen", effShell}, {"Open3.capture2", effShell}, {"Open3.capture2e", effShell},
			{"Open3.capture3", effShell}, {"Open3.popen3", effShell}, {"PTY.spawn", effShell},
			{"File.read", effRead}, {"IO.read", effRead}, {"File.readlines", effRead}, {"IO.readlines", effRead},
			{"File.binread", effRead}, {"File.foreach", effRead}, {"File.open", effOpen}, {"File.new", effOpen},
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
	{
		names: []string{"node", "nodejs", "bun", "deno"}, inline: []string{"-e", "--eval", "-p", "--print"}, concat: []string{"+"},
		wholeEnv: []string{"process.env)", "process.env,", "process.env]", "process.env;", "(process.env", "in process.env",
			"of Object.entries(process.env", "Deno.env.toObject()"},
		printers: []string{"console.log", "console.dir", "console.table", "console.error", "console.info",
			"process.stdout.write", "JSON.stringify", "util.inspect"},
		envVar: []string{`process\.env\.([A-Za-z_]\w*)`, `process\.env\[\s*['"]([A-Za-z_]\w*)['"]\s*\]`,
			`Deno\.env\.get\(\s*['"](\w+)['"]`},
		envAll: []string{`process\.env(?:$|[^.\[\w])`, `Deno\.env\.toObject\(`},
		home: []string{"process.env.HOME", "process.env['HOME']", `process.env["HOME"]`, "os.homedir()",
			`require("os").homedir()`, "require('os').homedir()"},
		apis: append([]interpAPI{{"execSync", effShell}, {"execFileSync", effShell}, {"execFile", effShell},
			{"spawnSync", effShell},
			{"readFileSync", effRead}, {"readFile", effRead}, {"createReadStream", effRead}, {"copyFileSync", effRead},
			{"writeFileSync", effWrite}, {"writeFile", effWrite}, {"createWriteStream", effWrite},
			{"appendFileSync", effAppend}, {"appendFile", effAppend}, {"unlinkSync", effDelete}, {"unlink", effDelete},
			{"rmSync", effDeleteTree}, {"rmdirSync", effDeleteTree}, {"rm", effDeleteTree}, {"rmdir", effDeleteTree},
			{"openSync", effOpen}, {"URL", effPass}, {"path.join", effPass}, {"path.resolve", effPass},
			{"readdirSync", effList}, {"readdir", effList}, {"opendirSync", effList},
			{"fetch", effNet}, {"http.get", effNet}, {"https.get", effNet}, {"http.request", effNet},
			{"https.request", effNet}, {"axios.get", effNet}, {"axios.post", effNet}, {"axios.put", effNet},
			{"axios.request", effNet}, {"axios", effNet}, {"http2.connect", effNet}, {"got", effNet}, {"got.post", effNet},
			{"net.connect", effConnect}, {"net.createConnection", effConnect}, {"tls.connect", effConnect},
			{"dgram.createSocket.send", effConnect},
			{"eval", effEval}, {"Function", effEval}, {"runInThisContext", effEval}}, shellAPIs...),
	},
	{
		names: []string{"php"}, inline: []string{"-r"}, concat: []string{"."}, backticks: true,
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
		names: []string{"awk", "gawk", "mawk", "nawk", "busybox-awk"}, programArg: true, juxtapose: true, awkIO: true,
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
// command line and scans it.
func (a *analyzer) interpArgs(s *syntax.Stmt, name string, l *interpLang, args []field, c *ctx) {
	for i := 0; i < len(args); i++ {
		f := args[i]
		if l.programArg {
			switch {
			case f.s == "-f" || f.s == "--file":
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
		if f.s == "-" {
			a.interpStdin(s, name, l, c)
			return
		}
		if isScriptFile(f.s) {
			return // a script file, judged by the command's own handler
		}
		if i+1 >= len(args) {
			break
		}
		for _, fl := range l.inline {
			if f.s == fl || len(f.s) <= 5 && strings.HasPrefix(f.s, "-") && !strings.HasPrefix(f.s, "--") &&
				strings.HasSuffix(f.s, fl[1:]) && len(fl) == 2 && isLetters(f.s[1:]) {
				a.interpCode(s, name, l, args[i+1], c)
				return
			}
		}
	}
	if !l.programArg {
		// Neither inline code nor a script: the program is read from
		// standard input.
		a.interpStdin(s, name, l, c)
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
			a.codeSockets(s, name, body.s)
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
	case "js", "mjs", "cjs", "ts", "rb", "pl", "pm", "php", "lua", "awk":
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

package sdk

// FactsVersion is the version of the Facts schema. It changes when a field
// changes meaning or is removed; adding a field does not bump it. Plugins may
// refuse a facts document whose Version they do not know.
const FactsVersion = 1

// Facts is what the native analyzers know about one piece of content after
// parsing it once: the commands it would run, the files and hosts it would
// touch, the code it would execute dynamically, and the syntax that hides
// chained operations. Rules judge Facts instead of text, so a rule needs no
// parser and cannot be fooled by quoting or aliasing that the analyzers undo.
//
// Facts found in nested content (a `bash -c` argument, a heredoc fed to python,
// an os.system string, a decoded base64 literal) are merged into the same
// document; their Pos.Depth is above zero and Pos.Via says how they were
// reached. Every slice is in source order.
type Facts struct {
	// Version is FactsVersion of the analyzer that produced the document.
	Version int `json:"version"`
	// Language is the language of the top-level content: "bash" or "python".
	Language string `json:"language"`

	Commands      []Command      `json:"commands,omitempty"`
	Files         []FileAccess   `json:"files,omitempty"`
	Network       []NetworkUse   `json:"network,omitempty"`
	DynamicExec   []DynamicExec  `json:"dynamic_exec,omitempty"`
	Calls         []Call         `json:"calls,omitempty"`
	Loops         []Loop         `json:"loops,omitempty"`
	Sleeps        []Sleep        `json:"sleeps,omitempty"`
	ShellFeatures []ShellFeature `json:"shell_features,omitempty"`
	Functions     []Function     `json:"functions,omitempty"`
	Assignments   []Assignment   `json:"assignments,omitempty"`
	EnvReads      []EnvRead      `json:"env_reads,omitempty"`
	Outputs       []Output       `json:"outputs,omitempty"`
	Secrets       []Secret       `json:"secrets,omitempty"`
	ParseErrors   []ParseError   `json:"parse_errors,omitempty"`
	// Truncated is set when nesting went deeper than the analyzer's depth limit
	// or the content hit a size bound; what lies beyond was not analyzed.
	Truncated bool `json:"truncated,omitempty"`
}

// Pos locates a fact in the top-level content so a finding can quote it.
// Line and Col are 1-based. For nested content they point at the construct in
// the outer content that carried it (the `bash -c` word, the os.system call).
type Pos struct {
	Line int `json:"line"`
	Col  int `json:"col"`
	// Depth is 0 for top-level content and grows by one per nesting step.
	Depth int `json:"depth,omitempty"`
	// Via names the nesting chain that reached this fact, outermost first,
	// joined with ">": "bash -c", "eval", "python -c", "os.system",
	// "base64>sh", "heredoc:python3". Empty at depth 0.
	Via string `json:"via,omitempty"`
	// Encoded is set when the chain that reached this fact decoded or
	// transformed content (base64, hex, rev, tr, printf escapes, chr joins).
	Encoded bool `json:"encoded,omitempty"`
}

// Command is one simple command the shell would run, after quote removal,
// ANSI-C decoding, variable/alias/brace resolution and wrapper unwrapping
// (sudo is kept as a command; nice, timeout, env, nohup, command, builtin,
// exec, stdbuf, xargs, find -exec, time and the like are unwrapped so the
// command they start appears as its own Command with Reach "wrapper",
// "xargs" or "find_exec").
//
// Python process calls whose command is a constant (os.system("rm -rf /"),
// subprocess.run(["pip", "install", "x"])) also appear as Commands, with
// Pos.Via naming the API.
type Command struct {
	// ID identifies the command within this document; Sources refer to it.
	ID int `json:"id"`
	// Name is the base name of the command word after normalization
	// ("rm" for `\rm`, `/bin/rm`, `r''m`, `$'\x72m'`). Empty when Dynamic.
	Name string `json:"name"`
	// Path is the command word as resolved, before taking the base name
	// ("/usr/bin/sudo"). A glob command word keeps its pattern ("/bin/r?").
	Path string `json:"path,omitempty"`
	// Candidates holds the names a glob command word could expand to
	// ("/bin/r?" → ["rm"]), judged against a list of well-known commands.
	Candidates []string `json:"candidates,omitempty"`
	// Args are the arguments after normalization. A word that could not be
	// resolved statically keeps its source text ("$REPO_URL", "$(whoami)").
	Args []string `json:"args,omitempty"`
	// DynamicArgs lists indexes into Args whose value is not static.
	DynamicArgs []int `json:"dynamic_args,omitempty"`
	// Dynamic is set when the command name itself cannot be resolved
	// statically (`$CMD args`, `"$@"`).
	Dynamic bool `json:"dynamic,omitempty"`
	// Reach says how the command is reached, when not plainly:
	// "pipe" (a non-first pipeline stage), "substitution" ($(...) or
	// backticks), "process_substitution", "background", "wrapper", "xargs",
	// "find_exec", "eval", "subshell", "function" (inside a function body),
	// "condition" (if/while test), "loop" (loop body).
	Reach []string `json:"reach,omitempty"`
	// Pipeline is the id shared by the stages of one pipeline (0: none) and
	// Stage the 0-based position in it.
	Pipeline int `json:"pipeline,omitempty"`
	Stage    int `json:"stage,omitempty"`
	// StdinSources are IDs of commands whose output this command reads on
	// stdin: earlier pipeline stages, process and command substitutions fed
	// by redirection or here-string.
	StdinSources []int `json:"stdin_sources,omitempty"`
	// ArgSources are IDs of commands whose output is substituted into this
	// command's name or arguments ($(...), backticks, <(...)).
	ArgSources []int `json:"arg_sources,omitempty"`
	// Redirects are this command's redirections.
	Redirects []Redirect `json:"redirects,omitempty"`
	// Evidence is the source text of the command (one line, trimmed).
	Evidence string `json:"evidence,omitempty"`
	Pos      Pos    `json:"pos"`
}

// Redirect is one redirection of a command.
type Redirect struct {
	// Op is the operator as written: ">", ">>", "<", "&>", ">&", "<<", "<<<", "<>".
	Op string `json:"op"`
	// Fd is the file descriptor redirected, -1 when implicit.
	Fd int `json:"fd"`
	// Target is the file or descriptor after normalization ("/dev/tcp/h/p",
	// "&1", "~/.bash_history"); heredoc bodies are not repeated here.
	Target string `json:"target,omitempty"`
	// Dynamic is set when Target is not static.
	Dynamic bool `json:"dynamic,omitempty"`
}

// FileAccess is one use of a file system path.
type FileAccess struct {
	// Path is the path after normalization: quotes removed, `$HOME`,
	// `${HOME}` and `~user`-free home references rewritten to "~", "./"
	// prefixes and duplicate slashes removed. Globs are kept as written
	// (".en?", "~/.ssh/id_*") with Glob set.
	Path string `json:"path"`
	// Op is what is done: "read", "write", "append", "delete", "exec",
	// "list", "chmod", "chown", "copy_from", "copy_to", "move", "link",
	// "source", "cwd", or "ref" when a command names the path without a
	// known effect.
	Op string `json:"op"`
	// Recursive and Force record -r/-R/--recursive and -f/--force (rm, cp,
	// chmod, chown), find -delete, shutil.rmtree and similar.
	Recursive bool `json:"recursive,omitempty"`
	Force     bool `json:"force,omitempty"`
	// Mode is the mode argument of chmod/os.chmod ("777", "u+s"); Owner the
	// owner argument of chown.
	Mode  string `json:"mode,omitempty"`
	Owner string `json:"owner,omitempty"`
	Glob  bool   `json:"glob,omitempty"`
	// Dynamic is set when part of the path is not static; Path then keeps the
	// static prefix and the source text of the rest.
	Dynamic bool `json:"dynamic,omitempty"`
	// By names the command or API that accesses the path ("rm", "cat",
	// "redirect", "open", "shutil.rmtree", "pathlib.Path.read_text").
	By       string `json:"by"`
	Evidence string `json:"evidence,omitempty"`
	Pos      Pos    `json:"pos"`
}

// NetworkUse is one network destination the content would reach.
type NetworkUse struct {
	// URL is the URL as resolved, when the destination was given as one.
	URL string `json:"url,omitempty"`
	// Host is the host name or IP literal, lower-cased, without port.
	// For a partly dynamic host it keeps the static suffix after the last
	// dynamic label ("attacker.tld" for "$(whoami).attacker.tld").
	Host   string `json:"host,omitempty"`
	Port   int    `json:"port,omitempty"`
	Scheme string `json:"scheme,omitempty"`
	// Via names the tool or API: "curl", "wget", "nc", "ssh", "git",
	// "dev_tcp", "dns" (nslookup/dig/host), "requests.get", "socket",
	// "urllib.request.urlopen", ...
	Via string `json:"via"`
	// Dynamic is set when the destination cannot be resolved statically.
	Dynamic bool `json:"dynamic,omitempty"`
	// DataInHost is set when command output or a variable is substituted
	// into the host name (the DNS exfiltration pattern).
	DataInHost bool `json:"data_in_host,omitempty"`
	// Upload is set when the request sends a body or file (curl -d/-F/-T/
	// --data*, wget --post-*, requests.post(data=...), scp to a remote).
	Upload bool `json:"upload,omitempty"`
	// UploadFrom is the local path sent, when known ("@.env" → ".env", "-"
	// for stdin).
	UploadFrom string `json:"upload_from,omitempty"`
	// Listen is set for a listening socket (nc -l, socket.bind).
	Listen bool `json:"listen,omitempty"`
	// ExecShell is set when the tool attaches a shell or program to the
	// connection (nc -e, ncat --sh-exec, socat EXEC:, bash -i >& /dev/tcp).
	ExecShell bool   `json:"exec_shell,omitempty"`
	Evidence  string `json:"evidence,omitempty"`
	Pos       Pos    `json:"pos"`
}

// DynamicExec is code executed from a string or a stream: eval, source of
// a dynamic path, `bash -c`, `python -c`, heredoc or pipe into an
// interpreter, Python exec/eval/compile/__import__/importlib, runpy.
type DynamicExec struct {
	// Kind is "eval", "shell_c", "python_c", "perl_e", "awk_system",
	// "pipe_interpreter", "heredoc_interpreter", "source", "py_exec",
	// "py_eval", "py_compile", "py_import", "runpy", "ctypes", or
	// "exec_file" (a process started on a file the content saved a
	// download to; Downloaded is then set), or "remote_spec" (a program
	// given a URL or remote package spec that fetches and runs it: deno
	// run URL, npx github:u/r, go run m@v; Downloaded is then set).
	Kind string `json:"kind"`
	// Interpreter is the program that runs the code ("bash", "python3", "sh").
	Interpreter string `json:"interpreter,omitempty"`
	// Static is set when the executed content is known; the analyzers have
	// then analyzed it and merged its facts at Depth+1.
	Static bool `json:"static"`
	// Encoded is set when the content passes through a decoder or transform
	// (base64, hex, rev, tr, printf escapes, zlib, chr joins, [::-1]).
	Encoded bool `json:"encoded,omitempty"`
	// Decoders names the transforms in order ("base64", "rev", "zlib").
	Decoders []string `json:"decoders,omitempty"`
	// Downloaded is set when the content comes from a network fetch
	// (curl/wget output, urllib read) — remote code execution.
	Downloaded bool `json:"downloaded,omitempty"`
	// Content is the executed content when Static (capped at 4 KiB).
	Content  string `json:"content,omitempty"`
	Evidence string `json:"evidence,omitempty"`
	Pos      Pos    `json:"pos"`
}

// Call is one Python call by qualified name after alias resolution
// (`import os as o; o.system` → "os.system", `from subprocess import run`
// → "subprocess.run", `getattr(__import__('os'), 'system')` → "os.system").
type Call struct {
	// Name is the qualified name; builtins are bare ("open", "eval").
	Name string `json:"name"`
	// Args are the positional arguments, Kwargs the keyword arguments.
	Args   []Value          `json:"args,omitempty"`
	Kwargs map[string]Value `json:"kwargs,omitempty"`
	// Indirect is set when the name was resolved through getattr,
	// __import__, importlib, sys.modules, __builtins__ or an assignment.
	Indirect bool   `json:"indirect,omitempty"`
	Evidence string `json:"evidence,omitempty"`
	Pos      Pos    `json:"pos"`
}

// Value is a Python argument after constant folding.
type Value struct {
	// Kind is "str", "bytes", "int", "float", "bool", "none", "list",
	// "tuple", "dict", "name" (an unresolved variable), "call", "expr".
	Kind string `json:"kind"`
	// Const is set when the value is known statically.
	Const bool `json:"const"`
	// Str is the folded value for str/bytes/int/float/bool, or the source
	// text for non-constant values.
	Str string `json:"str,omitempty"`
	// Items are the elements of a list or tuple.
	Items []Value `json:"items,omitempty"`
	// Encoded is set when folding went through a decoder (b64decode,
	// bytes.fromhex, codecs.decode, chr joins, [::-1]).
	Encoded bool `json:"encoded,omitempty"`
}

// Loop is a loop whose condition is constantly true.
type Loop struct {
	// Kind is "while_true" (while true / while : / while True / while 1),
	// "until_false" or "for_ever" (for (( ; ; ))).
	Kind string `json:"kind"`
	// HasBreak is set when the body has a reachable break, return or exit.
	HasBreak bool   `json:"has_break"`
	Evidence string `json:"evidence,omitempty"`
	Pos      Pos    `json:"pos"`
}

// Sleep is a sleep call (bash sleep, time.sleep, asyncio.sleep).
type Sleep struct {
	// Seconds is the duration; -1 when infinite ("infinity").
	Seconds  float64 `json:"seconds"`
	Dynamic  bool    `json:"dynamic,omitempty"`
	Evidence string  `json:"evidence,omitempty"`
	Pos      Pos     `json:"pos"`
}

// ShellFeature is a piece of shell syntax that chains or hides operations.
// Text inside quotes is never a feature.
type ShellFeature struct {
	// Kind is "pipe", "and", "or", "semicolon" (a `;` between commands on
	// one line; newlines are not features), "redirect", "substitution",
	// "backtick", "background", "process_substitution", "heredoc",
	// "subshell".
	Kind     string `json:"kind"`
	Evidence string `json:"evidence,omitempty"`
	Pos      Pos    `json:"pos"`
}

// Function is a shell or Python function definition.
type Function struct {
	Name string `json:"name"`
	// Recursive is set when the body calls the function itself;
	// SelfPipe when it pipes itself into itself and Background when such a
	// call is put in the background — together a fork bomb.
	Recursive  bool `json:"recursive,omitempty"`
	SelfPipe   bool `json:"self_pipe,omitempty"`
	Background bool `json:"background,omitempty"`
	// CalledAtTop is set when the function is invoked outside its own body.
	CalledAtTop bool `json:"called_at_top,omitempty"`
	Pos         Pos  `json:"pos"`
}

// Assignment is a shell variable assignment, export or unset, or a Python
// os.environ write.
type Assignment struct {
	Name string `json:"name"`
	// Value is the assigned value when static.
	Value   string `json:"value,omitempty"`
	Dynamic bool   `json:"dynamic,omitempty"`
	// Op is "set", "export", "unset" or "alias".
	Op  string `json:"op"`
	Pos Pos    `json:"pos"`
}

// EnvRead is a read of an environment variable ($X, ${X}, os.environ["X"],
// os.getenv("X")).
type EnvRead struct {
	Name string `json:"name"`
	Pos  Pos    `json:"pos"`
}

// Output is a value written to stdout/stderr, a file or the network whose
// source includes environment variables: `echo $API_TOKEN`,
// `print(os.environ['SECRET_KEY'])`, `curl -d "$TOKEN" …`.
type Output struct {
	// Sink is "stdout", "file" or "network".
	Sink string `json:"sink"`
	// Vars are the environment variable names whose values are written.
	// "*" stands for the whole environment (print(os.environ), `node -e
	// 'console.log(process.env)'`, values read by keys taken from the
	// environment itself); "?" for one variable whose name the analysis
	// cannot know (os.environ.get(sys.argv[1])).
	Vars     []string `json:"vars"`
	Evidence string   `json:"evidence,omitempty"`
	Pos      Pos      `json:"pos"`
}

// Secret is a literal that looks like a credential. The literal itself is
// never in the facts; Redacted shows its shape.
type Secret struct {
	// Kind is "private_key", "aws_access_key", "github_token",
	// "slack_token", "jwt", "password_assignment", "generic_token".
	Kind     string `json:"kind"`
	Redacted string `json:"redacted"`
	Pos      Pos    `json:"pos"`
}

// ParseError is content the analyzer could not parse.
type ParseError struct {
	Message string `json:"message"`
	// Language is the language that failed to parse ("bash", "python").
	Language string `json:"language"`
	Pos      Pos    `json:"pos"`
}

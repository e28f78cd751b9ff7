// Package bash is the bash analyzer: it parses shell content once with
// mvdan.cc/sh and turns it into sdk facts (commands, files, network
// destinations, dynamic execution, shell features …) after undoing the
// quoting, encoding and indirection tricks that hide what would run.
//
// Rules judge these facts instead of the text, so everything here aims at
// "what would the shell execute", never at "what words appear".
//
// Conventions the rules can rely on, beyond the sdk field docs:
//
//   - Words are resolved statically where the shell would: quotes and
//     escapes, $'…', variables and arrays assigned earlier, ${X:off:len},
//     ${X#pat}, ${!ref}, IFS re-splitting, braces, aliases, $(echo …),
//     $(printf …), $(which X), `set --` and `bash -c code $0 $1…`.
//     HOME is "~"; PATH and HOME slice as their usual shapes.
//   - A glob command word keeps its pattern in Path; when it matches exactly
//     one well-known program, Name is that program.
//   - Pos.Via of nested facts names the carrier: "eval", "<shell> -c",
//     "python3 -c", "perl -e", "ruby -e", "php -r", "node -e",
//     "awk system", "heredoc:<interp>", "<decoders>><interp>" for pipes
//     ("base64>sh"), "source" (a file written or downloaded earlier and
//     run), "crontab" (installed cron jobs), "startup_file" (text appended
//     to ~/.bashrc and the like), "trap", "alias" (an alias holding a
//     command list), "PROMPT_COMMAND". Jobs for at/batch are
//     heredoc/pipe interpreters with Interpreter "at".
//   - Outputs of "*" are the whole environment (export -p and the like are
//     Commands; inline perl/ruby/node/php/awk printing the language's whole
//     environment are Outputs). Values assigned to command-valued variables
//     (sdk.IsCommandEnvName) are analyzed as nested code, Via "env:NAME".
//   - DynamicExec kinds: "shell_c" also covers su -c, script -c, flock -c,
//     env -S and shell strings of ruby/php/node system()/exec(); "source"
//     also covers running a file (bash F, ./F) whose content the script
//     downloaded (Downloaded) or wrote (Static, analyzed).
//   - Placeholders of xargs and find -exec are the argument "{}", dynamic;
//     their file accesses use the find start paths (recursive).
//   - A command whose name was decoded from encoded content has
//     Pos.Encoded set even at depth 0.
//   - Bounds fail closed or mark Truncated: nesting deeper than any script
//     needs is a ParseError; nested re-analysis is budgeted to the content
//     size plus a margin; brace expansion and folded values are capped.
//
// # Files
//
// analyze.go walks the tree (statements, pipelines, loops, functions,
// assignments); words.go expands words into fields; call.go turns a simple
// command into its Command fact (walkCall, emitCommand) and applies the
// command's semantics; redirects.go records redirections and the uploads
// they feed; nested.go re-analyzes code a command carries (DynamicExec);
// written.go remembers files the script writes or downloads and later runs;
// fold.go folds pipelines and decoders into the content they produce.
//
// What a command does is data in a table by name (cmd_registry.go), filled
// by one file per topic: cmd_wrappers.go (sudo, env, timeout, xargs,
// find -exec), cmd_shells.go (sh -c and the commands handing code to a
// shell), cmd_interpreters.go (python, perl, ruby, node, php, awk; their
// APIs are interp.go), cmd_runners.go (sed e, vim -c, parallel, make),
// cmd_builtins.go (eval, source, alias, read, echo), cmd_network.go (curl,
// wget, nc, ssh …), cmd_listeners.go (servers started from the command
// line, as rows of bind/port options and defaults), cmd_files.go (argSpecs
// of rm, cp, chmod …; dd, tar; cd followed outside the workspace) and
// cmd_vcs.go (git).
//
// # Adding a command
//
// Register it in the topic file of what it does, in that file's
// register…Commands function, with the call for the aspect it has:
//
//	r.wrapper(topic, optsWrapper("u", nil, 0), "w") // runs the command in its args
//	r.run(topic, wRun, "w")       // own semantics; true when its args are not files or hosts
//	r.net(topic, wNet, "w")       // the hosts it reaches
//	r.files(topic, wFiles, "w")   // file accesses no argSpec can say
//
// or, for operands that are plain paths, a row in specs (cmd_files.go).
// A name may have several aspects (git has a runner, run, net and files),
// each once: registering one twice panics when the table is built (every
// analysis then fails closed with a ParseError, and the package's tests
// fail). A family of names no table can list (python3.12, mkfs.ext4) is
// r.family. A new topic is a register…Commands function added to topics
// in cmd_registry.go.
package bash

package envhook

import "strings"

// hooks maps each exact variable name that makes a program run, load or
// import code it names to what it hooks. The list is documented in
// README.md ("Interpreter-hook environment variables"); names left out on
// purpose are listed there with the reason.
var hooks = map[string]string{
	// shells
	"BASH_ENV":       "bash (sourced before every non-interactive script)",
	"ENV":            "sh/dash/bash in POSIX mode (sourced at start)",
	"ZDOTDIR":        "zsh (startup files)",
	"PROMPT_COMMAND": "bash (run before each prompt)",
	"SHELLOPTS":      "bash (options such as xtrace, imported at start)",
	"BASHOPTS":       "bash (shopt options imported at start)",
	"PS4":            "bash (expanded, command substitutions included, on every traced command)",
	// dynamic loader
	"LD_PRELOAD":      "every dynamically linked program (library loaded first)",
	"LD_LIBRARY_PATH": "every dynamically linked program (library search path)",
	"LD_AUDIT":        "every dynamically linked program (audit library loaded)",
	"GCONV_PATH":      "glibc iconv (loads modules from the named directory)",
	// python
	"PYTHONSTARTUP":  "python (file run at interactive start)",
	"PYTHONPATH":     "python (module search path ahead of the standard library)",
	"PYTHONHOME":     "python (the standard library itself)",
	"PYTHONUSERBASE": "python (user site-packages and usercustomize)",
	// perl, ruby, node, lua, php
	"PERL5OPT":          "perl (command-line options such as -M)",
	"PERL5LIB":          "perl (module search path)",
	"PERLLIB":           "perl (module search path)",
	"PERL5DB":           "perl (debugger code)",
	"RUBYOPT":           "ruby (command-line options such as -r)",
	"RUBYLIB":           "ruby (library search path)",
	"NODE_OPTIONS":      "node (options such as --require)",
	"NODE_PATH":         "node (module search path)",
	"LUA_INIT":          "lua (code run at start)",
	"PHPRC":             "php (php.ini, e.g. auto_prepend_file)",
	"PHP_INI_SCAN_DIR":  "php (extra ini files)",
	"JAVA_TOOL_OPTIONS": "the JVM (options such as -javaagent)",
	"_JAVA_OPTIONS":     "the JVM (options such as -javaagent)",
	"JDK_JAVA_OPTIONS":  "the java launcher (options such as -javaagent)",
	// .NET
	"DOTNET_STARTUP_HOOKS": ".NET (assemblies run at start)",
	// git and ssh
	"GIT_SSH":             "git (program run for ssh transport)",
	"GIT_SSH_COMMAND":     "git (command run for ssh transport)",
	"GIT_EXEC_PATH":       "git (where its sub-commands are found)",
	"GIT_ASKPASS":         "git (program run for credentials)",
	"SSH_ASKPASS":         "ssh (program run for credentials)",
	"GIT_EDITOR":          "git (editor program)",
	"GIT_SEQUENCE_EDITOR": "git rebase (editor program)",
	"GIT_PAGER":           "git (pager program)",
	"GIT_EXTERNAL_DIFF":   "git diff (program run per file)",
	"GIT_PROXY_COMMAND":   "git (program run for git:// connections)",
	"GIT_TEMPLATE_DIR":    "git init/clone (hooks copied into the repository)",
	"GIT_DIR":             "git (a repository whose config and hooks run programs)",
	// programs that tools run
	"EDITOR":     "git, crontab and others (editor program)",
	"VISUAL":     "git, crontab and others (editor program)",
	"PAGER":      "man, git and others (pager program)",
	"MANPAGER":   "man (pager program)",
	"LESSOPEN":   "less (input preprocessor command)",
	"LESSCLOSE":  "less (post-processor command)",
	"BROWSER":    "python webbrowser, xdg-open and others (browser program)",
	"GIT_CONFIG": "git (config file with aliases, hooks and fsmonitor programs)",

	// Where tools look for their startup and config files: the scan reads
	// those from the run's HOME (the workspace, which the executor keeps whatever the request says);
	// moving the lookup elsewhere would load files it never judged.
	"XDG_CONFIG_HOME":  "git and others (global config files that can name programs to run)",
	"MAKEFILES":        "make (makefiles read before the named one, their recipes run)",
	"PYTEST_PLUGINS":   "pytest (modules imported as plugins)",
	"PYTEST_ADDOPTS":   "pytest (options such as -p, which import a plugin module)",
	"PYTHONBREAKPOINT": "python (callable imported and run on breakpoint())",
}

// hookPrefixes are name prefixes whose every name is a hook: git reads
// GIT_CONFIG_COUNT / GIT_CONFIG_KEY_<n> / GIT_CONFIG_VALUE_<n>,
// GIT_CONFIG_PARAMETERS, GIT_CONFIG_GLOBAL and GIT_CONFIG_SYSTEM, any of
// which can set core.pager, core.sshCommand, core.fsmonitor or an alias.
//
// bash imports BASH_FUNC_<name>%% (value "() { …; }") as the function
// <name> at start: such a variable replaces any command the scanned
// content runs (echo, ls, cd) with code the scan never saw.
var hookPrefixes = []struct{ prefix, what string }{
	{"GIT_CONFIG_", "git (configuration that can name programs to run)"},
	{"BASH_FUNC_", "bash (exported function imported at start, replacing a command of the same name)"},
	{"npm_config_", "npm (configuration such as script-shell and node-options)"},
	{"NPM_CONFIG_", "npm (configuration such as script-shell and node-options)"},
}

// IsHook reports whether setting name changes what an interpreter or tool
// runs.
func IsHook(name string) bool { return hookWhat(name) != "" }

func hookWhat(name string) string {
	if w, ok := hooks[name]; ok {
		return w
	}
	for _, p := range hookPrefixes {
		if strings.HasPrefix(name, p.prefix) {
			return p.what
		}
	}
	return ""
}

// Names returns the exact hook names and the prefixes (with a trailing
// "*"), for documentation and tests.
func Names() []string {
	out := make([]string, 0, len(hooks)+len(hookPrefixes))
	for n := range hooks {
		out = append(out, n)
	}
	for _, p := range hookPrefixes {
		out = append(out, p.prefix+"*")
	}
	return out
}

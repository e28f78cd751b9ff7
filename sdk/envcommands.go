package sdk

// commandEnvNames are environment variables whose value a program runs as a
// shell command line: git's and ssh's hooks, pagers, editors, askpass
// helpers, remote shells. LESSOPEN and LESSCLOSE hold a command after a
// leading "|".
var commandEnvNames = map[string]bool{"GIT_SSH_COMMAND": true, "GIT_SSH": true, "GIT_PAGER": true, "PAGER": true,
	"MANPAGER": true, "GIT_EDITOR": true, "EDITOR": true, "VISUAL": true, "GIT_SEQUENCE_EDITOR": true,
	"GIT_ASKPASS": true, "SSH_ASKPASS": true, "SUDO_ASKPASS": true, "GIT_EXTERNAL_DIFF": true, "BROWSER": true,
	"LESSOPEN": true, "LESSCLOSE": true, "RSYNC_RSH": true, "CVS_RSH": true}

// IsCommandEnvName reports whether programs run the value of the
// environment variable name as a shell command line (PAGER, EDITOR,
// GIT_SSH_COMMAND …). Written once here for host and guest: the bash
// analyzer analyzes a static value assigned to such a name as the nested
// code it is, and the rules then judge that code instead of refusing the
// name; a value the content does not show (the request's env, a dynamic
// assignment) is still a hook whose code is not in the scanned content.
func IsCommandEnvName(name string) bool { return commandEnvNames[name] }

package catalog

import "github.com/toolwarden/toolwarden/sdk"

// The interpreter-hook rule is declared in its own file so that the table in
// catalog.go stays the RULES.md minimum set.
func init() {
	x := r("ENV_INTERPRETER_HOOK", sdk.RiskTypeProcess, high, deny,
		"An environment variable that makes an interpreter or tool run other code (BASH_ENV, LD_PRELOAD, PYTHONPATH, NODE_OPTIONS, GIT_SSH_COMMAND, ...) is set by the request or the content.",
		"Remove the variable, or list it in the policy's allowed_env_names if the workload really needs it.")
	Rules[x.ID] = x
}

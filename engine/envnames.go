package engine

import (
	"slices"

	"github.com/toolwarden/toolwarden/sdk"
)

// envHookRule is the rule id of interpreter-hook environment variables
// (rules-wasm/packs/envhook).
const envHookRule = "ENV_INTERPRETER_HOOK"

// dropAllowedEnvHooks removes ENV_INTERPRETER_HOOK findings for the names
// the policy lists in allowed_env_names. The rule pack applies the list
// itself when its input carries it; the host applies it too so that the
// list holds whatever the scan input encodes of the policy.
func dropAllowedEnvHooks(fs []sdk.Finding, pol *sdk.Policy) []sdk.Finding {
	if pol == nil || len(pol.AllowedEnvNames) == 0 {
		return fs
	}
	return slices.DeleteFunc(fs, func(f sdk.Finding) bool {
		if f.RuleID != envHookRule {
			return false
		}
		name, _ := f.Metadata["variable"].(string)
		return name != "" && slices.Contains(pol.AllowedEnvNames, name)
	})
}

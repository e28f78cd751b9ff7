// Package packs lists the built-in rule packs so the host can run the very
// same code natively (benchmarks, tests) that it loads as Wasm in production.
//
// The packs split RULES.md's catalog by what they look at. They ship as one
// Wasm module (rules-wasm/cmd/core), so a scan decodes its input once and
// costs one Wasm call:
//
//   - filesystem: BASH_RECURSIVE_DELETE, FILE_DANGEROUS_DELETE,
//     WORKSPACE_RECURSIVE_DELETE_REVIEW, FILE_SECRET_PATH_ACCESS,
//     EXECUTION_DENIED_CWD, BLOCK_DEVICE_WRITE, PERSISTENCE, DEFENSE_EVASION
//   - network: NETWORK_NON_WHITELIST_DOMAIN, NETWORK_DYNAMIC_URL_REVIEW,
//     BASH_REMOTE_CODE_EXEC, REVERSE_SHELL, DATA_EXFILTRATION,
//     PY_SOCKET_NETWORK_ACCESS
//   - process: BASH_PRIVILEGE_ESCALATION, DEPENDENCY_INSTALL,
//     BASH_OBFUSCATED_EXEC, PY_OBFUSCATED_EXEC, BASH_FORK_BOMB,
//     PY_PROCESS_EXECUTION_REVIEW, PY_SHELL_INJECTION_RISK,
//     PY_DYNAMIC_CODE_EXECUTION, BASH_INLINE_INTERPRETER_REVIEW,
//     BASH_COMMAND_REVIEW, BASH_SHELL_FEATURE_REVIEW
//   - resources: BASH_INFINITE_LOOP, PY_INFINITE_LOOP, BASH_LONG_SLEEP,
//     RESOURCE_TIMEOUT_LIMIT_EXCEEDED, RESOURCE_OUTPUT_LIMIT_EXCEEDED,
//     SENSITIVE_ENV_READ_REVIEW, SENSITIVE_OUTPUT,
//     SENSITIVE_PRIVATE_KEY_LITERAL, SENSITIVE_CREDENTIAL_LITERAL_REVIEW,
//     BASH_PARSE_ERROR_REVIEW, PY_PARSE_ERROR_REVIEW
//
// Every pack judges facts at any nesting depth alike, honours the policy
// switches (a switched-off deny becomes a review, never silence), fails
// closed on a missing facts document, and leaves per-rule overrides
// (policy.rules) to the host.
package packs

import (
	"github.com/toolwarden/toolwarden/rules-wasm/packs/filesystem"
	"github.com/toolwarden/toolwarden/rules-wasm/packs/network"
	"github.com/toolwarden/toolwarden/rules-wasm/packs/process"
	"github.com/toolwarden/toolwarden/rules-wasm/packs/resources"
	"github.com/toolwarden/toolwarden/sdk"
)

// Pack is one built-in rule pack: its description and its scan function,
// exactly what rules-wasm/cmd/<pack> registers with the guest kit.
type Pack struct {
	Info func() sdk.PluginInfo
	Scan func(*sdk.ScanInput) ([]sdk.Finding, error)
}

// All returns every built-in pack. Together they implement each rule of the
// RULES.md catalog once (RULE_PLUGIN_ERROR is the host's).
func All() []Pack {
	return []Pack{
		{Info: filesystem.Info, Scan: filesystem.Scan},
		{Info: network.Info, Scan: network.Scan},
		{Info: process.Info, Scan: process.Scan},
		{Info: resources.Info, Scan: resources.Scan},
	}
}

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
//   - envhook: ENV_INTERPRETER_HOOK
//
// Every pack judges facts at any nesting depth alike, honours the policy
// switches (a switched-off deny becomes a review, never silence), fails
// closed on a missing facts document, and leaves per-rule overrides
// (policy.rules) to the host.
package packs

import (
	"fmt"

	"github.com/toolwarden/toolwarden/rules-wasm/packs/envhook"
	"github.com/toolwarden/toolwarden/rules-wasm/packs/filesystem"
	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/catalog"
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
		{Info: envhook.Info, Scan: envhook.Scan},
	}
}

// CoreName is the plugin name of the built-in packs combined into one.
const CoreName = "toolwarden-core"

// Combine declares every rule of every pack under one plugin and scans by
// running each pack on the same decoded input. The built-in Wasm module
// (rules-wasm/cmd/core) and the host's native comparison both use it, so the
// two builds combine identically. A pack that fails fails the whole scan:
// the host then fails closed for all of them, which is what separate
// plugins failing together would have meant.
func Combine(name string, all []Pack) Pack {
	info := sdk.PluginInfo{Name: name}
	for _, p := range all {
		pi := p.Info()
		if info.Version == "" {
			info.Version = pi.Version
		}
		info.Rules = append(info.Rules, pi.Rules...)
	}
	scan := func(in *sdk.ScanInput) ([]sdk.Finding, error) {
		catalog.Begin(in)
		defer catalog.End()
		var out []sdk.Finding
		for _, p := range all {
			fs, err := p.Scan(in)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p.Info().Name, err)
			}
			if out == nil {
				out = fs // most scans find nothing or one pack's findings: no copy
			} else {
				out = append(out, fs...)
			}
		}
		return out, nil
	}
	return Pack{Info: func() sdk.PluginInfo { return info }, Scan: scan}
}

// Core is every built-in pack combined under CoreName.
func Core() Pack { return Combine(CoreName, All()) }

// Package catalog is the single table of built-in rules (ids, risk types,
// default risk and decision, recommendations) and the scan environment the
// packs share: the effective policy, its compiled matchers, and a finding
// collector that fills every field the report needs and drops duplicates.
package catalog

import (
	"sort"

	"github.com/toolwarden/toolwarden/sdk"
)

// Version is the version every built-in pack reports.
const Version = "1.0.0"

// Rule is one catalog entry: the declared RuleInfo plus the recommendation
// used when a finding does not carry a more specific one.
type Rule struct {
	sdk.RuleInfo
	Recommendation string
}

func r(id, riskType string, risk sdk.RiskLevel, d sdk.Decision, desc, rec string) Rule {
	return Rule{RuleInfo: sdk.RuleInfo{ID: id, RiskType: riskType, Risk: risk, Decision: d, Description: desc}, Recommendation: rec}
}

const (
	deny   = sdk.Deny
	review = sdk.NeedsHumanReview
	crit   = sdk.RiskCritical
	high   = sdk.RiskHigh
	med    = sdk.RiskMedium
	low    = sdk.RiskLow
)

// Rules is the catalog of RULES.md, keyed by rule id. RULE_PLUGIN_ERROR is
// absent: the host emits it.
var Rules = map[string]Rule{}

func init() {
	for _, x := range []Rule{
		r("BASH_RECURSIVE_DELETE", sdk.RiskTypeFile, crit, deny,
			"Recursive or forced delete of root, a home, a system tree or a denied path.",
			"Never delete root, home or system directories; scope deletes to explicit paths inside the workspace."),
		r("FILE_DANGEROUS_DELETE", sdk.RiskTypeFile, crit, deny,
			"Python delete of root, a home, a system tree or a denied path.",
			"Remove the delete of system, home or credential paths; limit deletes to workspace files."),
		r("WORKSPACE_RECURSIVE_DELETE_REVIEW", sdk.RiskTypeFile, med, review,
			"Recursive delete inside the workspace.",
			"Confirm the recursive delete targets only disposable workspace output such as build directories."),
		r("SYSTEM_FILE_WRITE", sdk.RiskTypeFile, high, deny,
			"Write, append, move or delete under a system tree (/etc, /usr, /bin, /sbin, /lib*, /boot, /var/lib, /sys, /proc/sys).",
			"Write only inside the workspace; system configuration and binaries are not a tool call's to change."),
		r("OUTSIDE_WORKSPACE_DELETE_REVIEW", sdk.RiskTypeFile, med, review,
			"Recursive delete of a path outside the workspace that is not protected (caches, /tmp).",
			"Confirm the delete targets only disposable data such as a cache or a temporary build directory."),
		r("FILE_SECRET_PATH_ACCESS", sdk.RiskTypeFile, crit, deny,
			"Read, write, copy or delete of a denied path (credentials, keys, .env, other homes).",
			"Remove direct credential file access or explicitly scope the tool to safe workspace files."),
		r("EXECUTION_DENIED_CWD", sdk.RiskTypeFile, crit, deny,
			"The requested working directory is a denied path.",
			"Run the tool from a workspace directory instead of a credential or system location."),
		r("BLOCK_DEVICE_WRITE", sdk.RiskTypeFile, crit, deny,
			"Raw write to a block device or filesystem creation.",
			"Do not write to raw disks or create filesystems from tool calls; use an image file in the workspace."),
		r("NETWORK_NON_WHITELIST_DOMAIN", sdk.RiskTypeNetwork, high, deny,
			"Network request to a host not in allowed_domains.",
			"Add the domain to allowed_domains only if this destination is trusted."),
		r("NETWORK_DYNAMIC_URL_REVIEW", sdk.RiskTypeNetwork, med, review,
			"Network request whose destination cannot be resolved statically.",
			"Use a literal URL on an allowed domain so the destination can be checked before execution."),
		r("BASH_REMOTE_CODE_EXEC", sdk.RiskTypeNetwork, crit, deny,
			"Downloaded content executed by an interpreter.",
			"Download the script, review and pin it (checksum) in the workspace instead of piping it into an interpreter."),
		r("REVERSE_SHELL", sdk.RiskTypeNetwork, crit, deny,
			"Shell attached to a network connection.",
			"Remove the network-attached shell; tools must not expose interactive shells over the network."),
		r("DATA_EXFILTRATION", sdk.RiskTypeLeak, crit, deny,
			"Secrets, files or command output sent to the network.",
			"Do not send local files, secrets or command output to external hosts."),
		r("PY_SOCKET_NETWORK_ACCESS", sdk.RiskTypeNetwork, high, deny,
			"Raw socket to a non-allowed or unknown host.",
			"Use an HTTP client against an allowed domain instead of raw sockets."),
		r("BASH_PRIVILEGE_ESCALATION", sdk.RiskTypeProcess, high, deny,
			"sudo, su, doas, pkexec, setuid bits, chown root or privileged containers.",
			"Run without elevated privileges; request the privileged operation from an administrator."),
		r("DEPENDENCY_INSTALL", sdk.RiskTypeDependency, high, deny,
			"Package installation by pip, npm, apt, brew, cargo, go install and the like.",
			"Declare dependencies in the project and install them in a reviewed build step, not from a tool call."),
		r("PERSISTENCE", sdk.RiskTypeProcess, high, deny,
			"Crontab edits, shell rc writes, systemd units or authorized_keys.",
			"Remove the persistence mechanism; tools must not schedule jobs or modify login configuration."),
		r("DEFENSE_EVASION", sdk.RiskTypeProcess, high, deny,
			"History wiping or disabling security controls.",
			"Do not clear shell history, logs or security controls such as SELinux, firewalls or auditing."),
		r("BASH_OBFUSCATED_EXEC", sdk.RiskTypeProcess, crit, deny,
			"Encoded or transformed content executed by the shell.",
			"Run the decoded command in plain text so it can be reviewed; encoded execution is blocked."),
		r("PY_OBFUSCATED_EXEC", sdk.RiskTypeProcess, crit, deny,
			"Encoded or transformed content executed by Python.",
			"Replace encoded exec/eval or ctypes calls with plain, reviewable code."),
		r("BASH_FORK_BOMB", sdk.RiskTypeResource, crit, deny,
			"Function that recursively spawns itself (fork bomb).",
			"Remove the self-replicating function."),
		r("SENSITIVE_PRIVATE_KEY_LITERAL", sdk.RiskTypeLeak, crit, deny,
			"A PEM private key embedded in the content.",
			"Remove the private key from the content and load it from a secret store at runtime."),
		r("SENSITIVE_OUTPUT", sdk.RiskTypeLeak, high, deny,
			"A secret-named variable's value printed or sent out.",
			"Do not print or send secret values; log only whether the secret is set."),
		r("PY_PROCESS_EXECUTION_REVIEW", sdk.RiskTypeProcess, med, review,
			"Python process execution (subprocess, os.system, os.exec*, pty).",
			"Review subprocess/os.system usage and prefer a constrained wrapper."),
		r("PY_SHELL_INJECTION_RISK", sdk.RiskTypeProcess, high, review,
			"Shell command built from non-constant input.",
			"Pass an argument list without shell=True, or quote untrusted values with shlex.quote."),
		r("PY_DYNAMIC_CODE_EXECUTION", sdk.RiskTypeProcess, med, review,
			"eval/exec/compile/__import__/importlib with non-constant input.",
			"Replace dynamic code execution and dynamic imports with explicit imports and function calls."),
		r("BASH_INLINE_INTERPRETER_REVIEW", sdk.RiskTypeProcess, med, review,
			"Inline interpreter code (python -c, bash -c, eval, heredoc interpreters).",
			"Review the inline code; prefer a checked-in script that can be scanned and versioned."),
		r("BASH_COMMAND_REVIEW", sdk.RiskTypeProcess, med, review,
			"Command not in allowed_commands.",
			"Add the command to allowed_commands if it is expected for this tool, or use an allowed alternative."),
		r("BASH_SHELL_FEATURE_REVIEW", sdk.RiskTypeProcess, low, review,
			"Pipes, chains, redirections, substitution, background jobs or process substitution.",
			"Review shell pipes, redirections, command substitution, and background processes before execution."),
		r("BASH_INFINITE_LOOP", sdk.RiskTypeResource, med, review,
			"Shell loop with a constant-true condition and no reachable break.",
			"Bound the loop with a counter or timeout, or add a reachable exit condition."),
		r("PY_INFINITE_LOOP", sdk.RiskTypeResource, med, review,
			"Python loop with a constant-true condition and no reachable break.",
			"Bound the loop with a counter or timeout, or add a reachable exit condition."),
		r("BASH_LONG_SLEEP", sdk.RiskTypeResource, med, review,
			"Sleep longer than long_sleep_seconds.",
			"Shorten the sleep below long_sleep_seconds or poll with a bounded wait."),
		r("RESOURCE_TIMEOUT_LIMIT_EXCEEDED", sdk.RiskTypeResource, med, review,
			"Requested timeout above max_timeout_seconds.",
			"Request a timeout within max_timeout_seconds or split the work into shorter calls."),
		r("RESOURCE_OUTPUT_LIMIT_EXCEEDED", sdk.RiskTypeResource, med, review,
			"Requested output budget above max_output_bytes.",
			"Request at most max_output_bytes of output and write large results to a workspace file."),
		r("SENSITIVE_ENV_READ_REVIEW", sdk.RiskTypeLeak, med, review,
			"Read of a secret-named environment variable.",
			"Confirm the secret is needed and is never printed, logged or sent to untrusted hosts."),
		r("SENSITIVE_CREDENTIAL_LITERAL_REVIEW", sdk.RiskTypeLeak, med, review,
			"A credential-shaped literal (cloud key, API token) embedded in the content.",
			"Move the credential to a secret store or environment variable and rotate it."),
		r("BASH_PARSE_ERROR_REVIEW", sdk.RiskTypeUnknown, med, review,
			"Shell content that does not parse (or nests beyond the analysis depth).",
			"Fix the shell syntax so the content can be analyzed before execution."),
		r("PY_PARSE_ERROR_REVIEW", sdk.RiskTypeUnknown, med, review,
			"Python content that does not parse (or nests beyond the analysis depth).",
			"Fix the Python syntax so the content can be analyzed before execution."),
	} {
		Rules[x.ID] = x
	}
}

// Infos returns the RuleInfos of ids in order, for a pack's Info. It panics
// on an unknown id: a pack declaring a rule the catalog lacks is a
// programming error caught by any test.
func Infos(ids ...string) []sdk.RuleInfo {
	out := make([]sdk.RuleInfo, 0, len(ids))
	for _, id := range ids {
		x, ok := Rules[id]
		if !ok {
			panic("catalog: unknown rule " + id)
		}
		out = append(out, x.RuleInfo)
	}
	return out
}

// IDs returns every rule id in the catalog, sorted.
func IDs() []string {
	ids := make([]string, 0, len(Rules))
	for id := range Rules {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

package sdk

// Policy steers a scan. It is loaded and validated by the host
// (policies package) and passed to every rule plugin in the scan input, so a
// plugin applies the same lists the host does.
type Policy struct {
	// Name identifies the policy in reports and logs ("default", "strict").
	Name string `json:"name" koanf:"name"`
	// AllowedDomains lists hosts that network requests may reach; a host
	// matches an entry exactly or as a subdomain of it. IP literals never
	// match.
	AllowedDomains []string `json:"allowed_domains" koanf:"allowed_domains"`
	// AllowedCommands, when non-empty, is an allowlist applied to every
	// command name; commands outside it are reviewed. Empty means no list.
	AllowedCommands []string `json:"allowed_commands" koanf:"allowed_commands"`
	// AllowedEnvNames lists interpreter-hook environment variables
	// (BASH_ENV, LD_PRELOAD, PYTHONPATH, ...) that requests and content may
	// set; every other hook name is denied by ENV_INTERPRETER_HOOK. Names
	// match exactly.
	AllowedEnvNames []string `json:"allowed_env_names,omitempty" koanf:"allowed_env_names"`
	// DeniedPaths are path patterns no content may read, write or copy:
	// "~/.ssh", ".env", "*/.env", "*.pem", "id_rsa*", "/etc/shadow".
	DeniedPaths []string `json:"denied_paths" koanf:"denied_paths"`
	// MaxTimeoutSeconds is the largest timeout a request may ask for.
	MaxTimeoutSeconds float64 `json:"max_timeout_seconds" koanf:"max_timeout_seconds"`
	// MaxOutputBytes is the largest output a request may ask for.
	MaxOutputBytes int64 `json:"max_output_bytes" koanf:"max_output_bytes"`
	// DenyDependencyInstall turns package installs into deny (else review).
	DenyDependencyInstall bool `json:"deny_dependency_install" koanf:"deny_dependency_install"`
	// DenyPrivilegeEscalation turns sudo/su/setuid into deny (else review).
	DenyPrivilegeEscalation bool `json:"deny_privilege_escalation" koanf:"deny_privilege_escalation"`
	// ReviewUnknownNetwork reviews requests whose destination is dynamic.
	ReviewUnknownNetwork bool `json:"review_unknown_network" koanf:"review_unknown_network"`
	// ReviewProcessExecution reviews Python process execution.
	ReviewProcessExecution bool `json:"review_process_execution" koanf:"review_process_execution"`
	// ReviewShellFeatures reviews pipes, chains, redirections, substitution
	// and background jobs.
	ReviewShellFeatures bool `json:"review_shell_features" koanf:"review_shell_features"`
	// LongSleepSeconds is the longest sleep that passes without review.
	LongSleepSeconds float64 `json:"long_sleep_seconds" koanf:"long_sleep_seconds"`
	// BlockOnReview blocks needs_human_review decisions too (strict mode).
	BlockOnReview bool `json:"block_on_review" koanf:"block_on_review"`
	// Rules holds per-rule overrides keyed by rule ID.
	Rules map[string]RuleOverride `json:"rules,omitempty" koanf:"rules"`
	// AuditLogPath, when set, receives one JSONL audit event per scan.
	AuditLogPath string `json:"audit_log_path,omitempty" koanf:"audit_log_path"`
}

// RuleOverride changes one rule's outcome without changing its plugin:
// disable it, or move its decision (and optionally its risk level).
type RuleOverride struct {
	Disabled  bool      `json:"disabled,omitempty" koanf:"disabled"`
	Decision  Decision  `json:"decision,omitempty" koanf:"decision"`
	RiskLevel RiskLevel `json:"risk_level,omitempty" koanf:"risk_level"`
}

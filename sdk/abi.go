package sdk

// ABIVersion is the version of the Wasm rule ABI that this SDK speaks. A
// plugin's abi_version() export must return it. See ABI.md.
const ABIVersion = 1

// ScanInput is the JSON document the host passes to a plugin's scan export.
type ScanInput struct {
	Facts    *Facts         `json:"facts"`
	Content  string         `json:"content"`
	Language string         `json:"language"`
	Context  RequestContext `json:"context"`
	Policy   *Policy        `json:"policy"`
	Config   map[string]any `json:"config,omitempty"`
}

// RequestContext is what the caller said about the execution it asks for,
// apart from the content itself.
type RequestContext struct {
	ToolName string `json:"tool_name,omitempty"`
	Cwd      string `json:"cwd,omitempty"`
	// TimeoutSeconds is the requested timeout, 0 when not given.
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty"`
	// MaxOutputBytes is the requested output budget, 0 when not given.
	MaxOutputBytes int64    `json:"max_output_bytes,omitempty"`
	CommandArgs    []string `json:"command_args,omitempty"`
	// EnvKeys are the names (never the values) of the requested environment.
	EnvKeys  []string       `json:"env_keys,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// ScanOutput is the JSON document a plugin's scan export returns. A non-empty
// Error makes the host fail closed with a RULE_PLUGIN_ERROR finding.
type ScanOutput struct {
	Findings []Finding `json:"findings"`
	Error    string    `json:"error,omitempty"`
}

// PluginInfo is what a plugin's describe export returns.
type PluginInfo struct {
	Name    string     `json:"name"`
	Version string     `json:"version"`
	Rules   []RuleInfo `json:"rules"`
}

// RuleInfo declares one rule a plugin may report. The host fills a
// finding's risk_type, risk_level and decision from here when the plugin
// leaves them empty, and rejects findings for undeclared rule IDs.
type RuleInfo struct {
	ID          string    `json:"id"`
	RiskType    string    `json:"risk_type"`
	Risk        RiskLevel `json:"risk"`
	Decision    Decision  `json:"decision"`
	Description string    `json:"description"`
}

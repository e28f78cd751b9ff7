package sdk

// ABIVersion is the version of the Wasm rule ABI that this SDK speaks. A
// plugin's abi_version() export must return it. See ABI.md.
const ABIVersion = 1

// ABIVersion2 is the version of the fast Wasm rule ABI (ABI.md, "Version
// 2"): facts in a binary layout the guest reads in place (package
// sdk/layout), policy and settings sent once per instance through
// configure, findings returned as records of the same layout.
const ABIVersion2 = 2

// ScanInput is the JSON document the host passes to a plugin's scan export.
type ScanInput struct {
	Facts    *Facts         `json:"facts"`
	Content  string         `json:"content"`
	Language string         `json:"language"`
	Context  RequestContext `json:"context"`
	// Policy and Config reach an ABI v2 plugin through configure, once
	// per version, not in every scan's layout.
	Policy *Policy        `json:"policy" layout:"-"`
	Config map[string]any `json:"config,omitempty" layout:"-"`
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
	// Interests (ABI v2 only) narrows what the host sends; nil: everything.
	Interests *Interests `json:"interests,omitempty"`
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
	// Message and Recommendation are templates the host fills a finding's
	// empty message and recommendation from: {evidence}, {line} and
	// {key} for a metadata key are replaced, so a plugin can return
	// compact findings and leave the text to the host.
	Message        string `json:"message,omitempty"`
	Recommendation string `json:"recommendation,omitempty"`
}

// Interests is what a plugin judges (ABI v2, PluginInfo.Interests): the
// host sends it only these facts and skips it for content that has none.
// A plugin without Interests gets everything.
type Interests struct {
	// Facts are fact kinds by their JSON name in Facts ("commands",
	// "files", "network", ...).
	Facts []string `json:"facts,omitempty"`
	// Commands, when set, sends only the commands of these names (plus
	// dynamic ones, and globs that could expand to one); it implies the
	// "commands" kind.
	Commands []string `json:"commands,omitempty"`
	// Content and Context send the raw content and the request context.
	Content bool `json:"content,omitempty"`
	Context bool `json:"context,omitempty"`
}

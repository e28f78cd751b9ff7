package sdk

import "slices"

// Decision is the verdict of a rule or a whole scan.
type Decision string

// The three decisions, in increasing severity. Aggregation takes the most
// severe: any deny → deny; else any review → needs_human_review; else allow.
const (
	Allow            Decision = "allow"
	NeedsHumanReview Decision = "needs_human_review"
	Deny             Decision = "deny"
)

// Severity orders decisions for aggregation: allow 0, review 1, deny 2, and
// 3 for an unknown value so that a malformed decision never weakens a scan.
func (d Decision) Severity() int {
	switch d {
	case Allow:
		return 0
	case NeedsHumanReview:
		return 1
	case Deny:
		return 2
	}
	return 3
}

// Valid reports whether d is one of the three decisions.
func (d Decision) Valid() bool { return d.Severity() < 3 }

// RiskLevel is the severity of a finding or of a whole scan.
type RiskLevel string

// Risk levels, lowest first.
const (
	RiskNone     RiskLevel = "none"
	RiskLow      RiskLevel = "low"
	RiskMedium   RiskLevel = "medium"
	RiskHigh     RiskLevel = "high"
	RiskCritical RiskLevel = "critical"
)

// Rank orders risk levels: none 0 … critical 4, -1 when unknown.
func (r RiskLevel) Rank() int {
	switch r {
	case RiskNone:
		return 0
	case RiskLow:
		return 1
	case RiskMedium:
		return 2
	case RiskHigh:
		return 3
	case RiskCritical:
		return 4
	}
	return -1
}

// Risk types, as used by RULES.md's catalog.
const (
	RiskTypeFile       = "dangerous_file_operation"
	RiskTypeNetwork    = "network_egress"
	RiskTypeLeak       = "sensitive_information_leak"
	RiskTypeProcess    = "process_command"
	RiskTypeDependency = "dependency_install"
	RiskTypeResource   = "resource_abuse"
	RiskTypeUnknown    = "unknown"
)

// Finding is one rule match. Field names and order follow the
// Tool Script Safety Guard's RiskFinding so that reports read the same.
type Finding struct {
	RuleID         string         `json:"rule_id"`
	RiskType       string         `json:"risk_type"`
	RiskLevel      RiskLevel      `json:"risk_level"`
	Decision       Decision       `json:"decision"`
	Evidence       string         `json:"evidence"`
	Line           int            `json:"line"`
	Column         *int           `json:"column"`
	Message        string         `json:"message"`
	Metadata       map[string]any `json:"metadata"`
	Recommendation string         `json:"recommendation"`
}

// SafetyReport is the result of one scan, in the exact shape of the Tool
// Script Safety Guard's report so that its consumers need no change.
type SafetyReport struct {
	ScanID              string         `json:"scan_id"`
	Timestamp           string         `json:"timestamp"`
	Decision            Decision       `json:"decision"`
	RiskLevel           RiskLevel      `json:"risk_level"`
	Findings            []Finding      `json:"findings"`
	ToolName            string         `json:"tool_name"`
	Language            string         `json:"language"`
	ElapsedMS           float64        `json:"elapsed_ms"`
	Sanitized           bool           `json:"sanitized"`
	Blocked             bool           `json:"blocked"`
	Summary             string         `json:"summary"`
	TelemetryAttributes map[string]any `json:"telemetry_attributes"`
}

// RuleIDs returns the distinct rule IDs of the report's findings in order.
// Reports have a handful of findings, so duplicates are looked for in the
// result itself; a set is built only for many findings.
func (r *SafetyReport) RuleIDs() []string {
	var ids []string
	var seen map[string]bool
	for _, f := range r.Findings {
		if seen == nil && len(ids) >= 16 {
			seen = make(map[string]bool, len(r.Findings))
			for _, id := range ids {
				seen[id] = true
			}
		}
		if seen != nil {
			if !seen[f.RuleID] {
				seen[f.RuleID] = true
				ids = append(ids, f.RuleID)
			}
			continue
		}
		if !slices.Contains(ids, f.RuleID) {
			ids = append(ids, f.RuleID)
		}
	}
	return ids
}

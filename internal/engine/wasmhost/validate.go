package wasmhost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toolwarden/toolwarden/sdk"
)

// ParsePluginInfo decodes and validates a describe result: a non-empty
// name, at least one rule, rule IDs non-empty, free of whitespace and
// unique, a risk_type, and a valid risk and decision on every rule. Unknown
// fields are rejected so that a typo in a non-Go plugin's JSON is an error
// instead of a silently missing declaration.
func ParsePluginInfo(raw []byte) (sdk.PluginInfo, error) {
	var info sdk.PluginInfo
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&info); err != nil {
		return sdk.PluginInfo{}, fmt.Errorf("decode plugin info: %w", err)
	}
	if err := ValidatePluginInfo(info); err != nil {
		return sdk.PluginInfo{}, err
	}
	return info, nil
}

// ValidatePluginInfo checks a plugin's declared rules; see ParsePluginInfo.
func ValidatePluginInfo(info sdk.PluginInfo) error {
	if strings.TrimSpace(info.Name) == "" {
		return errors.New("plugin info: empty name")
	}
	if len(info.Rules) == 0 {
		return fmt.Errorf("plugin info %s: declares no rules", info.Name)
	}
	seen := make(map[string]bool, len(info.Rules))
	for i, r := range info.Rules {
		switch {
		case r.ID == "":
			return fmt.Errorf("plugin info %s: rule %d has an empty id", info.Name, i)
		case strings.ContainsFunc(r.ID, func(c rune) bool { return c <= ' ' || c == 0x7f }):
			return fmt.Errorf("plugin info %s: rule id %q contains whitespace or control characters", info.Name, r.ID)
		case seen[r.ID]:
			return fmt.Errorf("plugin info %s: rule id %s declared twice", info.Name, r.ID)
		case r.RiskType == "":
			return fmt.Errorf("plugin info %s: rule %s has an empty risk_type", info.Name, r.ID)
		case r.Risk.Rank() < 0:
			return fmt.Errorf("plugin info %s: rule %s has invalid risk %q", info.Name, r.ID, r.Risk)
		case !r.Decision.Valid():
			return fmt.Errorf("plugin info %s: rule %s has invalid decision %q", info.Name, r.ID, r.Decision)
		}
		seen[r.ID] = true
	}
	return nil
}

// checkOutput decodes a v1 scan result and completes its findings from
// the declared rules; anything doubtful is an error.
func (p *Plugin) checkOutput(raw []byte) ([]sdk.Finding, error) {
	var out sdk.ScanOutput
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("decode scan output: %w", err)
	}
	return p.complete(&out)
}

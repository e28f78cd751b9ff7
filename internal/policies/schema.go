package policies

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/toolwarden/toolwarden/sdk"
)

// kind is the YAML type a policy field must have. The loader checks it on
// the raw document before decoding, so that a file never relies on weak
// conversion ("yes" → true, "10" → 10): a typo in a security setting must
// fail the load, not silently change its meaning.
type kind int

const (
	kindString kind = iota
	kindStringList
	kindNumber
	kindInteger
	kindBool
	kindRules
)

func (k kind) String() string {
	switch k {
	case kindString:
		return "a string"
	case kindStringList:
		return "a list of strings"
	case kindNumber:
		return "a number"
	case kindInteger:
		return "an integer"
	case kindBool:
		return "a boolean (true or false)"
	case kindRules:
		return "a map of rule IDs to overrides"
	}
	return "unknown"
}

// fields lists every top-level key of a policy document with its kind.
// It mirrors the koanf tags of sdk.Policy; TestSchemaMatchesPolicy keeps
// the two in step.
var fields = map[string]kind{
	"name":                      kindString,
	"allowed_domains":           kindStringList,
	"allowed_commands":          kindStringList,
	"denied_paths":              kindStringList,
	"allowed_env_names":         kindStringList,
	"max_timeout_seconds":       kindNumber,
	"max_output_bytes":          kindInteger,
	"deny_dependency_install":   kindBool,
	"deny_privilege_escalation": kindBool,
	"review_unknown_network":    kindBool,
	"review_process_execution":  kindBool,
	"review_shell_features":     kindBool,
	"long_sleep_seconds":        kindNumber,
	"block_on_review":           kindBool,
	"rules":                     kindRules,
	"audit_log_path":            kindString,
}

// overrideFields lists the keys of one rules.<ID> entry.
var overrideFields = map[string]kind{
	"disabled":   kindBool,
	"decision":   kindString,
	"risk_level": kindString,
}

// checkRaw checks the raw parsed document against the schema: unknown keys
// at any level and values of the wrong type. It appends one problem per
// offending field.
func checkRaw(raw map[string]any, errs *problems) {
	for _, key := range sortedKeys(raw) {
		k, ok := fields[key]
		if !ok {
			errs.add(key, "unknown field"+suggest(key, fields))
			continue
		}
		checkValue(key, k, raw[key], errs)
	}
}

func checkValue(field string, k kind, v any, errs *problems) {
	switch k {
	case kindString:
		if _, ok := v.(string); !ok {
			errs.add(field, fmt.Sprintf("must be %s, got %s", k, describe(v)))
		}
	case kindBool:
		if _, ok := v.(bool); !ok {
			errs.add(field, fmt.Sprintf("must be %s, got %s", k, describe(v)))
		}
	case kindNumber:
		f, ok := number(v)
		if !ok {
			errs.add(field, fmt.Sprintf("must be %s, got %s", k, describe(v)))
		} else if math.IsNaN(f) || math.IsInf(f, 0) {
			errs.add(field, fmt.Sprintf("must be a finite number, got %v", f))
		} else if f < 0 {
			errs.add(field, fmt.Sprintf("must be >= 0, got %v", f))
		}
	case kindInteger:
		f, ok := number(v)
		if !ok || f != math.Trunc(f) || math.IsInf(f, 0) {
			errs.add(field, fmt.Sprintf("must be %s, got %s", k, describe(v)))
		} else if f < 0 {
			errs.add(field, fmt.Sprintf("must be >= 0, got %v", f))
		} else if f >= math.MaxInt64 {
			errs.add(field, fmt.Sprintf("must be below 2^63, got %v", f))
		}
	case kindStringList:
		if v == nil {
			return // an empty "field:" line means an empty list
		}
		list, ok := v.([]any)
		if !ok {
			errs.add(field, fmt.Sprintf("must be %s, got %s", k, describe(v)))
			return
		}
		for i, item := range list {
			s, ok := item.(string)
			if !ok {
				errs.add(fmt.Sprintf("%s[%d]", field, i), fmt.Sprintf("must be a string, got %s", describe(item)))
				continue
			}
			if field == "allowed_domains" {
				if msg := checkDomain(normalizeDomain(s)); msg != "" {
					errs.add(fmt.Sprintf("%s[%d]", field, i), msg)
				}
			}
		}
	case kindRules:
		if v == nil {
			return
		}
		rules, ok := v.(map[string]any)
		if !ok {
			errs.add(field, fmt.Sprintf("must be %s, got %s", k, describe(v)))
			return
		}
		for _, id := range sortedKeys(rules) {
			path := field + "." + id
			if rules[id] == nil {
				continue // "RULE_ID:" with nothing under it overrides nothing
			}
			entry, ok := rules[id].(map[string]any)
			if !ok {
				errs.add(path, fmt.Sprintf("must be a map with disabled, decision or risk_level, got %s", describe(rules[id])))
				continue
			}
			for _, key := range sortedKeys(entry) {
				ek, ok := overrideFields[key]
				if !ok {
					errs.add(path+"."+key, "unknown field"+suggest(key, overrideFields))
					continue
				}
				checkValue(path+"."+key, ek, entry[key], errs)
			}
			if !ruleIDPattern.MatchString(id) {
				errs.add(path, ruleIDMessage)
			}
			if d, ok := entry["decision"].(string); ok && !sdk.Decision(d).Valid() {
				errs.add(path+".decision", decisionMessage(d))
			}
			if r, ok := entry["risk_level"].(string); ok && sdk.RiskLevel(r).Rank() < 0 {
				errs.add(path+".risk_level", riskMessage(r))
			}
		}
	}
}

// number reports the value of a YAML number of any Go numeric type.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	case uint:
		return float64(n), true
	case uint64:
		return float64(n), true
	case uint32:
		return float64(n), true
	case float64:
		return n, true
	case float32:
		return float64(n), true
	}
	return 0, false
}

// describe names a value's type (and the value, for scalars) for messages.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("string %q", x)
	case bool:
		return fmt.Sprintf("boolean %v", x)
	case []any:
		return "a list"
	case map[string]any:
		return "a map"
	}
	if f, ok := number(v); ok {
		return fmt.Sprintf("number %v", f)
	}
	return fmt.Sprintf("%T", v)
}

// suggest returns ` (did you mean "x"?)` for the known key closest to key
// when it is a likely typo, so a misspelt switch is easy to fix.
func suggest[V any](key string, known map[string]V) string {
	best, bestD := "", 3
	for _, k := range sortedKeys(known) {
		if d := distance(strings.ToLower(key), k); d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

package service

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/toolwarden/toolwarden/internal/engine/analyze"
)

// fieldRole is what a request key means when several keys mean the same
// thing (the Safety Guard's filter reads each role under more than one
// name).
type fieldRole int

const (
	roleLanguage fieldRole = iota + 1
	roleCommandArgs
)

// aliasFields maps every request key of a role to that role, in the order
// the Safety Guard's filter reads them (the first name is the canonical
// one). All the keys a request sets for one role are read: a value of the
// wrong type in any of them is a bad request naming that key, and keys
// that disagree are refused rather than one of them being ignored.
var aliasFields = []struct {
	key  string
	role fieldRole
}{
	{"language", roleLanguage},
	{"lang", roleLanguage},
	{"command_args", roleCommandArgs},
	{"args", roleCommandArgs},
	{"argv", roleCommandArgs},
}

// roleOf returns the role of key and its rank among the role's names.
func roleOf(key string) (fieldRole, int, bool) {
	for i, f := range aliasFields {
		if f.key == key {
			return f.role, i, true
		}
	}
	return 0, 0, false
}

// keyed is one request key's raw value.
type keyed struct {
	key  string
	rank int
	raw  json.RawMessage
}

// toolRequestFields is ToolRequest without its JSON method: the fields
// decoded as tagged.
type toolRequestFields ToolRequest

// UnmarshalJSON decodes a tool request strictly (an unknown key or a
// mistyped value is an error naming the key), reading each role under all
// the names in aliasFields.
func (r *ToolRequest) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			// Say what the body must be: an object (a tool request).
			return &json.UnmarshalTypeError{Value: te.Value, Type: reflect.TypeFor[ToolRequest](), Offset: te.Offset}
		}
		return err
	}
	rest := make(map[string]json.RawMessage, len(raw))
	byRole := map[fieldRole][]keyed{}
	for k, v := range raw {
		if role, rank, ok := roleOf(k); ok {
			byRole[role] = append(byRole[role], keyed{k, rank, v})
			continue
		}
		rest[k] = v
	}
	plain, err := json.Marshal(rest)
	if err != nil {
		return fmt.Errorf("tool request: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(plain))
	dec.DisallowUnknownFields()
	if err := dec.Decode((*toolRequestFields)(r)); err != nil {
		return err
	}
	for role, vals := range byRole {
		slices.SortFunc(vals, func(a, b keyed) int { return a.rank - b.rank })
		if err := roleDecoders[role](r, vals); err != nil {
			return err
		}
	}
	return nil
}

// roleDecoders set a role's field from all the keys the request gave it.
var roleDecoders = map[fieldRole]func(*ToolRequest, []keyed) error{
	roleLanguage:    decodeLanguage,
	roleCommandArgs: decodeCommandArgs,
}

// decodeLanguage takes the language from language or lang: a string naming
// a language analyze knows. Two keys naming different languages are
// refused: the content would be judged as one and might run as the other.
func decodeLanguage(r *ToolRequest, vals []keyed) error {
	var first keyed
	var firstNorm string
	for _, v := range vals {
		if isNull(v.raw) {
			continue
		}
		var s string
		if err := json.Unmarshal(v.raw, &s); err != nil {
			return &FieldError{v.key, "must be a string naming the language (bash, python, auto, unknown or mixed)"}
		}
		if strings.TrimSpace(s) == "" {
			continue
		}
		norm, err := analyze.NormalizeLanguage(s)
		if err != nil {
			return &FieldError{v.key, err.Error()}
		}
		if first.key == "" {
			first, firstNorm, r.Language = v, norm, s
			continue
		}
		if norm != firstNorm {
			return &FieldError{v.key, fmt.Sprintf("language %q conflicts with %s %q: send one language", s, first.key, r.Language)}
		}
	}
	return nil
}

// decodeCommandArgs takes the arguments from command_args, args or argv: a
// list of strings (numbers are taken as their JSON text, as the Safety
// Guard's filter stringifies them). Keys holding different lists are
// refused: the scan would judge one list and the run might get the other.
func decodeCommandArgs(r *ToolRequest, vals []keyed) error {
	var firstKey string
	for _, v := range vals {
		if isNull(v.raw) {
			continue
		}
		args, err := argList(v.key, v.raw)
		if err != nil {
			return err
		}
		if firstKey == "" {
			firstKey, r.CommandArgs = v.key, args
			continue
		}
		if !slices.Equal(args, r.CommandArgs) {
			return &FieldError{v.key, fmt.Sprintf("conflicts with %s: send the arguments once", firstKey)}
		}
	}
	return nil
}

// argList decodes a JSON list of argument strings (or numbers).
func argList(key string, raw json.RawMessage) ([]string, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, &FieldError{key, "must be an array of strings"}
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		var s string
		if err := json.Unmarshal(it, &s); err == nil {
			out = append(out, s)
			continue
		}
		var n json.Number
		if err := json.Unmarshal(it, &n); err == nil {
			out = append(out, n.String())
			continue
		}
		return nil, &FieldError{fmt.Sprintf("%s[%d]", key, i), "must be a string (or a number)"}
	}
	return out, nil
}

func isNull(raw json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// metaLimit is a tool_metadata key the Safety Guard's scanner reads as a
// requested limit, and which of the request's limits it asks for.
type metaLimit struct {
	key   string
	limit string // "timeout" or "output"
}

// metaLimits are the tool_metadata keys read as the requested timeout
// (seconds) and output budget (bytes). Each key set is read and the
// largest value per limit is judged: the limit checks are "too big =>
// review", so the largest ask is the fail-closed one.
var metaLimits = []metaLimit{
	{"timeout", "timeout"},
	{"timeout_seconds", "timeout"},
	{"max_timeout_seconds", "timeout"},
	{"max_output_bytes", "output"},
	{"output_bytes", "output"},
	{"output_size", "output"},
	{"max_output_size", "output"},
}

// metaLimitValues returns, per limit, the largest value tool_metadata
// asks for; a key holding something other than a number (or a numeric
// string) is a FieldError naming it.
func metaLimitValues(m map[string]any) (map[string]float64, error) {
	out := map[string]float64{}
	for _, l := range metaLimits {
		v, present := m[l.key]
		if !present {
			continue
		}
		f, err := metaNumber(v)
		if err != nil {
			return nil, &FieldError{"tool_metadata." + l.key, err.Error()}
		}
		out[l.limit] = max(out[l.limit], f)
	}
	return out, nil
}

// metaNumber reads a tool_metadata number: a JSON number or a numeric
// string. A value too large to represent is the largest float64 (over any
// limit).
func metaNumber(v any) (float64, error) {
	var f float64
	switch v := v.(type) {
	case float64:
		f = v
	case int:
		f = float64(v)
	case int64:
		f = float64(v)
	case json.Number:
		g, err := strconv.ParseFloat(v.String(), 64)
		if err != nil && !math.IsInf(g, 0) {
			return 0, fmt.Errorf("must be a number, got %q", v.String())
		}
		f = g
	case string:
		g, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil && !math.IsInf(g, 0) {
			return 0, fmt.Errorf("must be a number or a numeric string, got %q", v)
		}
		f = g
	default:
		return 0, fmt.Errorf("must be a number or a numeric string, got %s", jsonWord(v))
	}
	switch {
	case math.IsNaN(f):
		return 0, fmt.Errorf("must be a number, got NaN")
	case math.IsInf(f, 1):
		// Past any limit, and still a finite number in the facts.
		return math.MaxFloat64, nil
	case math.IsInf(f, -1):
		return -math.MaxFloat64, nil
	}
	return f, nil
}

// jsonWord names the JSON kind of a decoded value.
func jsonWord(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "true/false"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// saturateInt64 converts a byte count to int64, saturating: a float past
// the int64 range must stay "very large", never wrap to a small or
// negative number that would pass the output limit.
func saturateInt64(f float64) int64 {
	switch {
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= 0:
		return 0
	}
	return int64(f)
}

// LanguageKeys are the request keys read as the language, canonical first.
func LanguageKeys() []string { return aliasKeys(roleLanguage) }

// CommandArgsKeys are the request keys read as command_args, canonical
// first.
func CommandArgsKeys() []string { return aliasKeys(roleCommandArgs) }

func aliasKeys(role fieldRole) []string {
	var out []string
	for _, f := range aliasFields {
		if f.role == role {
			out = append(out, f.key)
		}
	}
	return out
}

package sdk

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// AppendScanOutput appends the JSON of out to dst and returns the extended
// buffer. The bytes are exactly those json.Marshal produces for out (field
// order, HTML-safe escaping, sorted metadata keys, number formatting), but
// without reflection: inside Wasm, encoding/json's reflection costs tens of
// microseconds for an empty output, and a rule plugin encodes one output on
// every scan. Metadata values of the types rules use (string, bool, the
// integer and float types, []string, []any, map[string]any, nil) are
// encoded here; any other type goes through json.Marshal. The error is
// json.Marshal's for a value it cannot encode (a NaN, a channel).
func AppendScanOutput(dst []byte, out *ScanOutput) ([]byte, error) {
	dst = append(dst, `{"findings":`...)
	if out.Findings == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range out.Findings {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendFinding(dst, &out.Findings[i]); err != nil {
				return dst, err
			}
		}
		dst = append(dst, ']')
	}
	if out.Error != "" {
		dst = append(dst, `,"error":`...)
		dst = appendString(dst, out.Error)
	}
	return append(dst, '}'), nil
}

func appendFinding(dst []byte, f *Finding) ([]byte, error) {
	dst = append(dst, `{"rule_id":`...)
	dst = appendString(dst, f.RuleID)
	dst = append(dst, `,"risk_type":`...)
	dst = appendString(dst, f.RiskType)
	dst = append(dst, `,"risk_level":`...)
	dst = appendString(dst, string(f.RiskLevel))
	dst = append(dst, `,"decision":`...)
	dst = appendString(dst, string(f.Decision))
	dst = append(dst, `,"evidence":`...)
	dst = appendString(dst, f.Evidence)
	dst = append(dst, `,"line":`...)
	dst = strconv.AppendInt(dst, int64(f.Line), 10)
	dst = append(dst, `,"column":`...)
	if f.Column == nil {
		dst = append(dst, "null"...)
	} else {
		dst = strconv.AppendInt(dst, int64(*f.Column), 10)
	}
	dst = append(dst, `,"message":`...)
	dst = appendString(dst, f.Message)
	dst = append(dst, `,"metadata":`...)
	var err error
	if f.Metadata == nil {
		dst = append(dst, "null"...)
	} else if dst, err = appendMap(dst, f.Metadata); err != nil {
		return dst, err
	}
	dst = append(dst, `,"recommendation":`...)
	dst = appendString(dst, f.Recommendation)
	return append(dst, '}'), nil
}

func appendMap(dst []byte, m map[string]any) ([]byte, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, k)
		dst = append(dst, ':')
		var err error
		if dst, err = appendAny(dst, m[k]); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

func appendAny(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return appendString(dst, x), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case int32:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case uint64:
		return strconv.AppendUint(dst, x, 10), nil
	case uint32:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case float64:
		return appendFloat(dst, x, 64)
	case float32:
		return appendFloat(dst, float64(x), 32)
	case []string:
		if x == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '[')
		for i, s := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, s)
		}
		return append(dst, ']'), nil
	case []any:
		if x == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendAny(dst, e); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case map[string]any:
		if x == nil {
			return append(dst, "null"...), nil
		}
		return appendMap(dst, x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// appendFloat formats like encoding/json: shortest representation, 'f'
// between 1e-6 and 1e21, 'e' outside with a two-digit exponent trimmed.
func appendFloat(dst []byte, f float64, bits int) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, bits))
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(dst) - start
		if n >= 4 && dst[len(dst)-4] == 'e' && dst[len(dst)-3] == '-' && dst[len(dst)-2] == '0' {
			dst[len(dst)-2] = dst[len(dst)-1]
			dst = dst[:len(dst)-1]
		}
	}
	return dst, nil
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string the way json.Marshal writes it:
// <, > and & escaped for HTML, U+2028 and U+2029 escaped, invalid UTF-8 as
// U+FFFD. Runs of plain bytes are appended whole.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

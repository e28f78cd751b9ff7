package sdk

import (
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
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
	dst = appendInt(dst, int64(f.Line))
	dst = append(dst, `,"column":`...)
	if f.Column == nil {
		dst = append(dst, "null"...)
	} else {
		dst = appendInt(dst, int64(*f.Column))
	}
	dst = append(dst, `,"message":`...)
	dst = appendString(dst, f.Message)
	dst = append(dst, `,"metadata":`...)
	var err error
	if f.Metadata == nil {
		dst = append(dst, "null"...)
	} else if dst, err = appendMap(dst, f.Metadata, 0); err != nil {
		return dst, err
	}
	dst = append(dst, `,"recommendation":`...)
	dst = appendString(dst, f.Recommendation)
	return append(dst, '}'), nil
}

// AppendScanInput appends the JSON of in to dst and returns the extended
// buffer. The bytes are exactly those json.Marshal produces for in (field
// order, omitempty, null for nil slices and pointers, sorted map keys,
// HTML-safe escaping, number formatting), without reflection: the host
// encodes one input per scan, about ten bytes of JSON per byte of content,
// and json.Marshal's reflection over every fact cost a good part of the
// scan's time budget. Apart from growing dst it allocates nothing for the
// facts, the context and the policy; config and metadata values go through
// the same encoder as AppendScanOutput's metadata (types it does not know
// through json.Marshal). The error is json.Marshal's for a value it cannot
// encode (a NaN or infinite float, a channel, a cycle); what was appended
// to dst before it is then unspecified.
func AppendScanInput(dst []byte, in *ScanInput) ([]byte, error) {
	var err error
	dst = append(dst, `{"facts":`...)
	if in.Facts == nil {
		dst = append(dst, "null"...)
	} else if dst, err = appendFacts(dst, in.Facts); err != nil {
		return dst, err
	}
	dst = append(dst, `,"content":`...)
	dst = appendString(dst, in.Content)
	dst = append(dst, `,"language":`...)
	dst = appendString(dst, in.Language)
	dst = append(dst, `,"context":`...)
	if dst, err = appendContext(dst, &in.Context); err != nil {
		return dst, err
	}
	dst = append(dst, `,"policy":`...)
	if in.Policy == nil {
		dst = append(dst, "null"...)
	} else if dst, err = appendPolicy(dst, in.Policy); err != nil {
		return dst, err
	}
	if len(in.Config) > 0 {
		dst = append(dst, `,"config":`...)
		if dst, err = appendMap(dst, in.Config, 0); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// appendContext writes a RequestContext, whose fields are all omitempty:
// sep is '{' until the first field is written, ',' after.
func appendContext(dst []byte, c *RequestContext) ([]byte, error) {
	var err error
	sep := byte('{')
	if c.ToolName != "" {
		dst = append(append(dst, sep), `"tool_name":`...)
		dst, sep = appendString(dst, c.ToolName), ','
	}
	if c.Cwd != "" {
		dst = append(append(dst, sep), `"cwd":`...)
		dst, sep = appendString(dst, c.Cwd), ','
	}
	if c.TimeoutSeconds != 0 {
		dst = append(append(dst, sep), `"timeout_seconds":`...)
		if dst, err = appendFloat(dst, c.TimeoutSeconds, 64); err != nil {
			return dst, err
		}
		sep = ','
	}
	if c.MaxOutputBytes != 0 {
		dst = append(append(dst, sep), `"max_output_bytes":`...)
		dst, sep = appendInt(dst, c.MaxOutputBytes), ','
	}
	if len(c.CommandArgs) > 0 {
		dst = append(append(dst, sep), `"command_args":`...)
		dst, sep = appendStrings(dst, c.CommandArgs), ','
	}
	if len(c.EnvKeys) > 0 {
		dst = append(append(dst, sep), `"env_keys":`...)
		dst, sep = appendStrings(dst, c.EnvKeys), ','
	}
	if len(c.Metadata) > 0 {
		dst = append(append(dst, sep), `"metadata":`...)
		if dst, err = appendMap(dst, c.Metadata, 0); err != nil {
			return dst, err
		}
		sep = ','
	}
	if sep == '{' {
		dst = append(dst, '{')
	}
	return append(dst, '}'), nil
}

func appendPolicy(dst []byte, p *Policy) ([]byte, error) {
	var err error
	dst = append(dst, `{"name":`...)
	dst = appendString(dst, p.Name)
	dst = append(dst, `,"allowed_domains":`...)
	dst = appendStrings(dst, p.AllowedDomains)
	dst = append(dst, `,"allowed_commands":`...)
	dst = appendStrings(dst, p.AllowedCommands)
	dst = append(dst, `,"denied_paths":`...)
	dst = appendStrings(dst, p.DeniedPaths)
	dst = append(dst, `,"max_timeout_seconds":`...)
	if dst, err = appendFloat(dst, p.MaxTimeoutSeconds, 64); err != nil {
		return dst, err
	}
	dst = append(dst, `,"max_output_bytes":`...)
	dst = appendInt(dst, p.MaxOutputBytes)
	dst = append(dst, `,"deny_dependency_install":`...)
	dst = strconv.AppendBool(dst, p.DenyDependencyInstall)
	dst = append(dst, `,"deny_privilege_escalation":`...)
	dst = strconv.AppendBool(dst, p.DenyPrivilegeEscalation)
	dst = append(dst, `,"review_unknown_network":`...)
	dst = strconv.AppendBool(dst, p.ReviewUnknownNetwork)
	dst = append(dst, `,"review_process_execution":`...)
	dst = strconv.AppendBool(dst, p.ReviewProcessExecution)
	dst = append(dst, `,"review_shell_features":`...)
	dst = strconv.AppendBool(dst, p.ReviewShellFeatures)
	dst = append(dst, `,"long_sleep_seconds":`...)
	if dst, err = appendFloat(dst, p.LongSleepSeconds, 64); err != nil {
		return dst, err
	}
	dst = append(dst, `,"block_on_review":`...)
	dst = strconv.AppendBool(dst, p.BlockOnReview)
	if len(p.Rules) > 0 {
		dst = append(dst, `,"rules":{`...)
		var buf [smallMap]entry[RuleOverride]
		for i, e := range sortedEntries(p.Rules, buf[:0]) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, e.k)
			o := &e.v
			sep := byte('{')
			dst = append(dst, ':')
			if o.Disabled {
				dst, sep = append(append(dst, sep), `"disabled":true`...), ','
			}
			if o.Decision != "" {
				dst = append(append(dst, sep), `"decision":`...)
				dst, sep = appendString(dst, string(o.Decision)), ','
			}
			if o.RiskLevel != "" {
				dst = append(append(dst, sep), `"risk_level":`...)
				dst, sep = appendString(dst, string(o.RiskLevel)), ','
			}
			if sep == '{' {
				dst = append(dst, '{')
			}
			dst = append(dst, '}')
		}
		dst = append(dst, '}')
	}
	if p.AuditLogPath != "" {
		dst = append(dst, `,"audit_log_path":`...)
		dst = appendString(dst, p.AuditLogPath)
	}
	return append(dst, '}'), nil
}

// appendStrings writes a []string that is not omitempty: null when nil.
func appendStrings(dst []byte, ss []string) []byte {
	if ss == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, s)
	}
	return append(dst, ']')
}

// appendInts writes a non-nil []int.
func appendInts(dst []byte, ns []int) []byte {
	dst = append(dst, '[')
	for i, n := range ns {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendInt(dst, int64(n))
	}
	return append(dst, ']')
}

// appendOptString writes `,"key":"s"` unless s is empty (omitempty); key
// holds the `,"key":` prefix.
func appendOptString(dst []byte, key, s string) []byte {
	if s == "" {
		return dst
	}
	return appendString(append(dst, key...), s)
}

// appendPosEnd writes `,"pos":{…}` and closes the object that holds it:
// every fact ends with its position.
func appendPosEnd(dst []byte, p *Pos) []byte {
	dst = append(dst, `,"pos":{"line":`...)
	dst = appendInt(dst, int64(p.Line))
	dst = append(dst, `,"col":`...)
	dst = appendInt(dst, int64(p.Col))
	if p.Depth != 0 {
		dst = append(dst, `,"depth":`...)
		dst = appendInt(dst, int64(p.Depth))
	}
	dst = appendOptString(dst, `,"via":`, p.Via)
	if p.Encoded {
		dst = append(dst, `,"encoded":true`...)
	}
	return append(dst, '}', '}')
}

// appendFacts writes a Facts document. Only Sleep.Seconds can fail (NaN,
// infinity), as it does in json.Marshal.
func appendFacts(dst []byte, f *Facts) ([]byte, error) {
	dst = append(dst, `{"version":`...)
	dst = appendInt(dst, int64(f.Version))
	dst = append(dst, `,"language":`...)
	dst = appendString(dst, f.Language)
	if len(f.Commands) > 0 {
		dst = append(dst, `,"commands":[`...)
		for i := range f.Commands {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendCommand(dst, &f.Commands[i])
		}
		dst = append(dst, ']')
	}
	if len(f.Files) > 0 {
		dst = append(dst, `,"files":[`...)
		for i := range f.Files {
			x := &f.Files[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"path":`...)
			dst = appendString(dst, x.Path)
			dst = append(dst, `,"op":`...)
			dst = appendString(dst, x.Op)
			if x.Recursive {
				dst = append(dst, `,"recursive":true`...)
			}
			if x.Force {
				dst = append(dst, `,"force":true`...)
			}
			dst = appendOptString(dst, `,"mode":`, x.Mode)
			dst = appendOptString(dst, `,"owner":`, x.Owner)
			if x.Glob {
				dst = append(dst, `,"glob":true`...)
			}
			if x.Dynamic {
				dst = append(dst, `,"dynamic":true`...)
			}
			dst = append(dst, `,"by":`...)
			dst = appendString(dst, x.By)
			dst = appendOptString(dst, `,"evidence":`, x.Evidence)
			dst = appendPosEnd(dst, &x.Pos)
		}
		dst = append(dst, ']')
	}
	if len(f.Network) > 0 {
		dst = append(dst, `,"network":[`...)
		for i := range f.Network {
			x := &f.Network[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			// url, host, port and scheme are all omitempty; via is not,
			// so it closes the optional run.
			sep := byte('{')
			if x.URL != "" {
				dst = append(append(dst, sep), `"url":`...)
				dst, sep = appendString(dst, x.URL), ','
			}
			if x.Host != "" {
				dst = append(append(dst, sep), `"host":`...)
				dst, sep = appendString(dst, x.Host), ','
			}
			if x.Port != 0 {
				dst = append(append(dst, sep), `"port":`...)
				dst, sep = appendInt(dst, int64(x.Port)), ','
			}
			if x.Scheme != "" {
				dst = append(append(dst, sep), `"scheme":`...)
				dst, sep = appendString(dst, x.Scheme), ','
			}
			dst = append(append(dst, sep), `"via":`...)
			dst = appendString(dst, x.Via)
			if x.Dynamic {
				dst = append(dst, `,"dynamic":true`...)
			}
			if x.DataInHost {
				dst = append(dst, `,"data_in_host":true`...)
			}
			if x.Upload {
				dst = append(dst, `,"upload":true`...)
			}
			dst = appendOptString(dst, `,"upload_from":`, x.UploadFrom)
			if x.Listen {
				dst = append(dst, `,"listen":true`...)
			}
			if x.ExecShell {
				dst = append(dst, `,"exec_shell":true`...)
			}
			dst = appendOptString(dst, `,"evidence":`, x.Evidence)
			dst = appendPosEnd(dst, &x.Pos)
		}
		dst = append(dst, ']')
	}
	if len(f.DynamicExec) > 0 {
		dst = append(dst, `,"dynamic_exec":[`...)
		for i := range f.DynamicExec {
			x := &f.DynamicExec[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"kind":`...)
			dst = appendString(dst, x.Kind)
			dst = appendOptString(dst, `,"interpreter":`, x.Interpreter)
			if x.Static {
				dst = append(dst, `,"static":true`...)
			} else {
				dst = append(dst, `,"static":false`...)
			}
			if x.Encoded {
				dst = append(dst, `,"encoded":true`...)
			}
			if len(x.Decoders) > 0 {
				dst = append(dst, `,"decoders":`...)
				dst = appendStrings(dst, x.Decoders)
			}
			if x.Downloaded {
				dst = append(dst, `,"downloaded":true`...)
			}
			dst = appendOptString(dst, `,"content":`, x.Content)
			dst = appendOptString(dst, `,"evidence":`, x.Evidence)
			dst = appendPosEnd(dst, &x.Pos)
		}
		dst = append(dst, ']')
	}
	if len(f.Calls) > 0 {
		dst = append(dst, `,"calls":[`...)
		for i := range f.Calls {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendCall(dst, &f.Calls[i])
		}
		dst = append(dst, ']')
	}
	if len(f.Loops) > 0 {
		dst = append(dst, `,"loops":[`...)
		for i := range f.Loops {
			x := &f.Loops[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"kind":`...)
			dst = appendString(dst, x.Kind)
			if x.HasBreak {
				dst = append(dst, `,"has_break":true`...)
			} else {
				dst = append(dst, `,"has_break":false`...)
			}
			dst = appendOptString(dst, `,"evidence":`, x.Evidence)
			dst = appendPosEnd(dst, &x.Pos)
		}
		dst = append(dst, ']')
	}
	if len(f.Sleeps) > 0 {
		dst = append(dst, `,"sleeps":[`...)
		for i := range f.Sleeps {
			x := &f.Sleeps[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"seconds":`...)
			var err error
			if dst, err = appendFloat(dst, x.Seconds, 64); err != nil {
				return dst, err
			}
			if x.Dynamic {
				dst = append(dst, `,"dynamic":true`...)
			}
			dst = appendOptString(dst, `,"evidence":`, x.Evidence)
			dst = appendPosEnd(dst, &x.Pos)
		}
		dst = append(dst, ']')
	}
	if len(f.ShellFeatures) > 0 {
		dst = append(dst, `,"shell_features":[`...)
		for i := range f.ShellFeatures {
			x := &f.ShellFeatures[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"kind":`...)
			dst = appendString(dst, x.Kind)
			dst = appendOptString(dst, `,"evidence":`, x.Evidence)
			dst = appendPosEnd(dst, &x.Pos)
		}
		dst = append(dst, ']')
	}
	if len(f.Functions) > 0 {
		dst = append(dst, `,"functions":[`...)
		for i := range f.Functions {
			x := &f.Functions[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"name":`...)
			dst = appendString(dst, x.Name)
			if x.Recursive {
				dst = append(dst, `,"recursive":true`...)
			}
			if x.SelfPipe {
				dst = append(dst, `,"self_pipe":true`...)
			}
			if x.Background {
				dst = append(dst, `,"background":true`...)
			}
			if x.CalledAtTop {
				dst = append(dst, `,"called_at_top":true`...)
			}
			dst = appendPosEnd(dst, &x.Pos)
		}
		dst = append(dst, ']')
	}
	if len(f.Assignments) > 0 {
		dst = append(dst, `,"assignments":[`...)
		for i := range f.Assignments {
			x := &f.Assignments[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"name":`...)
			dst = appendString(dst, x.Name)
			dst = appendOptString(dst, `,"value":`, x.Value)
			if x.Dynamic {
				dst = append(dst, `,"dynamic":true`...)
			}
			dst = append(dst, `,"op":`...)
			dst = appendString(dst, x.Op)
			dst = appendPosEnd(dst, &x.Pos)
		}
		dst = append(dst, ']')
	}
	if len(f.EnvReads) > 0 {
		dst = append(dst, `,"env_reads":[`...)
		for i := range f.EnvReads {
			x := &f.EnvReads[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"name":`...)
			dst = appendString(dst, x.Name)
			dst = appendPosEnd(dst, &x.Pos)
		}
		dst = append(dst, ']')
	}
	if len(f.Outputs) > 0 {
		dst = append(dst, `,"outputs":[`...)
		for i := range f.Outputs {
			x := &f.Outputs[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"sink":`...)
			dst = appendString(dst, x.Sink)
			dst = append(dst, `,"vars":`...)
			dst = appendStrings(dst, x.Vars)
			dst = appendOptString(dst, `,"evidence":`, x.Evidence)
			dst = appendPosEnd(dst, &x.Pos)
		}
		dst = append(dst, ']')
	}
	if len(f.Secrets) > 0 {
		dst = append(dst, `,"secrets":[`...)
		for i := range f.Secrets {
			x := &f.Secrets[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"kind":`...)
			dst = appendString(dst, x.Kind)
			dst = append(dst, `,"redacted":`...)
			dst = appendString(dst, x.Redacted)
			dst = appendPosEnd(dst, &x.Pos)
		}
		dst = append(dst, ']')
	}
	if len(f.ParseErrors) > 0 {
		dst = append(dst, `,"parse_errors":[`...)
		for i := range f.ParseErrors {
			x := &f.ParseErrors[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"message":`...)
			dst = appendString(dst, x.Message)
			dst = append(dst, `,"language":`...)
			dst = appendString(dst, x.Language)
			dst = appendPosEnd(dst, &x.Pos)
		}
		dst = append(dst, ']')
	}
	if f.Truncated {
		dst = append(dst, `,"truncated":true`...)
	}
	return append(dst, '}'), nil
}

func appendCommand(dst []byte, c *Command) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendInt(dst, int64(c.ID))
	dst = append(dst, `,"name":`...)
	dst = appendString(dst, c.Name)
	dst = appendOptString(dst, `,"path":`, c.Path)
	if len(c.Candidates) > 0 {
		dst = append(dst, `,"candidates":`...)
		dst = appendStrings(dst, c.Candidates)
	}
	if len(c.Args) > 0 {
		dst = append(dst, `,"args":`...)
		dst = appendStrings(dst, c.Args)
	}
	if len(c.DynamicArgs) > 0 {
		dst = append(dst, `,"dynamic_args":`...)
		dst = appendInts(dst, c.DynamicArgs)
	}
	if c.Dynamic {
		dst = append(dst, `,"dynamic":true`...)
	}
	if len(c.Reach) > 0 {
		dst = append(dst, `,"reach":`...)
		dst = appendStrings(dst, c.Reach)
	}
	if c.Pipeline != 0 {
		dst = append(dst, `,"pipeline":`...)
		dst = appendInt(dst, int64(c.Pipeline))
	}
	if c.Stage != 0 {
		dst = append(dst, `,"stage":`...)
		dst = appendInt(dst, int64(c.Stage))
	}
	if len(c.StdinSources) > 0 {
		dst = append(dst, `,"stdin_sources":`...)
		dst = appendInts(dst, c.StdinSources)
	}
	if len(c.ArgSources) > 0 {
		dst = append(dst, `,"arg_sources":`...)
		dst = appendInts(dst, c.ArgSources)
	}
	if len(c.Redirects) > 0 {
		dst = append(dst, `,"redirects":[`...)
		for i := range c.Redirects {
			r := &c.Redirects[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"op":`...)
			dst = appendString(dst, r.Op)
			dst = append(dst, `,"fd":`...)
			dst = appendInt(dst, int64(r.Fd))
			dst = appendOptString(dst, `,"target":`, r.Target)
			if r.Dynamic {
				dst = append(dst, `,"dynamic":true`...)
			}
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	dst = appendOptString(dst, `,"evidence":`, c.Evidence)
	return appendPosEnd(dst, &c.Pos)
}

func appendCall(dst []byte, c *Call) []byte {
	dst = append(dst, `{"name":`...)
	dst = appendString(dst, c.Name)
	if len(c.Args) > 0 {
		dst = append(dst, `,"args":`...)
		dst = appendValues(dst, c.Args)
	}
	if len(c.Kwargs) > 0 {
		dst = append(dst, `,"kwargs":{`...)
		var buf [smallMap]entry[Value]
		for i, e := range sortedEntries(c.Kwargs, buf[:0]) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, e.k)
			dst = append(dst, ':')
			dst = appendValue(dst, &e.v)
		}
		dst = append(dst, '}')
	}
	if c.Indirect {
		dst = append(dst, `,"indirect":true`...)
	}
	dst = appendOptString(dst, `,"evidence":`, c.Evidence)
	return appendPosEnd(dst, &c.Pos)
}

// appendValues writes a non-empty []Value. Python values nest (lists of
// tuples), which the analyzers bound; the recursion follows that nesting.
func appendValues(dst []byte, vs []Value) []byte {
	dst = append(dst, '[')
	for i := range vs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendValue(dst, &vs[i])
	}
	return append(dst, ']')
}

func appendValue(dst []byte, v *Value) []byte {
	dst = append(dst, `{"kind":`...)
	dst = appendString(dst, v.Kind)
	if v.Const {
		dst = append(dst, `,"const":true`...)
	} else {
		dst = append(dst, `,"const":false`...)
	}
	dst = appendOptString(dst, `,"str":`, v.Str)
	if len(v.Items) > 0 {
		dst = append(dst, `,"items":`...)
		dst = appendValues(dst, v.Items)
	}
	if v.Encoded {
		dst = append(dst, `,"encoded":true`...)
	}
	return append(dst, '}')
}

// smallMap is the number of map entries sorted in a buffer on the stack;
// larger maps allocate one slice for their entries.
const smallMap = 16

// entry is one key and value of a map, collected so that writing the map in
// key order needs no lookups: inside Wasm a map lookup costs far more than
// copying the value.
type entry[V any] struct {
	k string
	v V
}

// sortedEntries appends m's entries to buf in the order json.Marshal writes
// them (keys byte-wise ascending) and returns the result. Passing a stack
// array's slice as buf keeps small maps free of allocations. Small maps are
// sorted by insertion inline, without the comparison calls of a generic
// sort.
func sortedEntries[V any](m map[string]V, buf []entry[V]) []entry[V] {
	for k, v := range m {
		buf = append(buf, entry[V]{k, v})
	}
	if len(buf) > smallMap {
		slices.SortFunc(buf, func(a, b entry[V]) int { return strings.Compare(a.k, b.k) })
		return buf
	}
	for i := 1; i < len(buf); i++ {
		for j := i; j > 0 && buf[j].k < buf[j-1].k; j-- {
			buf[j], buf[j-1] = buf[j-1], buf[j]
		}
	}
	return buf
}

// appendInt writes n in decimal like strconv.AppendInt, with the one- and
// two-digit numbers that make up most positions and ids written inline: in
// Wasm each call of strconv.AppendInt costs several guest exits.
func appendInt(dst []byte, n int64) []byte {
	if uint64(n) < 100 {
		if n < 10 {
			return append(dst, byte('0'+n))
		}
		return append(dst, byte('0'+n/10), byte('0'+n%10))
	}
	return strconv.AppendInt(dst, n, 10)
}

// maxEncodeDepth is the nesting of metadata and config values (maps in
// slices in maps) past which the rest of a value is handed to json.Marshal.
// Values decoded from JSON are never that deep; a value that contains itself
// is, and json.Marshal reports it as a cycle instead of recursing forever.
const maxEncodeDepth = 1000

func appendMap(dst []byte, m map[string]any, depth int) ([]byte, error) {
	if depth > maxEncodeDepth {
		return appendMarshal(dst, m)
	}
	var buf [smallMap]entry[any]
	dst = append(dst, '{')
	for i, e := range sortedEntries(m, buf[:0]) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, e.k)
		dst = append(dst, ':')
		var err error
		if dst, err = appendAny(dst, e.v, depth+1); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// appendMarshal appends json.Marshal's encoding of v, for the values the
// hand-written encoders do not know.
func appendMarshal(dst []byte, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

func appendAny(dst []byte, v any, depth int) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return appendString(dst, x), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case int:
		return appendInt(dst, int64(x)), nil
	case int64:
		return appendInt(dst, x), nil
	case int32:
		return appendInt(dst, int64(x)), nil
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
		if depth > maxEncodeDepth {
			return appendMarshal(dst, v)
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendAny(dst, e, depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case map[string]any:
		if x == nil {
			return append(dst, "null"...), nil
		}
		return appendMap(dst, x, depth)
	}
	return appendMarshal(dst, v)
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

// htmlSpecial flags (with its high bit, in a little-endian word) each of
// the eight bytes in x that json.Marshal does not copy as is: what special
// flags ('"', '\\', control bytes, non-ASCII) and '<', '>', '&'. x|2 turns
// '<' (0x3c) into '>' (0x3e) and leaves no other byte equal to '>'. As in
// special, the lowest flag is exact.
func htmlSpecial(x uint64) uint64 {
	ltgt := (x | ones*2) ^ (ones * '>')
	amp := x ^ (ones * '&')
	return special(x) | ((ltgt-ones) & ^ltgt | (amp-ones) & ^amp)&highs
}

// appendString appends s as a JSON string the way json.Marshal writes it:
// <, > and & escaped for HTML, U+2028 and U+2029 escaped, invalid UTF-8 as
// U+FFFD. Runs of plain bytes are appended whole, and found eight bytes at
// a time: a scan input is mostly string bytes (about 200 KB for 20 KB of
// content), and inside Wasm every loop iteration pays an interrupt check.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			m := htmlSpecial(word(s, i))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) / 8
		}
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

// AppendJSONObject appends the JSON of m to dst exactly as json.Marshal
// would, without reflection for the value types rules use (see
// AppendScanOutput); ABI v2 carries metadata maps as this text.
func AppendJSONObject(dst []byte, m map[string]any) ([]byte, error) { return appendMap(dst, m, 0) }

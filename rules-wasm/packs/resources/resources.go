// Package resources is the built-in rule pack for resource abuse and
// sensitive data: endless loops, long sleeps, requested timeout and output
// budgets, secret environment reads and output, embedded credentials, and
// content the analyzers could not parse.
package resources

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/catalog"
	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/match"
	"github.com/toolwarden/toolwarden/sdk"
)

var ruleIDs = []string{"BASH_INFINITE_LOOP", "PY_INFINITE_LOOP", "BASH_LONG_SLEEP",
	"RESOURCE_TIMEOUT_LIMIT_EXCEEDED", "RESOURCE_OUTPUT_LIMIT_EXCEEDED", "SENSITIVE_ENV_READ_REVIEW",
	"SENSITIVE_OUTPUT", "SENSITIVE_PRIVATE_KEY_LITERAL", "SENSITIVE_CREDENTIAL_LITERAL_REVIEW",
	"BASH_PARSE_ERROR_REVIEW", "PY_PARSE_ERROR_REVIEW"}

// Info describes the pack for the host's describe call.
func Info() sdk.PluginInfo {
	return sdk.PluginInfo{Name: "toolwarden-resources", Version: catalog.Version, Rules: catalog.Infos(ruleIDs...)}
}

// Scan judges resource and sensitive-data facts of one scan input.
func Scan(in *sdk.ScanInput) ([]sdk.Finding, error) {
	var env catalog.Env
	if err := env.Init(in); err != nil {
		return nil, fmt.Errorf("resources pack: %w", err)
	}
	e := &env
	checkLoops(e)
	checkEndless(e)
	checkSleeps(e)
	checkLimits(e)
	checkSecrets(e)
	checkEnvDumps(e)
	checkEnvFilterOutputs(e)
	checkEnvDumpOutputs(e)
	checkParse(e)
	return e.Findings(), nil
}

func loopLang(e *catalog.Env, l sdk.Loop) string {
	ev := strings.TrimSpace(l.Evidence)
	if strings.HasPrefix(ev, "while") && strings.HasSuffix(ev, ":") {
		return "python"
	}
	if strings.Contains(ev, "; do") || strings.HasSuffix(ev, "do") || l.Kind == "until_false" || l.Kind == "for_ever" {
		return "bash"
	}
	return e.FactLang(l.Pos)
}

// The commands each check walks (see catalog.Kind).
var (
	kindRead     = catalog.NamesKind("read")
	kindTimeout  = catalog.NamesKind("timeout", "gtimeout")
	kindEndless  = catalog.NamesKind("tail", "journalctl", "kubectl", "docker", "podman", "ping", "ping6")
	kindSleep    = catalog.NamesKind("sleep")
	kindPrinter  = catalog.NamesKind("printenv", "echo", "printf")
	kindPrintenv = catalog.NamesKind("printenv")
	kindEcho     = catalog.NamesKind("echo", "printf")
)

func checkLoops(e *catalog.Env) {
	if len(e.Facts.Loops) == 0 {
		return
	}
	// Whether a loop may wait for input, by language: only "python" and
	// "bash" ever are.
	pyInteractive, shInteractive := false, false
	for i := range e.Facts.Calls {
		c := &e.Facts.Calls[i]
		if c.Name == "input" || c.Name == "raw_input" || strings.HasPrefix(c.Name, "sys.stdin.") {
			pyInteractive = true
		}
	}
	for _, i := range e.Commands(kindRead) {
		if catalog.Is(&e.Facts.Commands[i], "read") && catalog.HasReach(&e.Facts.Commands[i], "loop") {
			shInteractive = true
		}
	}
	for _, l := range e.Facts.Loops {
		lang := loopLang(e, l)
		rule := "BASH_INFINITE_LOOP"
		if lang == "python" {
			rule = "PY_INFINITE_LOOP"
		}
		var msg string
		switch {
		case !l.HasBreak:
			msg = fmt.Sprintf("Loop %s has a constant-true condition and no reachable break.", catalog.Trim(l.Evidence))
		case lang == "python" && pyInteractive, lang == "bash" && shInteractive:
			msg = fmt.Sprintf("Loop %s only exits on interactive input, which an unattended run may never get.", catalog.Trim(l.Evidence))
		default:
			continue
		}
		e.Add(catalog.Finding{Rule: rule, Evidence: l.Evidence, Pos: l.Pos, Key: l.Kind, Message: msg,
			Metadata: map[string]any{"kind": l.Kind, "has_break": l.HasBreak}})
	}
}

// checkEndless flags commands that never exit on their own (`tail -f`,
// `ping` without a count, `journalctl -f`) unless a timeout wraps them.
func checkEndless(e *catalog.Env) {
	timeouts := e.Commands(kindTimeout)
	bounded := func(pos sdk.Pos) bool {
		for _, i := range timeouts {
			t := &e.Facts.Commands[i]
			if t.Pos.Line == pos.Line && t.Pos.Depth == pos.Depth && catalog.Is(t, "timeout", "gtimeout") {
				return true
			}
		}
		return false
	}
	for _, i := range e.Commands(kindEndless) {
		c := &e.Facts.Commands[i]
		if bounded(c.Pos) {
			continue
		}
		why := ""
		switch {
		case catalog.Is(c, "tail") && (catalog.HasShortFlag(c.Args, 'f', "--follow") || catalog.HasShortFlag(c.Args, 'F')):
			why = "follows the file forever"
		case catalog.Is(c, "journalctl", "kubectl", "docker", "podman") && (catalog.HasShortFlag(c.Args, 'f', "--follow")) &&
			(c.Name == "journalctl" || hasArg(c.Args, "logs")):
			why = "follows the log forever"
		case catalog.Is(c, "ping", "ping6") && !catalog.HasShortFlag(c.Args, 'c', "--count") && !catalog.HasShortFlag(c.Args, 'w', "--deadline"):
			why = "pings until interrupted"
		}
		if why == "" {
			continue
		}
		rule := "BASH_INFINITE_LOOP"
		if e.FactLang(c.Pos) == "python" {
			rule = "PY_INFINITE_LOOP"
		}
		e.Add(catalog.Finding{Rule: rule, Evidence: c.Evidence, Pos: c.Pos, Key: c.Name,
			Message:  fmt.Sprintf("%s %s and never exits on its own.", c.Name, why),
			Metadata: map[string]any{"command": c.Name}})
	}
}

func hasArg(args []string, want string) bool {
	for _, a := range args {
		if a == want {
			return true
		}
	}
	return false
}

func longSleep(e *catalog.Env) float64 {
	if e.Policy.LongSleepSeconds > 0 {
		return e.Policy.LongSleepSeconds
	}
	return catalog.DefaultLongSleepSeconds
}

// ParseDuration parses sleep(1) operands: "10", "1.5m", "2h", "1d",
// "infinity"; several operands add up. It returns -1 for infinity and ok
// false when an operand is not a duration.
func ParseDuration(args []string) (float64, bool) {
	total := 0.0
	n := 0
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		l := strings.ToLower(a)
		if l == "infinity" || l == "inf" {
			return -1, true
		}
		mult := 1.0
		switch {
		case strings.HasSuffix(l, "s"):
			l = l[:len(l)-1]
		case strings.HasSuffix(l, "m"):
			mult, l = 60, l[:len(l)-1]
		case strings.HasSuffix(l, "h"):
			mult, l = 3600, l[:len(l)-1]
		case strings.HasSuffix(l, "d"):
			mult, l = 86400, l[:len(l)-1]
		}
		v, err := strconv.ParseFloat(l, 64)
		if err != nil || math.IsNaN(v) {
			return 0, false
		}
		if math.IsInf(v, 1) {
			return -1, true
		}
		total += v * mult
		n++
	}
	return total, n > 0
}

func checkSleeps(e *catalog.Env) {
	limit := longSleep(e)
	add := func(secs float64, ev string, pos sdk.Pos) {
		if secs >= 0 && secs <= limit {
			return
		}
		what := fmt.Sprintf("%gs", secs)
		if secs < 0 {
			what = "forever"
		}
		e.Add(catalog.Finding{Rule: "BASH_LONG_SLEEP", Evidence: ev, Pos: pos, Key: "sleep",
			Message:  fmt.Sprintf("Sleep of %s exceeds long_sleep_seconds (%gs).", what, limit),
			Metadata: map[string]any{"seconds": secs, "limit": limit}})
	}
	for _, s := range e.Facts.Sleeps {
		if !s.Dynamic {
			add(s.Seconds, s.Evidence, s.Pos)
		}
	}
	for _, i := range e.Commands(kindSleep) {
		c := &e.Facts.Commands[i]
		if catalog.Is(c, "sleep") && len(c.DynamicArgs) == 0 {
			if secs, ok := ParseDuration(c.Args); ok {
				add(secs, c.Evidence, c.Pos)
			}
		}
	}
	for i := range e.Facts.Calls {
		c := &e.Facts.Calls[i]
		if c.Name == "time.sleep" || c.Name == "asyncio.sleep" {
			if len(c.Args) > 0 && c.Args[0].Const {
				if v, err := strconv.ParseFloat(c.Args[0].Str, 64); err == nil {
					add(v, c.Evidence, c.Pos)
				}
			}
		}
	}
}

func checkLimits(e *catalog.Env) {
	ctx := e.In.Context
	if max := e.Policy.MaxTimeoutSeconds; max > 0 && ctx.TimeoutSeconds > max {
		e.Add(catalog.Finding{Rule: "RESOURCE_TIMEOUT_LIMIT_EXCEEDED",
			Evidence: fmt.Sprintf("timeout_seconds=%g", ctx.TimeoutSeconds),
			Message:  fmt.Sprintf("Requested timeout %gs exceeds max_timeout_seconds %gs.", ctx.TimeoutSeconds, max),
			Metadata: map[string]any{"requested": ctx.TimeoutSeconds, "limit": max}})
	}
	if max := e.Policy.MaxOutputBytes; max > 0 && ctx.MaxOutputBytes > max {
		e.Add(catalog.Finding{Rule: "RESOURCE_OUTPUT_LIMIT_EXCEEDED",
			Evidence: fmt.Sprintf("max_output_bytes=%d", ctx.MaxOutputBytes),
			Message:  fmt.Sprintf("Requested output budget %d bytes exceeds max_output_bytes %d.", ctx.MaxOutputBytes, max),
			Metadata: map[string]any{"requested": ctx.MaxOutputBytes, "limit": max}})
	}
}

var (
	pemKey = regexp.MustCompile(`-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----\s*(\\n|\s)*(Proc-Type:[^\n]*\n|DEK-Info:[^\n]*\n|\s)*[A-Za-z0-9+/=]{40,}`)
	// pyEnv finds os.environ["X"], environ.get("X"), getenv("X").
	pyEnv = regexp.MustCompile(`(?:environ\s*\[\s*|environ\.get\(\s*|getenv\(\s*)['"]([A-Za-z_][A-Za-z0-9_]*)['"]`)
)

// credentialKinds are Secret kinds precise enough to review on sight.
var credentialKinds = map[string]bool{"aws_access_key": true, "github_token": true, "slack_token": true}

var pyPrinters = map[string]bool{"print": true, "pprint.pprint": true, "sys.stdout.write": true,
	"sys.stderr.write": true, "logging.info": true, "logging.debug": true, "logging.warning": true,
	"logging.error": true, "logging.critical": true, "logging.exception": true}

func checkSecrets(e *catalog.Env) {
	for _, r := range e.Facts.EnvReads {
		if match.IsSecretName(r.Name) {
			e.Add(catalog.Finding{Rule: "SENSITIVE_ENV_READ_REVIEW", Pos: r.Pos, Key: r.Name,
				Evidence: "$" + r.Name,
				Message:  fmt.Sprintf("Content reads secret environment variable %s.", r.Name),
				Metadata: map[string]any{"variable": r.Name}})
		}
	}
	for _, f := range e.Facts.Files {
		if (f.Op == "read" || f.Op == "copy_from") && procEnviron(f.Path) {
			e.Add(catalog.Finding{Rule: "SENSITIVE_ENV_READ_REVIEW", Evidence: f.Evidence, Pos: f.Pos, Key: f.Path,
				Message:  fmt.Sprintf("Content reads the whole environment of a process (%s), secrets included.", f.Path),
				Metadata: map[string]any{"path": f.Path}})
		}
	}
	for _, o := range e.Facts.Outputs {
		for _, v := range o.Vars {
			if match.IsSecretName(v) {
				e.Add(catalog.Finding{Rule: "SENSITIVE_OUTPUT", Evidence: o.Evidence, Pos: o.Pos, Key: v,
					Message:  fmt.Sprintf("Content writes the value of secret variable %s to %s.", v, o.Sink),
					Metadata: map[string]any{"variable": v, "sink": o.Sink}})
			}
		}
	}
	var outLines outputLines
	for _, i := range e.Commands(kindPrinter) {
		c := &e.Facts.Commands[i]
		switch {
		case e.Of(i, kindPrintenv):
			for _, a := range c.Args {
				if match.IsSecretName(a) {
					e.Add(catalog.Finding{Rule: "SENSITIVE_OUTPUT", Evidence: c.Evidence, Pos: c.Pos, Key: a,
						Message:  fmt.Sprintf("printenv prints secret variable %s.", a),
						Metadata: map[string]any{"variable": a, "sink": "stdout"}})
				}
			}
		case e.Of(i, kindEcho) && len(c.DynamicArgs) > 0 && !outLines.has(e.Facts.Outputs, c.Pos.Line):
			for _, k := range c.DynamicArgs {
				if k >= len(c.Args) {
					continue
				}
				for rest := c.Args[k]; ; {
					name, after, ok := nextShellVar(rest)
					if !ok {
						break
					}
					rest = after
					if match.IsSecretName(name) {
						e.Add(catalog.Finding{Rule: "SENSITIVE_OUTPUT", Evidence: c.Evidence, Pos: c.Pos, Key: name,
							Message:  fmt.Sprintf("%s prints secret variable %s.", c.Name, name),
							Metadata: map[string]any{"variable": name, "sink": "stdout"}})
					}
				}
			}
		}
	}
	for i := range e.Facts.Calls {
		c := &e.Facts.Calls[i]
		if !pyPrinters[c.Name] || outLines.has(e.Facts.Outputs, c.Pos.Line) {
			continue
		}
		for _, a := range c.Args {
			if a.Const || !(strings.Contains(a.Str, "environ") || strings.Contains(a.Str, "getenv")) {
				continue // every match of pyEnv names one of them
			}
			for _, ix := range pyEnv.FindAllStringSubmatchIndex(a.Str, -1) {
				m := []string{a.Str[ix[0]:ix[1]], a.Str[ix[2]:ix[3]]}
				if opaqueCall(a.Str[:ix[0]]) {
					continue
				}
				if match.IsSecretName(m[1]) {
					e.Add(catalog.Finding{Rule: "SENSITIVE_OUTPUT", Evidence: c.Evidence, Pos: c.Pos, Key: m[1],
						Message:  fmt.Sprintf("%s prints secret variable %s.", c.Name, m[1]),
						Metadata: map[string]any{"variable": m[1], "sink": "stdout"}})
				}
			}
		}
	}
	keyFound := false
	for _, s := range e.Facts.Secrets {
		switch {
		case s.Kind == "private_key":
			keyFound = true
			e.Add(catalog.Finding{Rule: "SENSITIVE_PRIVATE_KEY_LITERAL", Evidence: s.Redacted, Pos: s.Pos, Key: "pem",
				Message: "Content embeds a PEM private key.", Metadata: map[string]any{"kind": s.Kind}})
		case credentialKinds[s.Kind]:
			e.Add(catalog.Finding{Rule: "SENSITIVE_CREDENTIAL_LITERAL_REVIEW", Evidence: s.Redacted, Pos: s.Pos, Key: s.Kind,
				Message:  fmt.Sprintf("Content embeds a credential literal (%s).", s.Kind),
				Metadata: map[string]any{"kind": s.Kind}})
		}
	}
	if !keyFound && strings.Contains(e.In.Content, "PRIVATE KEY") {
		if loc := pemKey.FindStringIndex(e.In.Content); loc != nil {
			line := 1 + strings.Count(e.In.Content[:loc[0]], "\n")
			e.Add(catalog.Finding{Rule: "SENSITIVE_PRIVATE_KEY_LITERAL", Evidence: "-----BEGIN … PRIVATE KEY----- [redacted]",
				Pos: sdk.Pos{Line: line}, Key: "pem", Message: "Content embeds a PEM private key.",
				Metadata: map[string]any{"kind": "private_key"}})
		}
	}
}

// outputLines answers whether an Output fact is on a line: by a scan of the
// few outputs most scripts have, by a set built on first use beyond that.
type outputLines struct {
	lines map[int]bool
}

func (s *outputLines) has(outs []sdk.Output, line int) bool {
	if len(outs) <= 16 {
		for i := range outs {
			if outs[i].Pos.Line == line {
				return true
			}
		}
		return false
	}
	if s.lines == nil {
		s.lines = make(map[int]bool, len(outs))
		for i := range outs {
			s.lines[outs[i].Pos.Line] = true
		}
	}
	return s.lines[line]
}

// nextShellVar finds the next $NAME or ${NAME} in unresolved argument
// text s, as the regexp `\$\{?([A-Za-z_][A-Za-z0-9_]*)` would, one match at
// a time and without allocating: it returns the name, the text after the
// match and whether there was one.
func nextShellVar(s string) (name, rest string, ok bool) {
	for {
		i := strings.IndexByte(s, '$')
		if i < 0 {
			return "", "", false
		}
		j := i + 1
		if j < len(s) && s[j] == '{' && j+1 < len(s) && isNameStart(s[j+1]) {
			j++
		}
		if j < len(s) && isNameStart(s[j]) {
			k := j + 1
			for k < len(s) && (isNameStart(s[k]) || s[k] >= '0' && s[k] <= '9') {
				k++
			}
			return s[j:k], s[k:], true
		}
		s = s[i+1:]
	}
}

func isNameStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// procEnviron reports whether p is a process environment file
// (/proc/self/environ, /proc/1/environ).
func procEnviron(p string) bool {
	return strings.HasPrefix(p, "/proc/") && strings.HasSuffix(p, "/environ")
}

func checkParse(e *catalog.Env) {
	for _, p := range e.Facts.ParseErrors {
		lang := strings.ToLower(p.Language)
		if lang == "" {
			lang = e.Lang
		}
		rule := "BASH_PARSE_ERROR_REVIEW"
		if lang == "python" {
			rule = "PY_PARSE_ERROR_REVIEW"
		}
		e.Add(catalog.Finding{Rule: rule, Pos: p.Pos, Key: "parse", Evidence: p.Message,
			Message:  fmt.Sprintf("%s content could not be parsed: %s.", lang, catalog.Trim(p.Message)),
			Metadata: map[string]any{"error": p.Message}})
	}
	if e.Facts.Truncated {
		rule := "BASH_PARSE_ERROR_REVIEW"
		if e.Lang == "python" {
			rule = "PY_PARSE_ERROR_REVIEW"
		}
		e.Add(catalog.Finding{Rule: rule, Key: "truncated", Evidence: "nested content beyond the analysis limit",
			Message:  "Content nests deeper or is larger than the analyzers' limit; the rest was not analyzed.",
			Metadata: map[string]any{"truncated": true}})
	}
}

// opaqueCall reports whether text preceding an environment reference ends
// in a call that reveals nothing of the value (`len(`, `bool(`, …), so
// printing the result does not print the secret.
func opaqueCall(before string) bool {
	// Drop the module path the reference starts with (`os.`).
	t := strings.TrimRight(before, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")
	t = strings.TrimRight(t, " \t")
	if !strings.HasSuffix(t, "(") {
		return false
	}
	t = t[:len(t)-1]
	t = strings.TrimRight(t, " \t")
	for _, fn := range []string{"len", "bool", "isinstance", "hash", "type", "id", "callable", "hasattr"} {
		if strings.HasSuffix(t, fn) && (len(t) == len(fn) || !isIdentByte(t[len(t)-len(fn)-1])) {
			return true
		}
	}
	return false
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

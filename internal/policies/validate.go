package policies

import (
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"strings"

	"github.com/toolwarden/toolwarden/sdk"
)

// FieldError is one problem with one field of a policy. Field is the dotted
// path of the field ("max_timeout_seconds", "rules.BASH_LONG_SLEEP.decision",
// "allowed_domains[2]"), so an admin can find it in the file.
type FieldError struct {
	Field   string
	Message string
}

// Error formats the problem as `field "x": message`.
func (e *FieldError) Error() string {
	return fmt.Sprintf("field %q: %s", e.Field, e.Message)
}

// Error is every problem found in one policy document, reported at once so
// that an admin fixes a file in one round trip. Source names the document
// (its path, or "default.yaml" for an embedded one).
type Error struct {
	Source   string
	Problems []*FieldError
}

// Error formats all problems on one line, prefixed with the source:
// `policy strict.yaml: field "max_timeout_seconds": must be >= 0, got -5`.
func (e *Error) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Error()
	}
	return fmt.Sprintf("policy %s: %s", e.Source, strings.Join(parts, "; "))
}

// Unwrap exposes the individual problems to errors.As.
func (e *Error) Unwrap() []error {
	out := make([]error, len(e.Problems))
	for i, p := range e.Problems {
		out[i] = p
	}
	return out
}

// problems collects FieldErrors while a document is checked.
type problems []*FieldError

func (p *problems) add(field, msg string) {
	*p = append(*p, &FieldError{Field: field, Message: msg})
}

func (p problems) err(source string) error {
	if len(p) == 0 {
		return nil
	}
	return &Error{Source: source, Problems: p}
}

var (
	ruleIDPattern  = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
	envNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	labelPattern   = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)
)

// Validate checks the values of a decoded policy: non-negative limits,
// well-formed domains, command names and paths, and valid decisions and risk
// levels in rule overrides. Types and unknown keys are checked by the
// loaders on the raw document; Validate is what remains for a policy built
// in code. The returned error is an *Error listing every problem.
func Validate(p *sdk.Policy) error {
	if p == nil {
		return errors.New("policy: nil policy")
	}
	var errs problems
	validateInto(p, &errs)
	return errs.err(sourceName(p))
}

func sourceName(p *sdk.Policy) string {
	if p.Name == "" {
		return "(unnamed)"
	}
	return p.Name
}

func validateInto(p *sdk.Policy, errs *problems) {
	if p.MaxTimeoutSeconds < 0 {
		errs.add("max_timeout_seconds", fmt.Sprintf("must be >= 0, got %v", p.MaxTimeoutSeconds))
	}
	if p.MaxOutputBytes < 0 {
		errs.add("max_output_bytes", fmt.Sprintf("must be >= 0, got %v", p.MaxOutputBytes))
	}
	if p.LongSleepSeconds < 0 {
		errs.add("long_sleep_seconds", fmt.Sprintf("must be >= 0, got %v", p.LongSleepSeconds))
	}
	for i, d := range p.AllowedDomains {
		if msg := checkDomain(d); msg != "" {
			errs.add(fmt.Sprintf("allowed_domains[%d]", i), msg)
		}
	}
	for i, c := range p.AllowedCommands {
		switch {
		case c == "":
			errs.add(fmt.Sprintf("allowed_commands[%d]", i), "must not be empty")
		case strings.ContainsAny(c, "/ \t\n\r\x00"):
			errs.add(fmt.Sprintf("allowed_commands[%d]", i),
				fmt.Sprintf("must be a command name without path or spaces, got %q", c))
		}
	}
	for i, n := range p.AllowedEnvNames {
		if !envNamePattern.MatchString(n) {
			errs.add(fmt.Sprintf("allowed_env_names[%d]", i),
				fmt.Sprintf("must be an environment variable name (letters, digits, _; not starting with a digit), got %q", n))
		}
	}
	for i, d := range p.DeniedPaths {
		if strings.TrimSpace(d) == "" {
			errs.add(fmt.Sprintf("denied_paths[%d]", i), "must not be empty")
		} else if strings.ContainsRune(d, 0) {
			errs.add(fmt.Sprintf("denied_paths[%d]", i), "must not contain a NUL byte")
		}
	}
	for _, id := range sortedKeys(p.Rules) {
		o := p.Rules[id]
		field := "rules." + id
		if !ruleIDPattern.MatchString(id) {
			errs.add(field, ruleIDMessage)
		}
		if o.Decision != "" && !o.Decision.Valid() {
			errs.add(field+".decision", decisionMessage(string(o.Decision)))
		}
		if o.RiskLevel != "" && o.RiskLevel.Rank() < 0 {
			errs.add(field+".risk_level", riskMessage(string(o.RiskLevel)))
		}
	}
}

const ruleIDMessage = "rule ID must be upper case letters, digits and underscores (like BASH_LONG_SLEEP)"

func decisionMessage(d string) string {
	return fmt.Sprintf("must be allow, needs_human_review or deny, got %q", d)
}

func riskMessage(r string) string {
	return fmt.Sprintf("must be none, low, medium, high or critical, got %q", r)
}

// normalizeDomain is the canonical form of an allowed_domains entry:
// lower case, no surrounding space, no trailing dot.
func normalizeDomain(d string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(d)), ".")
}

// checkDomain returns why d is not a usable allowed_domains entry, or "".
// Entries are bare lower-case host names: matching is by exact host or
// subdomain, so schemes, ports, paths and wildcards would never match, and
// IP literals are never allowed hosts.
func checkDomain(d string) string {
	switch {
	case d == "":
		return "must not be empty"
	case strings.Contains(d, "://"):
		return fmt.Sprintf("must be a host name without scheme, got %q", d)
	case strings.ContainsAny(d, "/?#@"):
		return fmt.Sprintf("must be a host name without path or user, got %q", d)
	case strings.Contains(d, "*"):
		return fmt.Sprintf("must not contain wildcards (subdomains already match), got %q", d)
	case strings.Contains(d, ":") && !isIP(d):
		return fmt.Sprintf("must be a host name without port, got %q", d)
	case sdk.IsIPLiteral(strings.Trim(d, "[]")): // every notation the matchers refuse
		return fmt.Sprintf("must be a host name: IP literals never match, got %q", d)
	case d != strings.ToLower(d):
		return fmt.Sprintf("must be lower case, got %q", d)
	case len(d) > 253:
		return fmt.Sprintf("must be at most 253 characters, got %d", len(d))
	}
	for _, label := range strings.Split(d, ".") {
		if !labelPattern.MatchString(label) {
			return fmt.Sprintf("malformed domain %q", d)
		}
	}
	return ""
}

func isIP(s string) bool {
	_, err := netip.ParseAddr(s)
	return err == nil
}

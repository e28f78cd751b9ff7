package policies

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/sdk"
)

func TestBuiltinPoliciesLoadAndValidate(t *testing.T) {
	for _, name := range Names {
		t.Run(name, func(t *testing.T) {
			p, err := Builtin(name)
			if err != nil {
				t.Fatalf("Builtin(%q): %v", name, err)
			}
			if p.Name != name {
				t.Errorf("Name = %q, want %q", p.Name, name)
			}
			if err := Validate(p); err != nil {
				t.Errorf("Validate: %v", err)
			}
			if len(p.AllowedDomains) == 0 || !slices.Contains(p.AllowedDomains, "github.com") {
				t.Errorf("AllowedDomains = %v, want github.com among them", p.AllowedDomains)
			}
			for _, path := range []string{"~/.ssh", ".env", "*.pem", "/etc/shadow"} {
				if !slices.Contains(p.DeniedPaths, path) {
					t.Errorf("DeniedPaths lacks %q", path)
				}
			}
			if !p.DenyDependencyInstall || !p.DenyPrivilegeEscalation || !p.ReviewUnknownNetwork ||
				!p.ReviewProcessExecution || !p.ReviewShellFeatures {
				t.Errorf("a review/deny switch is off: %+v", p)
			}
		})
	}
}

func TestDefaultPolicyValues(t *testing.T) {
	p := Default()
	if p.Name != "default" || p.BlockOnReview || len(p.AllowedCommands) != 0 ||
		p.MaxTimeoutSeconds != 300 || p.MaxOutputBytes != 1048576 || p.LongSleepSeconds != 300 {
		t.Errorf("default policy = %+v", p)
	}
	for _, d := range []string{"pypi.org", "files.pythonhosted.org", "proxy.golang.org"} {
		if !slices.Contains(p.AllowedDomains, d) {
			t.Errorf("default AllowedDomains lacks %q", d)
		}
	}
	if p.AllowedCommands == nil {
		t.Error("AllowedCommands is nil; want an empty list so it marshals as []")
	}
}

func TestStrictPolicyIsTighter(t *testing.T) {
	d, s := Default(), Strict()
	if !s.BlockOnReview {
		t.Error("strict: BlockOnReview = false")
	}
	if len(s.AllowedCommands) == 0 || !slices.Contains(s.AllowedCommands, "ls") || slices.Contains(s.AllowedCommands, "curl") {
		t.Errorf("strict AllowedCommands = %v", s.AllowedCommands)
	}
	if s.MaxTimeoutSeconds >= d.MaxTimeoutSeconds || s.MaxOutputBytes >= d.MaxOutputBytes ||
		s.LongSleepSeconds >= d.LongSleepSeconds {
		t.Errorf("strict limits not below default: %+v", s)
	}
	for _, dom := range s.AllowedDomains {
		if !slices.Contains(d.AllowedDomains, dom) {
			t.Errorf("strict allows %q which default does not", dom)
		}
	}
	if got := s.Rules["RULE_PLUGIN_ERROR"].Decision; got != sdk.Deny {
		t.Errorf("strict RULE_PLUGIN_ERROR decision = %q, want deny", got)
	}
}

func TestBuiltinReturnsIndependentCopies(t *testing.T) {
	p := Default()
	p.AllowedDomains[0] = "evil.example"
	p.BlockOnReview = true
	q := Default()
	if q.AllowedDomains[0] == "evil.example" || q.BlockOnReview {
		t.Error("modifying one Default() result changed the next")
	}
}

func TestBuiltinUnknownName(t *testing.T) {
	p, err := Builtin("lenient")
	if p != nil || err == nil || !strings.Contains(err.Error(), `builtin policy "lenient": unknown`) {
		t.Errorf("Builtin(lenient) = %v, %v", p, err)
	}
}

func TestLoadCorpusPolicy(t *testing.T) {
	p, err := Load("testdata/eval_policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "eval_policy" {
		t.Errorf("Name = %q, want the file name", p.Name)
	}
	if len(p.AllowedCommands) != 38 || p.AllowedCommands[0] != "pwd" || p.AllowedCommands[37] != "cd" {
		t.Errorf("AllowedCommands = %v", p.AllowedCommands)
	}
	if !slices.Equal(p.AllowedDomains, []string{"github.com", "pypi.org", "files.pythonhosted.org"}) {
		t.Errorf("AllowedDomains = %v (a file's list must replace the default's, not extend it)", p.AllowedDomains)
	}
	if len(p.DeniedPaths) != 18 || p.DeniedPaths[17] != "credentials.*" {
		t.Errorf("DeniedPaths = %v", p.DeniedPaths)
	}
	if p.MaxTimeoutSeconds != 300 || p.MaxOutputBytes != 1048576 || p.BlockOnReview {
		t.Errorf("limits = %+v", p)
	}
}

func TestOmittedFieldsTakeDefaultValues(t *testing.T) {
	p, err := LoadBytes("short.yaml", []byte("review_shell_features: false\nmax_timeout_seconds: 30\n"))
	if err != nil {
		t.Fatal(err)
	}
	d := Default()
	if p.ReviewShellFeatures || p.MaxTimeoutSeconds != 30 {
		t.Errorf("set fields not applied: %+v", p)
	}
	if !p.DenyDependencyInstall || p.MaxOutputBytes != d.MaxOutputBytes || !slices.Equal(p.DeniedPaths, d.DeniedPaths) {
		t.Errorf("omitted fields not taken from default: %+v", p)
	}
	if p.Name != "short" {
		t.Errorf("Name = %q, want short (not the underlay's name)", p.Name)
	}
}

func TestRuleOverridesLoad(t *testing.T) {
	doc := `
rules:
  BASH_SHELL_FEATURE_REVIEW:
    disabled: true
  NETWORK_DYNAMIC_URL_REVIEW:
    decision: deny
    risk_level: high
`
	p, err := LoadBytes("overrides.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]sdk.RuleOverride{
		"BASH_SHELL_FEATURE_REVIEW":  {Disabled: true},
		"NETWORK_DYNAMIC_URL_REVIEW": {Decision: sdk.Deny, RiskLevel: sdk.RiskHigh},
	}
	if !reflect.DeepEqual(p.Rules, want) {
		t.Errorf("Rules = %+v, want %+v", p.Rules, want)
	}
}

func TestLoadErrors(t *testing.T) {
	cases := []struct {
		name, doc, want string
	}{
		{"negative timeout", "max_timeout_seconds: -5\n",
			`policy strict.yaml: field "max_timeout_seconds": must be >= 0, got -5`},
		{"negative output", "max_output_bytes: -1\n",
			`policy strict.yaml: field "max_output_bytes": must be >= 0, got -1`},
		{"negative sleep", "long_sleep_seconds: -0.5\n",
			`policy strict.yaml: field "long_sleep_seconds": must be >= 0, got -0.5`},
		{"unknown top-level key", "block_on_reveiw: true\n",
			`policy strict.yaml: field "block_on_reveiw": unknown field (did you mean "block_on_review"?)`},
		{"unknown key without suggestion", "colour: blue\n",
			`policy strict.yaml: field "colour": unknown field`},
		{"unknown key in override", "rules:\n  BASH_LONG_SLEEP:\n    disable: true\n",
			`policy strict.yaml: field "rules.BASH_LONG_SLEEP.disable": unknown field (did you mean "disabled"?)`},
		{"yes is not a boolean", "block_on_review: yes\n",
			`policy strict.yaml: field "block_on_review": must be a boolean (true or false), got string "yes"`},
		{"quoted number", "max_timeout_seconds: \"10\"\n",
			`policy strict.yaml: field "max_timeout_seconds": must be a number, got string "10"`},
		{"fractional bytes", "max_output_bytes: 1.5\n",
			`policy strict.yaml: field "max_output_bytes": must be an integer, got number 1.5`},
		{"huge integer", "max_output_bytes: 1e30\n",
			`policy strict.yaml: field "max_output_bytes": must be below 2^63, got 1e+30`},
		{"string for list", "allowed_domains: github.com\n",
			`policy strict.yaml: field "allowed_domains": must be a list of strings, got string "github.com"`},
		{"number in list", "allowed_commands: [ls, 5]\n",
			`policy strict.yaml: field "allowed_commands[1]": must be a string, got number 5`},
		{"bool in override", "rules:\n  BASH_LONG_SLEEP:\n    disabled: \"true\"\n",
			`policy strict.yaml: field "rules.BASH_LONG_SLEEP.disabled": must be a boolean (true or false), got string "true"`},
		{"override not a map", "rules:\n  BASH_LONG_SLEEP: deny\n",
			`policy strict.yaml: field "rules.BASH_LONG_SLEEP": must be a map with disabled, decision or risk_level, got string "deny"`},
		{"invalid decision", "rules:\n  BASH_LONG_SLEEP:\n    decision: block\n",
			`policy strict.yaml: field "rules.BASH_LONG_SLEEP.decision": must be allow, needs_human_review or deny, got "block"`},
		{"invalid risk level", "rules:\n  BASH_LONG_SLEEP:\n    risk_level: severe\n",
			`policy strict.yaml: field "rules.BASH_LONG_SLEEP.risk_level": must be none, low, medium, high or critical, got "severe"`},
		{"invalid rule id", "rules:\n  bash-long-sleep:\n    disabled: true\n",
			`policy strict.yaml: field "rules.bash-long-sleep": rule ID must be upper case letters, digits and underscores (like BASH_LONG_SLEEP)`},
		{"domain with scheme", "allowed_domains: [\"https://github.com\"]\n",
			`policy strict.yaml: field "allowed_domains[0]": must be a host name without scheme, got "https://github.com"`},
		{"domain with port", "allowed_domains: [\"github.com:443\"]\n",
			`policy strict.yaml: field "allowed_domains[0]": must be a host name without port, got "github.com:443"`},
		{"ip literal", "allowed_domains: [\"10.0.0.1\"]\n",
			`policy strict.yaml: field "allowed_domains[0]": must be a host name: IP literals never match, got "10.0.0.1"`},
		{"ip literal as an integer", "allowed_domains: [\"2130706433\"]\n",
			`policy strict.yaml: field "allowed_domains[0]": must be a host name: IP literals never match, got "2130706433"`},
		{"ip literal in hex parts", "allowed_domains: [\"0x7f.1\"]\n",
			`policy strict.yaml: field "allowed_domains[0]": must be a host name: IP literals never match, got "0x7f.1"`},
		{"wildcard domain", "allowed_domains: [\"*.github.com\"]\n",
			`policy strict.yaml: field "allowed_domains[0]": must not contain wildcards (subdomains already match), got "*.github.com"`},
		{"malformed domain", "allowed_domains: [\"git_hub..com\"]\n",
			`policy strict.yaml: field "allowed_domains[0]": malformed domain "git_hub..com"`},
		{"command with path", "allowed_commands: [/bin/ls]\n",
			`policy strict.yaml: field "allowed_commands[0]": must be a command name without path or spaces, got "/bin/ls"`},
		{"several problems in one error", "max_timeout_seconds: -5\nblock_on_review: \"no\"\nfoo: 1\n",
			`policy strict.yaml: field "block_on_review": must be a boolean (true or false), got string "no"; ` +
				`field "foo": unknown field; field "max_timeout_seconds": must be >= 0, got -5`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := LoadBytes("strict.yaml", []byte(tc.doc))
			if p != nil {
				t.Errorf("policy half-loaded: %+v", p)
			}
			if err == nil {
				t.Fatalf("no error, want %s", tc.want)
			}
			if err.Error() != tc.want {
				t.Errorf("error\n got: %s\nwant: %s", err, tc.want)
			}
			var perr *Error
			if !errors.As(err, &perr) || perr.Source != "strict.yaml" || len(perr.Problems) == 0 {
				t.Errorf("error is not a *policies.Error naming the source: %#v", err)
			}
		})
	}
}

func TestLoadSyntaxError(t *testing.T) {
	p, err := LoadBytes("broken.yaml", []byte("allowed_domains: [github.com\n"))
	if p != nil || err == nil || !strings.HasPrefix(err.Error(), "load policy broken.yaml: ") {
		t.Errorf("LoadBytes = %v, %v", p, err)
	}
	p, err = LoadBytes("list.yaml", []byte("- a\n- b\n"))
	if p != nil || err == nil || !strings.HasPrefix(err.Error(), "load policy list.yaml: ") {
		t.Errorf("top-level list: LoadBytes = %v, %v", p, err)
	}
}

func TestLoadDuplicateKey(t *testing.T) {
	p, err := LoadBytes("dup.yaml", []byte("block_on_review: true\nblock_on_review: false\n"))
	if p != nil || err == nil || !strings.Contains(err.Error(), "load policy dup.yaml: ") ||
		!strings.Contains(err.Error(), `"block_on_review" already defined`) {
		t.Errorf("LoadBytes(duplicate key) = %v, %v", p, err)
	}
}

func TestNullListMeansEmpty(t *testing.T) {
	p, err := LoadBytes("null.yaml", []byte("allowed_domains:\nallowed_commands:\nrules:\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.AllowedDomains == nil || len(p.AllowedDomains) != 0 || len(p.AllowedCommands) != 0 || len(p.Rules) != 0 {
		t.Errorf("null lists: %+v", p)
	}
	if len(p.DeniedPaths) == 0 {
		t.Error("an omitted list lost its default")
	}
}

func TestLoadMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing.yaml")
	p, err := Load(path)
	if p != nil || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), path) {
		t.Errorf("Load(missing) = %v, %v", p, err)
	}
}

func writePolicy(t *testing.T, doc string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "site.yaml")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadEnvOverrides(t *testing.T) {
	path := writePolicy(t, "max_timeout_seconds: 200\nallowed_domains: [github.com]\n")
	t.Setenv("TOOLWARDEN_BLOCK_ON_REVIEW", "true")
	t.Setenv("TOOLWARDEN_MAX_TIMEOUT_SECONDS", "60")
	t.Setenv("TOOLWARDEN_MAX_OUTPUT_BYTES", "4096")
	t.Setenv("TOOLWARDEN_ALLOWED_DOMAINS", "a.com, B.org")
	t.Setenv("TOOLWARDEN_REVIEW_SHELL_FEATURES", "false")
	t.Setenv("TOOLWARDEN_REDIS_URL", "redis://localhost:6379") // another component's setting
	t.Setenv("TOOLWARDEN_RULES", "ignored")

	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !p.BlockOnReview || p.MaxTimeoutSeconds != 60 || p.MaxOutputBytes != 4096 || p.ReviewShellFeatures {
		t.Errorf("env overrides not applied: %+v", p)
	}
	if !slices.Equal(p.AllowedDomains, []string{"a.com", "b.org"}) {
		t.Errorf("AllowedDomains = %v, want [a.com b.org]", p.AllowedDomains)
	}

	// LoadBytes ignores the environment.
	q, err := LoadBytes("site.yaml", []byte("max_timeout_seconds: 200\n"))
	if err != nil {
		t.Fatal(err)
	}
	if q.BlockOnReview || q.MaxTimeoutSeconds != 200 {
		t.Errorf("LoadBytes applied env overrides: %+v", q)
	}
	if Default().BlockOnReview {
		t.Error("Default applied env overrides")
	}
}

func TestApplyEnv(t *testing.T) {
	t.Setenv("TOOLWARDEN_BLOCK_ON_REVIEW", "true")
	t.Setenv("TOOLWARDEN_ALLOWED_COMMANDS", "ls,cat")
	base := Default()
	base.Rules = map[string]sdk.RuleOverride{"BASH_LONG_SLEEP": {Decision: sdk.Deny}}
	p, err := ApplyEnv(base)
	if err != nil {
		t.Fatal(err)
	}
	if !p.BlockOnReview || !slices.Equal(p.AllowedCommands, []string{"ls", "cat"}) || p.Name != "default" {
		t.Errorf("ApplyEnv = %+v", p)
	}
	if p.MaxOutputBytes != base.MaxOutputBytes || p.Rules["BASH_LONG_SLEEP"].Decision != sdk.Deny ||
		!slices.Equal(p.DeniedPaths, base.DeniedPaths) {
		t.Errorf("ApplyEnv lost fields: %+v", p)
	}
	if base.BlockOnReview || len(base.AllowedCommands) != 0 {
		t.Error("ApplyEnv modified its argument")
	}
	t.Setenv("TOOLWARDEN_LONG_SLEEP_SECONDS", "soon")
	if p, err := ApplyEnv(base); p != nil || err == nil ||
		err.Error() != `policy default: field "long_sleep_seconds": environment TOOLWARDEN_LONG_SLEEP_SECONDS: must be a number, got "soon"` {
		t.Errorf("ApplyEnv(bad env) = %v, %v", p, err)
	}
}

func TestLoadEnvOverrideErrors(t *testing.T) {
	path := writePolicy(t, "name: site\n")
	cases := []struct{ env, value, want string }{
		{"TOOLWARDEN_BLOCK_ON_REVIEW", "yes",
			`field "block_on_review": environment TOOLWARDEN_BLOCK_ON_REVIEW: must be true or false, got "yes"`},
		{"TOOLWARDEN_MAX_TIMEOUT_SECONDS", "1m",
			`field "max_timeout_seconds": environment TOOLWARDEN_MAX_TIMEOUT_SECONDS: must be a number, got "1m"`},
		{"TOOLWARDEN_MAX_OUTPUT_BYTES", "-1",
			`field "max_output_bytes": must be >= 0, got -1`},
		{"TOOLWARDEN_ALLOWED_DOMAINS", "github.com,http://x.org",
			`field "allowed_domains[1]": must be a host name without scheme, got "http://x.org"`},
	}
	for _, tc := range cases {
		t.Run(tc.env, func(t *testing.T) {
			t.Setenv(tc.env, tc.value)
			p, err := Load(path)
			if p != nil || err == nil {
				t.Fatalf("Load = %v, %v; want an error", p, err)
			}
			if want := "policy " + path + ": " + tc.want; err.Error() != want {
				t.Errorf("error\n got: %s\nwant: %s", err, want)
			}
		})
	}
}

func TestValidateCodeBuiltPolicy(t *testing.T) {
	p := Default()
	if err := Validate(p); err != nil {
		t.Fatalf("Validate(Default()) = %v", err)
	}
	p.MaxTimeoutSeconds = -1
	p.AllowedDomains = append(p.AllowedDomains, "GitHub.com")
	p.Rules = map[string]sdk.RuleOverride{"X_RULE": {Decision: "maybe"}}
	err := Validate(p)
	want := `policy default: field "max_timeout_seconds": must be >= 0, got -1; ` +
		fmt.Sprintf(`field "allowed_domains[%d]": must be lower case, got "GitHub.com"; `, len(p.AllowedDomains)-1) +
		`field "rules.X_RULE.decision": must be allow, needs_human_review or deny, got "maybe"`
	if err == nil || err.Error() != want {
		t.Errorf("Validate error\n got: %v\nwant: %s", err, want)
	}
	if err := Validate(nil); err == nil {
		t.Error("Validate(nil) = nil")
	}
}

// TestSchemaMatchesPolicy keeps the loader's schema in step with sdk.Policy:
// a field added to the struct but not to the schema would be rejected as
// unknown, and the reverse would be silently dropped.
func TestSchemaMatchesPolicy(t *testing.T) {
	var tags []string
	typ := reflect.TypeOf(sdk.Policy{})
	for i := range typ.NumField() {
		tags = append(tags, typ.Field(i).Tag.Get("koanf"))
	}
	slices.Sort(tags)
	if got := sortedKeys(fields); !slices.Equal(got, tags) {
		t.Errorf("schema fields %v != sdk.Policy koanf tags %v", got, tags)
	}
	var otags []string
	otyp := reflect.TypeOf(sdk.RuleOverride{})
	for i := range otyp.NumField() {
		otags = append(otags, otyp.Field(i).Tag.Get("koanf"))
	}
	slices.Sort(otags)
	if got := sortedKeys(overrideFields); !slices.Equal(got, otags) {
		t.Errorf("override fields %v != sdk.RuleOverride koanf tags %v", got, otags)
	}
}

func ExampleLoadBytes() {
	doc := []byte(`
name: ci
block_on_review: true
allowed_domains: [github.com, proxy.golang.org]
rules:
  BASH_SHELL_FEATURE_REVIEW:
    disabled: true
`)
	p, err := LoadBytes("ci.yaml", doc)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Name, p.BlockOnReview, p.AllowedDomains, p.Rules["BASH_SHELL_FEATURE_REVIEW"].Disabled)

	_, err = LoadBytes("ci.yaml", []byte("max_timeout_seconds: -5\n"))
	fmt.Println(err)
	// Output:
	// ci true [github.com proxy.golang.org] true
	// policy ci.yaml: field "max_timeout_seconds": must be >= 0, got -5
}

// FuzzLoadBytes checks that no document panics the loader and that a
// document either loads into a valid policy or fails with no policy.
func FuzzLoadBytes(f *testing.F) {
	for _, name := range Names {
		data, _ := builtinFS.ReadFile(name + ".yaml")
		f.Add(data)
	}
	f.Add([]byte("rules:\n  1: {disabled: true}\n"))
	f.Add([]byte("allowed_domains: [{a: b}]\nmax_output_bytes: 1e30\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := LoadBytes("fuzz.yaml", data)
		if (p == nil) == (err == nil) {
			t.Fatalf("LoadBytes = %v, %v: want exactly one of policy and error", p, err)
		}
		if p != nil {
			if verr := Validate(p); verr != nil {
				t.Fatalf("loaded policy does not validate: %v", verr)
			}
		}
	})
}

// TestBuiltinYAMLIsTheBuiltin: the text a server shows for its configured
// embedded policy loads to that policy.
func TestBuiltinYAMLIsTheBuiltin(t *testing.T) {
	for _, name := range Names {
		data, err := BuiltinYAML(name)
		if err != nil {
			t.Fatal(err)
		}
		fromText, err := LoadBytes(name+".yaml", data)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := Builtin(name)
		if fromText.BlockOnReview != want.BlockOnReview || len(fromText.AllowedDomains) != len(want.AllowedDomains) || fromText.Name != want.Name {
			t.Errorf("%s: BuiltinYAML loads to %+v, want %+v", name, fromText, want)
		}
	}
	if _, err := BuiltinYAML("nope"); err == nil {
		t.Error("an unknown name was accepted")
	}
}

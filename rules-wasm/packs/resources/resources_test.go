package resources

import (
	"regexp"
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/packtest"
	"github.com/toolwarden/toolwarden/sdk"
)

type C = packtest.Case

var review = sdk.NeedsHumanReview

func TestLoopsAndSleeps(t *testing.T) {
	packtest.Run(t, Scan, []C{
		{Name: "while true without break", Facts: sdk.Facts{Loops: []sdk.Loop{{Kind: "while_true", Evidence: "while true; do"}}}, Rule: "BASH_INFINITE_LOOP", Want: review},
		{Name: "until false", Facts: sdk.Facts{Loops: []sdk.Loop{{Kind: "until_false", Evidence: "until false; do"}}}, Rule: "BASH_INFINITE_LOOP", Want: review},
		{Name: "loop with break", Facts: sdk.Facts{Loops: []sdk.Loop{{Kind: "while_true", HasBreak: true, Evidence: "while true; do"}}}, Rule: "BASH_INFINITE_LOOP"},
		{Name: "python while True", Lang: "python", Facts: sdk.Facts{Loops: []sdk.Loop{{Kind: "while_true", Evidence: "while True:"}}}, Rule: "PY_INFINITE_LOOP", Want: review},
		{Name: "python loop exiting on input only", Lang: "python", Facts: sdk.Facts{Loops: []sdk.Loop{{Kind: "while_true", HasBreak: true, Evidence: "while True:"}}, Calls: []sdk.Call{{Name: "input"}}}, Rule: "PY_INFINITE_LOOP", Want: review},
		{Name: "python loop with computed break", Lang: "python", Facts: sdk.Facts{Loops: []sdk.Loop{{Kind: "while_true", HasBreak: true, Evidence: "while True:"}}}, Rule: "PY_INFINITE_LOOP"},
		{Name: "python -c loop inside bash", Facts: sdk.Facts{Loops: []sdk.Loop{{Kind: "while_true", Evidence: "while 1:", Pos: sdk.Pos{Line: 1, Depth: 1, Via: "python3 -c"}}}}, Rule: "PY_INFINITE_LOOP", Want: review},
		{Name: "tail -f", Facts: sdk.Facts{Commands: []sdk.Command{packtest.Cmd(1, "tail", "-f", "build.log")}}, Rule: "BASH_INFINITE_LOOP", Want: review},
		{Name: "tail -f under timeout", Facts: sdk.Facts{Commands: []sdk.Command{packtest.Cmd(1, "timeout", "60"), packtest.Cmd(2, "tail", "-f", "build.log")}}, Rule: "BASH_INFINITE_LOOP"},
		{Name: "tail -n", Facts: sdk.Facts{Commands: []sdk.Command{packtest.Cmd(1, "tail", "-n", "100", "build.log")}}, Rule: "BASH_INFINITE_LOOP"},
		{Name: "ping without count", Facts: sdk.Facts{Commands: []sdk.Command{packtest.Cmd(1, "ping", "github.com")}}, Rule: "BASH_INFINITE_LOOP", Want: review},
		{Name: "ping -c 1", Facts: sdk.Facts{Commands: []sdk.Command{packtest.Cmd(1, "ping", "-c", "1", "github.com")}}, Rule: "BASH_INFINITE_LOOP"},
		{Name: "sleep fact over limit", Facts: sdk.Facts{Sleeps: []sdk.Sleep{{Seconds: 36000}}}, Rule: "BASH_LONG_SLEEP", Want: review},
		{Name: "sleep infinity", Facts: sdk.Facts{Sleeps: []sdk.Sleep{{Seconds: -1}}}, Rule: "BASH_LONG_SLEEP", Want: review},
		{Name: "sleep 10h command", Facts: sdk.Facts{Commands: []sdk.Command{packtest.Cmd(1, "sleep", "10h")}}, Rule: "BASH_LONG_SLEEP", Want: review},
		{Name: "short sleep", Facts: sdk.Facts{Commands: []sdk.Command{packtest.Cmd(1, "sleep", "15")}, Sleeps: []sdk.Sleep{{Seconds: 15}}}, Rule: "BASH_LONG_SLEEP"},
		{Name: "limit from policy", Facts: sdk.Facts{Sleeps: []sdk.Sleep{{Seconds: 60}}}, Policy: func(p *sdk.Policy) { p.LongSleepSeconds = 30 }, Rule: "BASH_LONG_SLEEP", Want: review},
		{Name: "time.sleep call", Lang: "python", Facts: sdk.Facts{Calls: []sdk.Call{{Name: "time.sleep", Args: []sdk.Value{{Kind: "int", Const: true, Str: "3600"}}}}}, Rule: "BASH_LONG_SLEEP", Want: review},
	})
}

func TestLimits(t *testing.T) {
	packtest.Run(t, Scan, []C{
		{Name: "timeout over", Ctx: sdk.RequestContext{TimeoutSeconds: 600}, Rule: "RESOURCE_TIMEOUT_LIMIT_EXCEEDED", Want: review},
		{Name: "timeout at limit", Ctx: sdk.RequestContext{TimeoutSeconds: 300}, Rule: "RESOURCE_TIMEOUT_LIMIT_EXCEEDED"},
		{Name: "output over", Ctx: sdk.RequestContext{MaxOutputBytes: 10 << 20}, Rule: "RESOURCE_OUTPUT_LIMIT_EXCEEDED", Want: review},
		{Name: "output within", Ctx: sdk.RequestContext{MaxOutputBytes: 1024}, Rule: "RESOURCE_OUTPUT_LIMIT_EXCEEDED"},
	})
}

func TestSecrets(t *testing.T) {
	echoTok := packtest.Cmd(1, "echo", "token=$API_TOKEN")
	echoTok.DynamicArgs = []int{0}
	echoHome := packtest.Cmd(1, "echo", "$HOME")
	echoHome.DynamicArgs = []int{0}
	pem := "k = '''-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw\n-----END RSA PRIVATE KEY-----'''"
	packtest.Run(t, Scan, []C{
		{Name: "secret env read", Facts: sdk.Facts{EnvReads: []sdk.EnvRead{{Name: "GITHUB_TOKEN"}}}, Rule: "SENSITIVE_ENV_READ_REVIEW", Want: review},
		{Name: "proc environ", Facts: sdk.Facts{Files: []sdk.FileAccess{{Path: "/proc/self/environ", Op: "read", By: "cat"}}}, Rule: "SENSITIVE_ENV_READ_REVIEW", Want: review},
		{Name: "plain env read", Facts: sdk.Facts{EnvReads: []sdk.EnvRead{{Name: "HOME"}}}, Rule: "SENSITIVE_ENV_READ_REVIEW"},
		{Name: "echo secret", Facts: sdk.Facts{Outputs: []sdk.Output{{Sink: "stdout", Vars: []string{"API_TOKEN"}}}}, Rule: "SENSITIVE_OUTPUT", Want: sdk.Deny},
		{Name: "echo secret from command", Facts: sdk.Facts{Commands: []sdk.Command{echoTok}}, Rule: "SENSITIVE_OUTPUT", Want: sdk.Deny},
		{Name: "echo home", Facts: sdk.Facts{Commands: []sdk.Command{echoHome}}, Rule: "SENSITIVE_OUTPUT"},
		{Name: "printenv secret", Facts: sdk.Facts{Commands: []sdk.Command{packtest.Cmd(1, "printenv", "AWS_SECRET_ACCESS_KEY")}}, Rule: "SENSITIVE_OUTPUT", Want: sdk.Deny},
		{Name: "print environ", Lang: "python", Facts: sdk.Facts{Calls: []sdk.Call{{Name: "print", Args: []sdk.Value{{Kind: "expr", Str: "os.environ['SECRET_KEY']"}}}}}, Rule: "SENSITIVE_OUTPUT", Want: sdk.Deny},
		{Name: "password word in message", Lang: "python", Facts: sdk.Facts{Calls: []sdk.Call{{Name: "print", Args: []sdk.Value{packtest.Str("password must be long")}}}}, Rule: "SENSITIVE_OUTPUT"},
		// RULES.md: sending a secret-named variable's value, whatever the host.
		{Name: "token to allowed host is denied", Facts: sdk.Facts{Outputs: []sdk.Output{{Sink: "network", Vars: []string{"GITHUB_TOKEN"}}}, Network: []sdk.NetworkUse{{Host: "api.github.com", Via: "curl"}}}, Rule: "SENSITIVE_OUTPUT", Want: sdk.Deny},
		{Name: "private key fact", Facts: sdk.Facts{Secrets: []sdk.Secret{{Kind: "private_key", Redacted: "-----BEGIN RSA PRIVATE KEY----- [redacted]"}}}, Rule: "SENSITIVE_PRIVATE_KEY_LITERAL", Want: sdk.Deny},
		{Name: "aws key literal", Facts: sdk.Facts{Secrets: []sdk.Secret{{Kind: "aws_access_key", Redacted: "AKIA…"}}}, Rule: "SENSITIVE_CREDENTIAL_LITERAL_REVIEW", Want: review},
	})
	// The content fallback finds a PEM key the analyzer did not report, and
	// ignores the marker alone.
	for content, want := range map[string]bool{pem: true, `grep -c "BEGIN OPENSSH PRIVATE KEY" docs/x.md`: false} {
		fs, err := Scan(&sdk.ScanInput{Facts: &sdk.Facts{Language: "python"}, Content: content, Policy: packtest.Policy()})
		if err != nil {
			t.Fatal(err)
		}
		if got := packtest.Find(fs, "SENSITIVE_PRIVATE_KEY_LITERAL") != nil; got != want {
			t.Errorf("content %.30q: key literal = %v, want %v", content, got, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	packtest.Run(t, Scan, []C{
		{Name: "bash parse error", Facts: sdk.Facts{ParseErrors: []sdk.ParseError{{Message: "unexpected EOF", Language: "bash"}}}, Rule: "BASH_PARSE_ERROR_REVIEW", Want: review},
		{Name: "python parse error", Lang: "python", Facts: sdk.Facts{ParseErrors: []sdk.ParseError{{Message: "invalid syntax", Language: "python"}}}, Rule: "PY_PARSE_ERROR_REVIEW", Want: review},
		{Name: "truncated nesting", Facts: sdk.Facts{Truncated: true}, Rule: "BASH_PARSE_ERROR_REVIEW", Want: review},
		{Name: "clean content", Rule: "BASH_PARSE_ERROR_REVIEW"},
	})
}

func TestParseDuration(t *testing.T) {
	cases := []struct {
		args []string
		want float64
		ok   bool
	}{
		{[]string{"10"}, 10, true}, {[]string{"1.5m"}, 90, true}, {[]string{"10h"}, 36000, true},
		{[]string{"1d"}, 86400, true}, {[]string{"1m", "30s"}, 90, true}, {[]string{"infinity"}, -1, true},
		{[]string{"inf"}, -1, true}, {[]string{"$T"}, 0, false}, {nil, 0, false},
	}
	for _, c := range cases {
		got, ok := ParseDuration(c.args)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseDuration(%v) = %v %v, want %v %v", c.args, got, ok, c.want, c.ok)
		}
	}
}

// shellVar is the regexp nextShellVar stands for.
var shellVar = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)`)

func TestNextShellVarAgreesWithShellVar(t *testing.T) {
	for _, s := range []string{"$TOKEN", "${API_KEY}", "x=$A$B", "${1}$X", "$$Y", "${", "$", "${_a9}z", "$9a $b", "cost: $5 ${x", "${{A}"} {
		var got []string
		for rest := s; ; {
			name, after, ok := nextShellVar(rest)
			if !ok {
				break
			}
			got = append(got, name)
			rest = after
		}
		var want []string
		for _, m := range shellVar.FindAllStringSubmatch(s, -1) {
			want = append(want, m[1])
		}
		if strings.Join(got, ",") != strings.Join(want, ",") || len(got) != len(want) {
			t.Errorf("nextShellVar(%q) finds %q, shellVar %q", s, got, want)
		}
	}
}

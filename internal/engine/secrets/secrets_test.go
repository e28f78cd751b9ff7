package secrets

import (
	"fmt"
	"strings"
	"testing"
)

// Fixture credentials are assembled at run time so that the source file
// itself does not trip secret scanners.
var (
	awsKey    = "AKIA" + "IOSFODNN7EXAMPLE"
	ghToken   = "ghp_" + strings.Repeat("aB3dE5gH7j", 4)[:36]
	ghPAT     = "github_pat_" + "11ABCDEFG0" + strings.Repeat("x1Y2z3", 10)
	slackTok  = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
	jwt       = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + "." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0" + "." + "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	keyBody   = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n"
	pemBlock  = "-----BEGIN RSA " + "PRIVATE KEY-----\n" + keyBody + "-----END RSA PRIVATE KEY-----"
	openaiKey = "sk-" + "proj-" + strings.Repeat("Ab1Cd2Ef3G", 4)
)

func kinds(t *testing.T, content string) []string {
	t.Helper()
	var out []string
	for _, s := range Find(content) {
		out = append(out, s.Kind)
	}
	return out
}

func TestFindKinds(t *testing.T) {
	cases := []struct {
		name, content string
		want          []string
	}{
		{"pem block", "KEY='" + pemBlock + "'\n", []string{KindPrivateKey}},
		{"pem in python triple quotes", "DEPLOY_KEY = \"\"\"" + pemBlock + "\"\"\"\n", []string{KindPrivateKey}},
		{"pem with escaped newlines", `k = "` + strings.ReplaceAll(pemBlock, "\n", `\n`) + `"`, []string{KindPrivateKey}},
		{"openssh key", "-----BEGIN OPENSSH " + "PRIVATE KEY-----\n" + keyBody + "-----END OPENSSH PRIVATE KEY-----", []string{KindPrivateKey}},
		{"aws key", "export AWS_ACCESS_KEY_ID=" + awsKey, []string{KindAWSKey}},
		{"github token", "git clone https://" + ghToken + "@github.com/o/r", []string{KindGitHub}},
		{"github pat", "GH=" + ghPAT, []string{KindGitHub}},
		{"slack token", "curl -d token=" + slackTok + " https://slack.com/api/x", []string{KindSlack}},
		{"jwt", "curl -H 'Authorization: Bearer " + jwt + "' https://api.example", []string{KindJWT}},
		{"bearer opaque", "curl -H 'Authorization: Bearer abcdef0123456789abcdef' https://x", []string{KindGeneric}},
		{"openai key", "client = OpenAI(api_key=\"" + openaiKey + "\")", []string{KindGeneric}},
		{"shell password", "DB_PASSWORD=hunter22 ./migrate", []string{KindPassword}},
		{"python password", `password = "s3cr3t!"`, []string{KindPassword}},
		{"json token", `{"api_token": "abc123xyz"}`, []string{KindPassword}},
		{"yaml secret", "database:\n  password: hunter22\n", []string{KindPassword}},
		{"cli flag", "mysql --password=hunter22 -u root", []string{KindPassword}},
		{"quoted shell string", `curl -d "token=abc123xyz" https://x`, []string{KindPassword}},
		{"kwarg literal", `connect(host="db", password="hunter22")`, []string{KindPassword}},
		{"aws secret key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", nil},
		{"aws secret key quoted", `aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"`, []string{KindPassword}},
		{"url password", "psql postgres://app:s3cr3t@db.internal/prod", []string{KindPassword}},
		{"two secrets", "A=" + awsKey + "\nB=" + ghToken + "\n", []string{KindAWSKey, KindGitHub}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := kinds(t, tc.content)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("Find(%q) kinds = %v, want %v", tc.content, got, tc.want)
			}
		})
	}
}

// TestPrivateKeyHeaderIsEnough checks RULES.md (2026-12-01): a PEM
// private-key header is a private key whatever the body, including a header
// assembled from several literals or printf arguments.
func TestPrivateKeyHeaderIsEnough(t *testing.T) {
	for _, content := range []string{
		`echo "-----BEGIN RSA PRIVATE KEY-----"`,
		"-----BEGIN RSA PRIVATE KEY-----\nMIIE...\n-----END RSA PRIVATE KEY-----",
		`printf '%s%s' '-----BEGIN OPENSSH ' 'PRIVATE KEY-----'`,
		`k = "-----BEGIN " + "EC PRIV" + "ATE KEY-----"`,
	} {
		got := Find(content)
		if len(got) != 1 || got[0].Kind != KindPrivateKey {
			t.Errorf("Find(%q) = %+v, want one private key", content, got)
		}
	}
}

func TestFindIgnoresNonSecrets(t *testing.T) {
	for _, content := range []string{
		`grep -c "BEGIN OPENSSH PRIVATE KEY" docs/key-rotation.md`,
		`echo "-----BEGIN PUBLIC KEY-----"`,
		`echo "-----BEGIN CERTIFICATE-----"`,
		`print("Please enter your password: ")`,
		`echo "Password: reset it in the console"`,
		"The password must be rotated every 90 days.",
		"password = getpass.getpass()",
		`password = os.environ["DB_PASSWORD"]`,
		`token = os.getenv("GITHUB_TOKEN")`,
		`connect(user=u, password=pw)`,
		`requests.get(url, token=tok, timeout=5)`,
		`TOKEN=$(cat /run/secrets/token)`,
		`API_KEY="${API_KEY}"`,
		`password = f"{prefix}{suffix}"`,
		"PWD=/home/user/project",
		"GOOGLE_APPLICATION_CREDENTIALS=/etc/gcp/sa.json",
		"api_key: <your-api-key>",
		`password = "****"`,
		"max_tokens=100",
		"tokenizer = load()",
		"class Config:\n    token: str\n    password: Optional[str] = None\n",
		`if password == "":`,
		"echo $API_TOKEN",
		"basic internationalization support",
		"secret: the value is stored elsewhere",
		`print("shlex: token=EOF")`,
		"git clone https://github.com/o/r && curl https://user@example.com/x",
		`curl "https://$USER:$PASS@example.com/x"`,
		"see http://localhost:8080/path?a=b",
		"x = \"password=[REDACTED:password_assignment]\"",
	} {
		if got := Find(content); len(got) != 0 {
			t.Errorf("Find(%q) = %+v, want nothing", content, got)
		}
	}
}

func TestFindPositionAndShape(t *testing.T) {
	content := "echo start\n  export GITHUB_TOKEN=" + ghToken + "\npassword = \"hunter22\"\n"
	got := Find(content)
	if len(got) != 2 {
		t.Fatalf("Find = %+v, want 2 secrets", got)
	}
	if got[0].Kind != KindGitHub || got[0].Pos.Line != 2 || got[0].Pos.Col != 23 {
		t.Errorf("first = %+v, want github_token at 2:23", got[0])
	}
	if got[0].Redacted != "ghp_…[40 chars]" {
		t.Errorf("github shape = %q", got[0].Redacted)
	}
	if got[1].Kind != KindPassword || got[1].Pos.Line != 3 || got[1].Pos.Col != 1 {
		t.Errorf("second = %+v, want password_assignment at 3:1", got[1])
	}
	if got[1].Redacted != "password=****" {
		t.Errorf("password shape = %q", got[1].Redacted)
	}
	for _, s := range got {
		if strings.Contains(s.Redacted, "hunter22") || strings.Contains(s.Redacted, ghToken[4:]) {
			t.Errorf("shape leaks the literal: %q", s.Redacted)
		}
	}
	pem := Find("x\n" + pemBlock)
	if len(pem) != 1 || pem[0].Pos.Line != 2 || !strings.HasPrefix(pem[0].Redacted, "-----BEGIN RSA PRIVATE KEY-----…[") {
		t.Errorf("pem = %+v", pem)
	}
}

func TestRedact(t *testing.T) {
	cases := []struct{ in, want string }{
		{"git clone https://" + ghToken + "@github.com/o/r", "git clone https://[REDACTED:github_token]@github.com/o/r"},
		{"DB_PASSWORD=hunter22 ./migrate", "DB_PASSWORD=[REDACTED:password_assignment] ./migrate"},
		{`password = "s3cr3t!" # x`, `password = "[REDACTED:password_assignment]" # x`},
		{"KEY='" + pemBlock + "'", "KEY='[REDACTED:private_key]'"},
		{"curl -H 'Authorization: Bearer abcdef0123456789abcdef' x", "curl -H 'Authorization: Bearer [REDACTED:generic_token]' x"},
		{"id=" + awsKey + " tok=" + jwt, "id=[REDACTED:aws_access_key] tok=[REDACTED:jwt]"},
		{"GITHUB_TOKEN=" + ghToken, "GITHUB_TOKEN=[REDACTED:github_token]"},
		{"DATABASE_URL=postgres://app:s3cr3t@db/prod ./run", "DATABASE_URL=postgres://app:[REDACTED:password_assignment]@db/prod ./run"},
	}
	for _, tc := range cases {
		got, changed := Redact(tc.in)
		if got != tc.want || !changed {
			t.Errorf("Redact(%q)\n got: %q, %v\nwant: %q, true", tc.in, got, changed, tc.want)
		}
		again, changedAgain := Redact(got)
		if again != got || changedAgain {
			t.Errorf("Redact is not idempotent on %q: %q, %v", got, again, changedAgain)
		}
	}
	clean := `grep -c "BEGIN OPENSSH PRIVATE KEY" docs/x.md`
	if got, changed := Redact(clean); got != clean || changed {
		t.Errorf("Redact(clean) = %q, %v", got, changed)
	}
}

func BenchmarkFind1KB(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 1024 {
		sb.WriteString("for f in $(find . -name '*.py'); do\n  python3 -m black \"$f\" --line-length=100\ndone\n")
		sb.WriteString("export API_URL=https://api.example.com/v1 TIMEOUT=30\n")
	}
	content := sb.String()[:1024]
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		Find(content)
	}
}

func BenchmarkRedact1KBWithSecrets(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 1024 {
		sb.WriteString("curl -H 'Authorization: Bearer abcdef0123456789abcdef' https://api.example\n")
		sb.WriteString("export GITHUB_TOKEN=" + ghToken + " DB_PASSWORD=hunter22\n")
	}
	content := sb.String()[:1024]
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		Redact(content)
	}
}

func ExampleRedact() {
	out, changed := Redact(`psql "postgres://app@db/prod" -c 'select 1' && DB_PASSWORD=hunter22 ./migrate`)
	fmt.Println(out, changed)
	// Output: psql "postgres://app@db/prod" -c 'select 1' && DB_PASSWORD=[REDACTED:password_assignment] ./migrate true
}

func ExampleFind() {
	content := "echo deploying\nexport DB_PASSWORD=hunter22\ngrep -c \"BEGIN OPENSSH PRIVATE KEY\" docs/x.md\n"
	for _, s := range Find(content) {
		fmt.Printf("%d:%d %s %s\n", s.Pos.Line, s.Pos.Col, s.Kind, s.Redacted)
	}
	// Output: 2:8 password_assignment DB_PASSWORD=****
}

// FuzzRedact checks that Find and Redact never panic, that positions lie in
// the content, that the token prefilter sees every prefix present, and that
// redaction is idempotent.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		pemBlock, "export GITHUB_TOKEN=" + ghToken, `password = "hunter22"`, "postgres://a:bcdef@h/db",
		"Authorization: Bearer abcdef0123456789abcdef", `{"api_key": "abc123"}`, "token: value\n", "x=\"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lines := strings.Count(s, "\n") + 1
		for _, sec := range Find(s) {
			if sec.Pos.Line < 1 || sec.Pos.Line > lines || sec.Pos.Col < 1 {
				t.Fatalf("position %+v out of range for %q", sec.Pos, s)
			}
		}
		got := prefixesIn(s)
		for i, p := range tokenPrefixes {
			if (got&(1<<i) != 0) != strings.Contains(s, p) {
				t.Fatalf("prefixesIn(%q) wrong for prefix %q", s, p)
			}
		}
		once, _ := Redact(s)
		twice, changed := Redact(once)
		if twice != once || changed {
			t.Fatalf("not idempotent: %q → %q → %q", s, once, twice)
		}
	})
}

// TestPrefixesIn checks the one-pass prefilter against a search per
// prefix: a prefix it missed would let findTokens skip a credential.
func TestPrefixesIn(t *testing.T) {
	inputs := []string{"", "x", pemBlock, "export GITHUB_TOKEN=" + ghToken, "AKIAAKIA ghp_ gho_ xoxb- sk- sk_live_",
		"curl -H 'Authorization: Bearer abcdef0123456789abcdef' https://hooks.slack.com/services/T0/B0/x",
		"eyJhbGciOi.eyJzdWIi.sig npm_ hf_ xapp- glpat- AIza rk_test_ BEARER\tx bearer\ty AUTHORIZATION:"}
	for _, p := range tokenPrefixes {
		inputs = append(inputs, p, "."+p, p[:len(p)-1], "zz"+p[1:])
	}
	for _, s := range inputs {
		got := prefixesIn(s)
		for i, p := range tokenPrefixes {
			if want := strings.Contains(s, p); (got&(1<<i) != 0) != want {
				t.Errorf("prefixesIn(%q) bit %d (%q) = %v, want %v", s, i, p, !want, want)
			}
		}
	}
}

// BenchmarkRedactMessage is Redact of a finding's message, the string a
// report redacts several times per finding and the scan log again.
func BenchmarkRedactMessage(b *testing.B) {
	msg := "Recursive deletion of a directory outside the workspace: rm -rf /srv/app/build removes files the agent did not create."
	b.ReportAllocs()
	for b.Loop() {
		Redact(msg)
	}
}

// TestPrivateKeyHeaderVariants: every armor header of a private key counts
// (OpenPGP's "PRIVATE KEY BLOCK" included), whole or split across literals,
// including splits inside "KEY" and "BLOCK".
func TestPrivateKeyHeaderVariants(t *testing.T) {
	for _, content := range []string{
		"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF...\n-----END PGP PRIVATE KEY BLOCK-----",
		`echo '-----BEGIN PGP PRIVATE KEY BLOCK-----' > k.asc`,
		`printf '%s%s' '-----BEGIN PGP PRIV' 'ATE KEY BLOCK-----'`,
		`k = "-----BEGIN PGP PRIVATE KEY BL" + "OCK-----"`,
		`k = "-----BEGIN RSA PRIVATE KE" + "Y-----"`,
		`k = "-----BEG" + "IN ENCRYPTED PRIVATE KEY-----"`,
	} {
		got := Find(content)
		if len(got) != 1 || got[0].Kind != KindPrivateKey {
			t.Errorf("Find(%q) = %+v, want one private key", content, got)
		}
	}
	for _, content := range []string{
		`echo '-----BEGIN PGP PUBLIC KEY BLOCK-----'`,
		`echo '-----BEGIN PGP SIGNATURE-----'`,
		`grep -l "PGP PRIVATE KEY BLOCK" notes.md`,
	} {
		if got := Find(content); len(got) != 0 {
			t.Errorf("Find(%q) = %+v, want nothing", content, got)
		}
	}
}

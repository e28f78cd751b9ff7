package python

import (
	"slices"
	"testing"
)

// outputVars returns the variable names of every Output fact of src.
func outputVars(src string) []string {
	f, _ := analyzeSrc(src)
	var out []string
	for _, o := range f.Outputs {
		out = append(out, o.Vars...)
	}
	return out
}

// TestSecretLiteralVariableIsWritten checks that a credential-named
// variable assigned a string literal is a named secret when printed or
// sent, and that a message or an unrelated name is not.
func TestSecretLiteralVariableIsWritten(t *testing.T) {
	for name, tc := range map[string]struct {
		src  string
		want string
	}{
		"print":      {"api_key = 'sk-live-1234567890abcdef'\nprint(api_key)", "api_key"},
		"f-string":   {"API_TOKEN = 'abcdef0123456789'\nprint(f'token={API_TOKEN}')", "API_TOKEN"},
		"in a func":  {"def f():\n    db_password = 'hunter2hunter2'\n    print('pw', db_password)\nf()", "db_password"},
		"message":    {"password = 'please set a password'\nprint(password)", ""},
		"plain name": {"cmd = 'sk-live-1234567890abcdef'\nprint(cmd)", ""},
		"not output": {"api_key = 'sk-live-1234567890abcdef'\nprint(len(api_key))", ""},
	} {
		got := outputVars(tc.src)
		if tc.want == "" {
			if len(got) != 0 {
				t.Errorf("%s: outputs %v, want none", name, got)
			}
			continue
		}
		if !slices.Contains(got, tc.want) {
			t.Errorf("%s: outputs %v, want %s among them", name, got, tc.want)
		}
	}
}

// TestProcEnvironGlobEntries checks that reading an entry of a glob over
// /proc/*/environ reads a whole environment, and that other /proc files
// do not.
func TestProcEnvironGlobEntries(t *testing.T) {
	for src, want := range map[string]bool{
		"from pathlib import Path\nfor p in Path('/proc').glob('*/environ'):\n    print(p.read_bytes())": true,
		"import glob\nfor f in glob.glob('/proc/*/environ'):\n    print(open(f).read())":                    true,
		"from pathlib import Path\nfor p in Path('/proc').glob('*/status'):\n    print(p.read_text())":   false,
	} {
		if got := slices.Contains(outputVars(src), "*"); got != want {
			t.Errorf("%q: whole environment written = %v, want %v", src, got, want)
		}
	}
}

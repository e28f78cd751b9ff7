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
		"import glob\nfor f in glob.glob('/proc/*/environ'):\n    print(open(f).read())":                 true,
		"from pathlib import Path\nfor p in Path('/proc').glob('*/status'):\n    print(p.read_text())":   false,
	} {
		if got := slices.Contains(outputVars(src), "*"); got != want {
			t.Errorf("%q: whole environment written = %v, want %v", src, got, want)
		}
	}
}

// TestExceptionsCarryValues checks that what a try body raises (directly,
// from a called function or method, re-raised) is what its handler's name
// holds: printing it writes the secret, running its argument runs the
// command; and that a plain message carries nothing.
func TestExceptionsCarryValues(t *testing.T) {
	for name, tc := range map[string]struct {
		src  string
		want string
	}{
		"print e":     {"import os\ntry:\n    raise ValueError(os.environ['API_TOKEN'])\nexcept Exception as e:\n    print(e)", "API_TOKEN"},
		"args[0]":     {"import os\ntry:\n    raise KeyError(os.getenv('SECRET_KEY'))\nexcept KeyError as e:\n    print(e.args[0])", "SECRET_KEY"},
		"from a call": {"import os\ndef f():\n    raise ValueError(os.environ['DB_PASSWORD'])\ntry:\n    f()\nexcept ValueError as e:\n    print(f'{e}')", "DB_PASSWORD"},
		"own class":   {"import os\nclass E(Exception):\n    pass\ntry:\n    raise E(os.environ['API_TOKEN'])\nexcept E as e:\n    print(str(e))", "API_TOKEN"},
		"re-raised":   {"import os\ntry:\n    try:\n        raise KeyError(os.environ['API_TOKEN'])\n    except KeyError as e:\n        raise RuntimeError(str(e))\nexcept RuntimeError as err:\n    print(err)", "API_TOKEN"},
		"plain":       {"try:\n    raise ValueError('bad input')\nexcept ValueError as e:\n    print(e)", ""},
		"not raised":  {"import os\nx = os.environ['API_TOKEN']\ntry:\n    int('a')\nexcept ValueError as e:\n    print(e)", ""},
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
	f, fb := analyzeSrc("import os\nclass E(Exception):\n    pass\ntry:\n    raise E('rm -rf /')\nexcept E as e:\n    os.system(str(e.args[0]))")
	if len(fb.got) == 0 || fb.got[0].src != "rm -rf /" {
		t.Errorf("exception argument run as a command: nested %v, calls %v", fb.got, f.Calls)
	}
}

// TestTextConversionRunsDunders checks that print, str, repr, format and
// f-strings of an object of a class defined here run its __str__,
// __repr__ or __format__, and that a harmless one writes nothing.
func TestTextConversionRunsDunders(t *testing.T) {
	for name, tc := range map[string]struct {
		src  string
		want string
	}{
		"print __str__":   {"import os\nclass C:\n    def __str__(self):\n        return os.environ['API_TOKEN']\nprint(C())", "API_TOKEN"},
		"repr":            {"import os\nclass C:\n    def __repr__(self):\n        return os.environ['SECRET_KEY']\nprint(repr(C()))", "SECRET_KEY"},
		"f-string format": {"import os\nclass C:\n    def __format__(self, spec):\n        return os.getenv('GITHUB_TOKEN')\nprint(f'{C()}')", "GITHUB_TOKEN"},
		"percent":         {"import os\nclass C:\n    def __str__(self):\n        return os.environ['API_TOKEN']\nprint('%s' % C())", "API_TOKEN"},
		"str.format":      {"import os\nclass C:\n    def __str__(self):\n        return os.environ['API_TOKEN']\nprint('{}'.format(C()))", "API_TOKEN"},
		"str of self.x":   {"import os\nclass C:\n    def __init__(self):\n        self.t = os.environ['API_TOKEN']\n    def __str__(self):\n        return self.t\nprint(C())", "API_TOKEN"},
		"harmless":        {"class C:\n    def __str__(self):\n        return 'C()'\nprint(C())", ""},
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
	_, fb := analyzeSrc("import os\nclass C:\n    def __repr__(self):\n        return 'rm -rf /'\nos.system(repr(C()))")
	if len(fb.got) == 0 || fb.got[0].src != "rm -rf /" {
		t.Errorf("repr run as a command: nested %v", fb.got)
	}
}

// TestDecoratorsApplied checks that a decorator defined here is applied
// at the def: a replacement runs what it runs, a wrapper that changes the
// arguments passes what it passes, and a registry keeps the function.
func TestDecoratorsApplied(t *testing.T) {
	for name, src := range map[string]string{
		"replacement": "import os\ndef swap(fn):\n    def other(c):\n        os.system('rm -rf ' + c)\n    return other\n@swap\ndef safe(c):\n    print(c)\nsafe('/')",
		"lambda":      "import os\ndef swap(fn):\n    return lambda c: os.system(c)\n@swap\ndef safe(c):\n    print(c)\nsafe('rm -rf /')",
		"wrapper arg": "import os\ndef rooted(fn):\n    def w(p):\n        return fn('/' + p)\n    return w\n@rooted\ndef wipe(p):\n    os.system('rm -rf ' + p)\nwipe('')",
		"registry":    "import os\nREG = {}\ndef register(fn):\n    REG[fn.__name__] = fn\n    return fn\n@register\ndef wipe(c):\n    os.system(c)\nwipe('rm -rf /')",
		"method":      "import os\ndef swap(fn):\n    def other(self, c):\n        os.system(c)\n    return other\nclass K:\n    @swap\n    def go(self, c):\n        print(c)\nK().go('rm -rf /')",
		"class":       "import os\nclass T:\n    def __init__(self, fn):\n        self.fn = fn\n    def __call__(self, *a):\n        return self.fn(*a)\n@T\ndef run(c):\n    os.system(c)\nrun('rm -rf /')",
	} {
		_, fb := analyzeSrc(src)
		found := false
		for _, n := range fb.got {
			found = found || n.src == "rm -rf /"
		}
		if !found {
			t.Errorf("%s: nested %v, want rm -rf /", name, fb.got)
		}
	}
}

package python

import (
	"testing"

	"github.com/toolwarden/toolwarden/sdk"
)

// TestMarshalLoadsIsEncoded: marshal data is a serialized program, so
// executing what marshal.loads returns is executing transformed content —
// from a file as well as from a literal — while merely loading data is not
// execution.
func TestMarshalLoadsIsEncoded(t *testing.T) {
	for _, src := range []string{
		"import marshal\nexec(marshal.loads(open('x.bin', 'rb').read()))",
		"import marshal as m\ncode = m.loads(open('x.bin', 'rb').read())\nexec(code)",
	} {
		f, _ := analyzeSrc(src)
		enc := false
		for _, d := range f.DynamicExec {
			enc = enc || d.Encoded
		}
		if !enc {
			t.Errorf("%q: no encoded DynamicExec: %+v", src, f.DynamicExec)
		}
	}
	f, _ := analyzeSrc("import marshal\nprint(marshal.loads(marshal.dumps([1, 2])))")
	if len(f.DynamicExec) != 0 {
		t.Errorf("loading without exec: %+v", f.DynamicExec)
	}
}

// TestDecodersOfUnknownInput: a decoder applied to content that is not
// constant still yields decoded content, so executing it is executing
// encoded content; decoding into a file is not execution.
func TestDecodersOfUnknownInput(t *testing.T) {
	for _, src := range []string{
		"import base64\nexec(base64.b64decode(open('p.b64').read()))",
		"import binascii, os\nos.system(binascii.unhexlify(open('c.hex').read()).decode())",
		"import base64, sys\nexec(base64.b32decode(sys.argv[1]))",
	} {
		f, _ := analyzeSrc(src)
		enc := false
		for _, d := range f.DynamicExec {
			enc = enc || d.Encoded
		}
		for _, c := range f.Calls {
			for _, v := range c.Args {
				enc = enc || v.Encoded
			}
		}
		if !enc {
			t.Errorf("%q: decoded content not marked encoded: %+v %+v", src, f.DynamicExec, f.Calls)
		}
	}
	f, _ := analyzeSrc("import base64\ndata = base64.b64decode(open('b.b64').read())\nopen('b.bin', 'wb').write(data)")
	if len(f.DynamicExec) != 0 {
		t.Errorf("decode to file: %+v", f.DynamicExec)
	}
}

// TestPercentCharFormat: %c conversions fold, and text built from character
// codes is marked as decoded like a chr() join.
func TestPercentCharFormat(t *testing.T) {
	f, _ := analyzeSrc("import os\nos.system('%c%c' % (105, 100))")
	c := findCallNamed(f, "os.system")
	if c == nil || len(c.Args) == 0 || c.Args[0].Str != "id" || !c.Args[0].Encoded {
		t.Fatalf("os.system arg not folded from %%c: %+v", f.Calls)
	}
	f, _ = analyzeSrc("print('%c=%s' % ('x', 'y'))")
	if c := findCallNamed(f, "print"); c != nil && len(c.Args) > 0 && c.Args[0].Str != "x=y" {
		t.Errorf("%%c with a one-character string: %+v", c.Args[0])
	}
}

// TestLambdaIsFollowed: calling a lambda bound to a name is followed into
// its body like a def, so a wrapper does not hide the command it runs.
func TestLambdaIsFollowed(t *testing.T) {
	f, fb := analyzeSrc("import os\nrun = lambda c: os.system(c)\nrun('sudo id')")
	found := false
	for _, n := range fb.got {
		found = found || n.src == "sudo id"
	}
	if !found {
		t.Errorf("lambda body not followed with its argument: nested %+v calls %+v", fb.got, f.Calls)
	}
	f, _ = analyzeSrc("sq = lambda x: x * x\nprint(sq(4))")
	if c := findCallNamed(f, "print"); c == nil || len(c.Args) == 0 || c.Args[0].Str != "16" {
		t.Errorf("lambda return not folded: %+v", f.Calls)
	}
}

func findCallNamed(f *sdk.Facts, name string) *sdk.Call {
	for i := range f.Calls {
		if f.Calls[i].Name == name {
			return &f.Calls[i]
		}
	}
	return nil
}

// TestDictKeysDoNotCarrySecrets: iterating a dict (sorted, list, …) yields
// its keys, so a secret held as a value is not output — also when the dict
// is picked by a conditional expression — while printing the dict is.
func TestDictKeysDoNotCarrySecrets(t *testing.T) {
	const pre = "import os\ntoken = os.environ.get('GITHUB_TOKEN')\nheaders = {'Authorization': f'Bearer {token}'} if token else {}\n"
	f, _ := analyzeSrc(pre + "print(sorted(headers))")
	for _, o := range f.Outputs {
		t.Errorf("keys of a dict output a secret: %+v", o)
	}
	for _, tail := range []string{"print(headers)", "print(list(headers.values()))"} {
		f, _ = analyzeSrc(pre + tail)
		if len(f.Outputs) == 0 || f.Outputs[0].Vars[0] != "GITHUB_TOKEN" {
			t.Errorf("%s: secret output not seen: %+v", tail, f.Outputs)
		}
	}
}

// TestPartialIsAnAlias: functools.partial(f, …) calls f, with its bound
// keywords, so a partial wrapper does not hide the command.
func TestPartialIsAnAlias(t *testing.T) {
	for src, want := range map[string]string{
		"import os\nfrom functools import partial\nrun = partial(os.system)\nrun('sudo id')":                                 "sudo id",
		"import subprocess, functools\nsh = functools.partial(subprocess.run, shell=True)\nsh('rm -rf ~')":                   "rm -rf ~",
		"import subprocess\nfrom functools import partial\nsh = partial(subprocess.run, shell=True, check=True)\nsh(['ls'])": "",
	} {
		f, fb := analyzeSrc(src)
		got := ""
		for _, n := range fb.got {
			got = n.src
		}
		if want != "" && got != want {
			t.Errorf("%q: nested bash %q, want %q (calls %+v)", src, got, want, f.Calls)
		}
		named := false
		for _, c := range f.Calls {
			named = named || c.Name == "subprocess.run" || c.Name == "os.system"
		}
		if !named {
			t.Errorf("%q: the partial's function is not called: %+v", src, f.Calls)
		}
	}
}

// TestUnboundStrMethods: str.join(sep, parts) folds like sep.join(parts).
func TestUnboundStrMethods(t *testing.T) {
	f, fb := analyzeSrc("import os\nos.system(str.join(' ', ['sudo', 'id']))")
	if len(fb.got) != 1 || fb.got[0].src != "sudo id" {
		t.Errorf("str.join not folded: nested %+v calls %+v", fb.got, f.Calls)
	}
	f, _ = analyzeSrc("print(str.upper('abc'))")
	if c := findCallNamed(f, "print"); c == nil || len(c.Args) == 0 || c.Args[0].Str != "ABC" {
		t.Errorf("str.upper not folded: %+v", f.Calls)
	}
}

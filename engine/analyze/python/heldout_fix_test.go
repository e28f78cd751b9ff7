package python

import "testing"

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

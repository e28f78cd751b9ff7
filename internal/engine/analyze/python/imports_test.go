package python

import (
	"reflect"
	"testing"
)

func TestImports(t *testing.T) {
	src := "import os, localmod as lm\nfrom pkg.sub import a, b\nfrom . import sib\ndef f():\n    import inner\ntry:\n    from x import *\nexcept ImportError:\n    pass\n"
	got := Imports(src)
	want := []Import{
		{Module: "os", Line: 1}, {Module: "localmod", Line: 1},
		{Module: "pkg.sub", Names: []string{"a", "b"}, Line: 2},
		{Module: "", Level: 1, Names: []string{"sib"}, Line: 3},
		{Module: "inner", Line: 5},
		{Module: "x", Names: []string{"*"}, Line: 7},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Imports = %+v\nwant %+v", got, want)
	}
	if got := Imports("import (\n"); len(got) != 0 {
		t.Errorf("broken import: %+v", got)
	}
}

package gateway

import (
	"strings"
	"testing"
)

func TestDecodeArgumentsFindsEveryContentField(t *testing.T) {
	in, err := decodeArguments("srv_tool", map[string]any{
		"command":     []any{"rm", "-rf", "my dir"},
		"python_code": "import os",
		"path":        "/ignored/by/the/scan",
		"cwd":         "/tmp",
		"code_blocks": []any{map[string]any{"language": "bash", "code": "ls"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range in.pieces {
		got[p.Field] = p.Language + ":" + p.Content
	}
	want := map[string]string{"command": "bash:rm -rf 'my dir'", "python_code": "python:import os", "code_blocks": "bash:ls"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if in.req.Cwd != "/tmp" || in.req.ToolName != "srv_tool" {
		t.Errorf("request fields: %+v", in.req)
	}
}

func TestDecodeArgumentsFailsClosedOnUnreadableContent(t *testing.T) {
	for _, args := range []map[string]any{
		{"command": map[string]any{"x": "rm -rf /"}},
		{"script": []any{"rm -rf /"}},
		{"cmd": []any{"rm", 3.0}},
		{"language": "cobol", "code": "x"},
	} {
		if _, err := decodeArguments("t", args); err == nil {
			t.Errorf("%v was accepted", args)
		}
	}
	in, err := decodeArguments("t", map[string]any{"path": "a.txt", "command": "  "})
	if err != nil || len(in.pieces) != 0 {
		t.Fatalf("no content: %v %v", in, err)
	}
	if q := shellQuote("it's"); !strings.HasPrefix(q, "'") || q != `'it'\''s'` {
		t.Fatalf("quote %q", q)
	}
}

func TestRecordedArgumentsRedactEnvValues(t *testing.T) {
	args := map[string]any{"command": "deploy", "env": map[string]any{"API_TOKEN": "s3cret"}}
	got := recordedArguments(args)
	if got["env"].(map[string]any)["API_TOKEN"] != "<redacted>" || got["command"] != "deploy" {
		t.Fatalf("recorded %v", got)
	}
	if args["env"].(map[string]any)["API_TOKEN"] != "s3cret" {
		t.Fatal("the forwarded arguments were modified")
	}
}

// TestDecodeArgumentsReadsAliases: lang, args and argv are read as the scan
// API reads them; an args value that is not a list is the upstream tool's
// own; lists or languages that disagree fail closed.
func TestDecodeArgumentsReadsAliases(t *testing.T) {
	in, err := decodeArguments("t", map[string]any{"lang": "python", "code": "print(1)", "argv": []any{"a", float64(2)}})
	if err != nil {
		t.Fatal(err)
	}
	// The code, then its arguments judged as the command line they spell.
	if in.req.Language != "python" || len(in.pieces) != 2 || in.pieces[0].Language != "python" || !in.pieces[1].Context {
		t.Errorf("lang: %+v %+v, want python code and its arguments", in.req, in.pieces)
	}
	if got := in.req.CommandArgs; len(got) != 2 || got[0] != "a" || got[1] != "2" {
		t.Errorf("argv: %v, want [a 2]", got)
	}
	in, err = decodeArguments("t", map[string]any{"command": "rm", "args": []any{"-rf", "/"}})
	if err != nil || len(in.pieces) != 1 || in.pieces[0].Content != "rm '-rf' '/'" {
		t.Errorf("args: %+v %v, want the arguments on the command line", in, err)
	}
	if _, err := decodeArguments("t", map[string]any{"command": "ls", "args": map[string]any{"x": 1}}); err != nil {
		t.Errorf("args object (the tool's own): %v, want it left alone", err)
	}
	for _, args := range []map[string]any{
		{"command": "ls", "command_args": []any{"-l"}, "args": []any{"-rf", "/"}},
		{"code": "ls", "language": "bash", "lang": "python"},
		{"command": "ls", "argv": []any{map[string]any{}}},
	} {
		if _, err := decodeArguments("t", args); err == nil {
			t.Errorf("%v: no error, want the call refused", args)
		}
	}
}

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

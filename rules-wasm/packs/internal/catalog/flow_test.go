package catalog

import (
	"testing"

	"github.com/toolwarden/toolwarden/sdk"
)

func TestFileSourcesAndExecutedFile(t *testing.T) {
	f := &sdk.Facts{Commands: []sdk.Command{
		{ID: 1, Name: "echo", Args: []string{"cm0gLXJmIC8="}, Pipeline: 1},
		{ID: 2, Name: "base64", Args: []string{"-d"}, Pipeline: 1, Stage: 1, StdinSources: []int{1},
			Redirects: []sdk.Redirect{{Op: ">", Fd: -1, Target: "./x.sh"}}},
		{ID: 3, Name: "curl", Args: []string{"-fsSLo", "/tmp/i.sh", "https://h/i.sh"}},
		{ID: 4, Name: "wget", Args: []string{"https://h/get.sh?x=1"}},
		{ID: 5, Name: "curl", Args: []string{"-O", "https://h/a/b.py"}},
	}}
	src := FileSources(f)
	want := map[string]string{"x.sh": "base64", "/tmp/i.sh": "curl", "get.sh": "wget", "b.py": "curl"}
	for file, by := range want {
		found := false
		for _, c := range src[file] {
			if c.Name == by {
				found = true
			}
		}
		if !found {
			t.Errorf("FileSources[%q] lacks %s: %v", file, by, src[file])
		}
	}
	exec := map[string]sdk.Command{
		"x.sh":      {Name: "bash", Args: []string{"x.sh"}},
		"/tmp/i.sh": {Name: "i.sh", Path: "/tmp/i.sh"},
		"run.sh":    {Name: "run.sh", Path: "./run.sh"},
		"env.sh":    {Name: "source", Args: []string{"./env.sh"}},
		"":          {Name: "python3", Args: []string{"-c", "print(1)"}},
	}
	for want, c := range exec {
		if got := ExecutedFile(&c); got != want {
			t.Errorf("ExecutedFile(%+v) = %q, want %q", c, got, want)
		}
	}
	if got := ExecutedFile(&sdk.Command{Name: "ls", Path: "/usr/bin/ls"}); got != "" {
		t.Errorf("a system binary is not a script file: %q", got)
	}
}

package main

import (
	"testing"

	"github.com/toolwarden/toolwarden/sdk"
)

func TestJudgePush(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"push", "--force", "origin", "main"}, RuleForcePushProtected},
		{[]string{"push", "origin", "+main"}, RuleForcePushProtected},
		{[]string{"-C", "repo", "push", "-f", "origin", "HEAD:refs/heads/master"}, RuleForcePushProtected},
		{[]string{"push", "--force-with-lease"}, RuleForcePush},
		{[]string{"push", "-f", "origin", "feature/x"}, ""},
		{[]string{"push", "origin", "main"}, ""},
		{[]string{"status"}, ""},
	} {
		f, ok := judgePush(sdk.Command{Name: "git", Args: tc.args}, protected)
		if got := map[bool]string{true: f.RuleID}[ok]; got != tc.want {
			t.Errorf("git %v: rule %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestConfigReplacesProtected(t *testing.T) {
	in := &sdk.ScanInput{
		Facts:  &sdk.Facts{Commands: []sdk.Command{{Name: "git", Args: []string{"push", "-f", "origin", "main"}}, {Name: "git", Args: []string{"push", "-f", "origin", "trunk"}}}},
		Config: map[string]any{"protected": []any{"trunk"}},
	}
	got, err := Scan(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Metadata["branch"] != "trunk" {
		t.Fatalf("findings = %+v, want one for trunk", got)
	}
}

package guard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/toolwarden/toolwarden/sdk"
	"github.com/toolwarden/toolwarden/sdk/client"
	"github.com/toolwarden/toolwarden/sdk/guard"
)

// fakeToolwarden answers POST /v1/scan like a toolwarden server for the
// examples: deny for rm -rf, review for a redirection, allow otherwise
// (the real server and rules are exercised by the main module's tests).
func fakeToolwarden() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req client.ToolRequest
		_ = json.NewDecoder(r.Body).Decode(&req)
		content := req.Command + req.BashCode + req.PythonCode
		rep := sdk.SafetyReport{Decision: sdk.Allow, RiskLevel: sdk.RiskNone, Summary: "no findings"}
		switch {
		case strings.Contains(content, "rm -rf"):
			rep = sdk.SafetyReport{Decision: sdk.Deny, RiskLevel: sdk.RiskCritical, Blocked: true,
				Summary: "recursive delete of the filesystem root", Findings: []sdk.Finding{{RuleID: "BASH_RECURSIVE_DELETE"}}}
		case strings.Contains(content, ">"):
			rep = sdk.SafetyReport{Decision: sdk.NeedsHumanReview, RiskLevel: sdk.RiskMedium, Summary: "writes a file"}
		}
		_ = json.NewEncoder(w).Encode(rep)
	}))
}

func ExampleGuard_RunCommand() {
	srv := fakeToolwarden()
	defer srv.Close()
	c, _ := client.New(srv.URL, "tw_agent_token")
	g := &guard.Guard{Scanner: c}
	ctx := context.Background()

	res, err := g.RunCommand(ctx, "echo allow", guard.RunOptions{})
	fmt.Printf("%s %q %v\n", res.Report.Decision, res.Output, err)

	_, err = g.RunCommand(ctx, "rm -rf /", guard.RunOptions{})
	if rep, blocked := guard.IsBlocked(err); blocked {
		fmt.Println(err)
		fmt.Println(rep.RuleIDs())
	}
	// Output:
	// allow "allow\n" <nil>
	// TOOL_SAFETY_BLOCKED: deny: recursive delete of the filesystem root
	// [BASH_RECURSIVE_DELETE]
}

func ExampleGuard_Run() {
	srv := fakeToolwarden()
	defer srv.Close()
	c, _ := client.New(srv.URL, "tw_agent_token")
	// BlockOnReview blocks needs_human_review like deny.
	g := &guard.Guard{Scanner: c, BlockOnReview: true}
	rep, err := g.Run(context.Background(), client.ToolRequest{Command: "echo hi > out.txt"}, func(context.Context) error {
		fmt.Println("never printed: the call is blocked")
		return nil
	})
	fmt.Println(rep.Decision, rep.Blocked, err)
	// Output: needs_human_review true TOOL_SAFETY_BLOCKED: needs_human_review: writes a file
}

func ExampleWorkspace() {
	srv := fakeToolwarden()
	defer srv.Close()
	c, _ := client.New(srv.URL, "tw_agent_token")
	ws := &guard.Workspace{Guard: &guard.Guard{Scanner: c}, Dir: "/", Skill: "safety_demo"}
	res, err := ws.Run(context.Background(), "pwd")
	fmt.Printf("%q %v\n", res.Output, err)
	// Output: "/\n" <nil>
}

package client_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/toolwarden/toolwarden/sdk/client"
)

// fakeServer answers like a toolwarden server for the examples (the real
// server is exercised by the main module's tests of this client).
func fakeServer() *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/scan", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"decision":"deny","risk_level":"critical","blocked":true,"findings":[{"rule_id":"BASH_RECURSIVE_DELETE_ROOT"}]}`)
	})
	mux.HandleFunc("POST /v1/executions", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprint(w, `{"execution_id":"ex1","status":"running"}`)
	})
	mux.HandleFunc("POST /v1/executions/ex1/wait", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"execution_id":"ex1","status":"completed","result":"hello\n","exit_code":0}`)
	})
	mux.HandleFunc("GET /v1/executions/ex1/output", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"execution_id":"ex1","offset":0,"size":6,"eof":true,"data":"hello\n"}`)
	})
	return httptest.NewServer(mux)
}

func ExampleClient_Scan() {
	srv := fakeServer()
	defer srv.Close()
	c, _ := client.New(srv.URL, "tw_agent_token")
	rep, err := c.Scan(context.Background(), client.ToolRequest{Command: "rm -rf /"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rep.Decision, rep.Blocked)
	// Output: deny true
}

func ExampleClient_Wait() {
	srv := fakeServer()
	defer srv.Close()
	c, _ := client.New(srv.URL, "tw_agent_token")
	ctx := context.Background()
	wait := 0.0
	e, err := c.Submit(ctx, client.ToolRequest{Command: "echo hello", WaitSeconds: &wait})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Wait in 10 s steps, printing a progress line per step.
	e, err = c.Wait(ctx, e.ExecutionID, 10*time.Second, func(e *client.Execution) { fmt.Println("still", e.Status) })
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s %q\n", e.Status, e.Result)
	// Output: completed "hello\n"
}

func ExampleClient_OutputReader() {
	srv := fakeServer()
	defer srv.Close()
	c, _ := client.New(srv.URL, "tw_agent_token")
	var sb strings.Builder
	if _, err := io.Copy(&sb, c.OutputReader(context.Background(), "ex1", 0)); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(sb.String())
	// Output: hello
}

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// mcpSession is a `toolwarden mcp` process spoken to over stdio, as an MCP
// client that starts its servers as subprocesses would.
type mcpSession struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string // every stdout line, in order
	stderr *lockedBuffer
	nextID int
	done   chan struct{} // closed when the process has exited
	err    error         // the process's exit error, once done is closed
}

// lockedBuffer is a bytes.Buffer safe for a writer goroutine and a reader.
type lockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startMCP starts `toolwarden mcp ARGS` with its data in a fresh directory
// and returns the session; it is stopped when the test ends.
func startMCP(t *testing.T, env []string, args ...string) *mcpSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), commandDeadline)
	data := filepath.Join(workspace(t), "data")
	cmd := exec.CommandContext(ctx, bin, append([]string{"mcp", "--data-dir", data}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	s := &mcpSession{t: t, cmd: cmd, lines: make(chan string, 64), stderr: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stderr = s.stderr
	var err error
	if s.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start toolwarden mcp: %v", err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
		s.err = cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		_ = s.stdin.Close()
		select {
		case <-s.done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
		}
		cancel()
	})
	return s
}

// rpcResponse is a JSON-RPC response.
type rpcResponse struct {
	ID     *int            `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// notify sends a JSON-RPC notification.
func (s *mcpSession) notify(method string) {
	s.t.Helper()
	s.send(map[string]any{"jsonrpc": "2.0", "method": method})
}

func (s *mcpSession) send(msg map[string]any) {
	s.t.Helper()
	b, err := json.Marshal(msg)
	if err != nil {
		s.t.Fatal(err)
	}
	if _, err := s.stdin.Write(append(b, '\n')); err != nil {
		s.t.Fatalf("write to toolwarden mcp: %v\nstderr:\n%s", err, s.stderr)
	}
}

// call sends a request and returns its result. Every stdout line read on
// the way must be a JSON-RPC message: stdout carries the protocol only.
func (s *mcpSession) call(method string, params any) json.RawMessage {
	s.t.Helper()
	s.nextID++
	id := s.nextID
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	s.send(msg)
	timeout := time.After(commandDeadline)
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				s.t.Fatalf("toolwarden mcp closed stdout before answering %s\nstderr:\n%s", method, s.stderr)
			}
			var r rpcResponse
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				s.t.Fatalf("stdout line is not JSON-RPC: %v\n%s", err, clip(line))
			}
			if r.ID == nil || *r.ID != id {
				continue // a notification or another answer
			}
			if r.Error != nil {
				s.t.Fatalf("%s: JSON-RPC error %d: %s", method, r.Error.Code, r.Error.Message)
			}
			return r.Result
		case <-timeout:
			s.t.Fatalf("no answer to %s after %s\nstderr:\n%s", method, commandDeadline, s.stderr)
		}
	}
}

// toolResult is the result of tools/call.
type toolResult struct {
	IsError bool `json:"isError"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// tool calls an MCP tool and decodes the JSON document in its first text
// content into out.
func (s *mcpSession) tool(name string, args map[string]any, out any) toolResult {
	s.t.Helper()
	raw := s.call("tools/call", map[string]any{"name": name, "arguments": args})
	var tr toolResult
	if err := json.Unmarshal(raw, &tr); err != nil {
		s.t.Fatalf("%s result: %v\n%s", name, err, clip(string(raw)))
	}
	if len(tr.Content) == 0 || tr.Content[0].Type != "text" {
		s.t.Fatalf("%s result has no text content: %s", name, clip(string(raw)))
	}
	if err := json.Unmarshal([]byte(tr.Content[0].Text), out); err != nil {
		s.t.Fatalf("%s text content is not JSON: %v\n%s", name, err, clip(tr.Content[0].Text))
	}
	return tr
}

// initialize performs the MCP handshake and returns the server's name.
func (s *mcpSession) initialize() string {
	s.t.Helper()
	raw := s.call("initialize", map[string]any{
		"protocolVersion": "2025-03-26",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "cmd-toolwarden-test", "version": "1"},
	})
	var init struct {
		ServerInfo struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	if err := json.Unmarshal(raw, &init); err != nil {
		s.t.Fatalf("initialize result: %v", err)
	}
	s.notify("notifications/initialized")
	return init.ServerInfo.Name
}

// execRecord is the part of an execution record the tests read.
type execRecord struct {
	ExecutionID      string          `json:"execution_id"`
	Status           string          `json:"status"`
	ExitCode         *int            `json:"exit_code"`
	Result           string          `json:"result"`
	IsolationBackend string          `json:"isolation_backend"`
	SafetyReport     json.RawMessage `json:"safety_report"`
}

func TestMCPStdioScanOnly(t *testing.T) {
	s := startMCP(t, nil, "--no-executor")
	if name := s.initialize(); name != "toolwarden" {
		t.Errorf("serverInfo.name %q, want toolwarden", name)
	}

	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(s.call("tools/list", nil), &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"scan", "exec", "run_python", "get_tool_execution", "wait_tool_execution", "cancel_tool_execution"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list = %v, missing %s", names, want)
		}
	}

	// The scan tool answers with the same SafetyReport the CLI prints.
	var raw json.RawMessage
	s.tool("scan", map[string]any{"command": "rm -rf /"}, &raw)
	rep := checkReport(t, "scan tool report", string(raw))
	if rep.Decision != "deny" || !hasRule(rep, "BASH_RECURSIVE_DELETE") {
		t.Errorf("scan rm -rf /: decision %s rules %v, want deny by BASH_RECURSIVE_DELETE", rep.Decision, rep.RuleIDs())
	}
	s.tool("scan", map[string]any{"code": "import os\nos.system('ls')\n"}, &raw)
	if rep := checkReport(t, "scan tool report", string(raw)); rep.Language != "python" {
		t.Errorf("scan of python code: language %q", rep.Language)
	}

	// Closing stdin ends the session cleanly.
	_ = s.stdin.Close()
	select {
	case <-s.done:
		if s.err != nil {
			t.Errorf("toolwarden mcp exited with %v after stdin closed\nstderr:\n%s", s.err, s.stderr)
		}
	case <-time.After(commandDeadline):
		t.Fatalf("toolwarden mcp still running after stdin closed")
	}
}

// startMCPWithExecutor starts `toolwarden mcp` with its embedded executor.
// When another toolwarden on the host holds the exclusive cgroup root the
// session cannot start under auto isolation; it is then started under
// process_group (logged), so the tool behaviour is still checked.
func startMCPWithExecutor(t *testing.T) *mcpSession {
	t.Helper()
	s := startMCP(t, nil)
	// A ping is answered once the session serves, and fails fast when the
	// process exits at start.
	s.nextID++
	id := s.nextID
	s.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "ping"})
	select {
	case line, open := <-s.lines:
		if open {
			var r rpcResponse
			if json.Unmarshal([]byte(line), &r) == nil && r.ID != nil && *r.ID == id {
				return s
			}
			t.Fatalf("unexpected first line from toolwarden mcp: %s", clip(line))
		}
	case <-time.After(commandDeadline):
		t.Fatalf("toolwarden mcp did not answer ping\nstderr:\n%s", s.stderr)
	}
	if !strings.Contains(s.stderr.String(), busyRoot) {
		t.Fatalf("toolwarden mcp exited at start:\n%s", s.stderr)
	}
	t.Logf("cgroup root busy (another toolwarden runs on this host); using process_group:\n%s", s.stderr)
	return startMCP(t, []string{"TOOLWARDEN_ISOLATION_MODE=process_group"})
}

func TestMCPStdioExec(t *testing.T) {
	s := startMCPWithExecutor(t)
	s.initialize()
	ws := workspace(t)

	var ex execRecord
	tr := s.tool("exec", map[string]any{"command": "echo hi"}, &ex)
	if tr.IsError || ex.Status != "completed" || ex.Result != "hi\n" || ex.ExitCode == nil || *ex.ExitCode != 0 {
		t.Errorf("exec echo hi: isError %v status %q result %q exit %v", tr.IsError, ex.Status, ex.Result, ex.ExitCode)
	}
	if ex.IsolationBackend == "" || ex.ExecutionID == "" {
		t.Errorf("exec echo hi: isolation_backend %q execution_id %q, want both set", ex.IsolationBackend, ex.ExecutionID)
	}

	// get_tool_execution returns the same canonical result.
	var got execRecord
	s.tool("get_tool_execution", map[string]any{"execution_id": ex.ExecutionID}, &got)
	if got.ExecutionID != ex.ExecutionID || got.Result != ex.Result || got.Status != ex.Status {
		t.Errorf("get_tool_execution = %+v, want the exec result %+v", got, ex)
	}

	// A denied call is blocked and nothing runs.
	marker := filepath.Join(ws, "MARKER")
	ex = execRecord{}
	tr = s.tool("exec", map[string]any{"command": "touch " + marker + " && rm -rf /"}, &ex)
	if !tr.IsError || ex.Status != "blocked" {
		t.Errorf("exec of rm -rf /: isError %v status %q, want a blocked error", tr.IsError, ex.Status)
	}
	if rep := checkReport(t, "blocked exec's safety_report", string(ex.SafetyReport)); rep.Decision != "deny" {
		t.Errorf("blocked exec: decision %s", rep.Decision)
	}
	if exists(t, marker) {
		t.Errorf("a blocked exec ran: %s exists", marker)
	}

	// run_python runs Python.
	ex = execRecord{}
	s.tool("run_python", map[string]any{"code": "print(6 * 7)\n", "cwd": "."}, &ex)
	if ex.Status != "completed" || ex.Result != "42\n" {
		t.Errorf("run_python: status %q result %q, want completed and 42", ex.Status, ex.Result)
	}
	if t.Failed() {
		t.Logf("stderr of toolwarden mcp:\n%s", s.stderr)
	}
}

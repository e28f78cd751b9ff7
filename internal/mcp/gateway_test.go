package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/mcp"
	"github.com/toolwarden/toolwarden/internal/mcp/gateway"
)

// clock is a settable clock for the breakers.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type upstreamStats struct {
	Max   int `json:"max"`
	Calls []struct {
		Start int64 `json:"start"`
		End   int64 `json:"end"`
	} `json:"calls"`
	Cancelled int `json:"cancelled"`
}

func stats(t *testing.T, g *gateway.Gateway, server string) upstreamStats {
	t.Helper()
	st, err := readStats(g, server)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// readStats asks an upstream for its counters, through the gateway.
func readStats(g *gateway.Gateway, server string) (upstreamStats, error) {
	var st upstreamStats
	res, err := g.CallServer(context.Background(), server, "stats", nil, "tester")
	if err != nil || res.IsError {
		return st, fmt.Errorf("stats of %s: %v %s", server, err, text(res))
	}
	err = json.Unmarshal([]byte(res.Content[0].(mcpgo.TextContent).Text), &st)
	return st, err
}

// The breaker opens after three failed upstream calls, refuses the next
// call without forwarding it (mcp_circuit_open), and closes after a good
// probe once the cooldown has passed on the injected clock.
func TestGatewayCircuitBreakerWithRealUpstream(t *testing.T) {
	svc := newService(t)
	clk := &clock{t: time.Unix(1_000_000, 0)}
	g := newGateway(t, svc, gateway.Config{Servers: []gateway.ServerConfig{upstreamConfig("up")}},
		gateway.Options{Wait: waitFor, Now: clk.now})
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		res, err := g.CallServer(ctx, "up", "fail", nil, "tester")
		if err != nil || !res.IsError || !strings.Contains(text(res), "upstream failure") {
			t.Fatalf("failing call %d: %v %s", i, err, text(res))
		}
	}
	if st := g.Breaker("up").State(); st != gateway.CircuitOpen {
		t.Fatalf("breaker %s after 3 failures", st)
	}
	res, err := g.CallServer(ctx, "up", "slow", map[string]any{"seconds": 0}, "tester")
	if err != nil || !res.IsError || !strings.Contains(text(res), "mcp_circuit_open") {
		t.Fatalf("open circuit: %v %s", err, text(res))
	}
	clk.advance(61 * time.Second)
	res, err = g.CallServer(ctx, "up", "slow", map[string]any{"seconds": 0}, "tester")
	if err != nil || res.IsError {
		t.Fatalf("probe: %v %s", err, text(res))
	}
	if st := g.Breaker("up").State(); st != gateway.CircuitClosed {
		t.Fatalf("breaker %s after a good probe", st)
	}
	// Only the probe reached the upstream's slow tool: the refused call was
	// never forwarded.
	if st := stats(t, g, "up"); len(st.Calls) != 1 {
		t.Fatalf("upstream saw %d slow calls, want 1", len(st.Calls))
	}
}

// Parallel calls never exceed the per-server cap on any upstream nor the
// global cap over all of them, as counted by the upstreams themselves.
func TestGatewayConcurrencyCaps(t *testing.T) {
	svc := newService(t)
	g := newGateway(t, svc, gateway.Config{MaxConcurrentPerServer: 2, MaxConcurrentTotal: 3,
		Servers: []gateway.ServerConfig{upstreamConfig("a"), upstreamConfig("b")}},
		gateway.Options{Wait: waitFor})
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for i := 0; i < 12; i++ {
		server := []string{"a", "b"}[i%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := g.CallServer(context.Background(), server, "slow", map[string]any{"seconds": 0.2}, "tester")
			if err != nil || res.IsError {
				errs <- text(res)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("call failed: %s", e)
	}
	type edge struct {
		at    int64
		delta int
	}
	var edges []edge
	for _, name := range []string{"a", "b"} {
		st := stats(t, g, name)
		if st.Max < 1 || st.Max > 2 {
			t.Errorf("server %s ran %d calls at once; cap 2", name, st.Max)
		}
		if len(st.Calls) != 6 {
			t.Errorf("server %s ran %d calls, want 6", name, len(st.Calls))
		}
		for _, c := range st.Calls {
			edges = append(edges, edge{c.Start, +1}, edge{c.End, -1})
		}
	}
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].at != edges[j].at {
			return edges[i].at < edges[j].at
		}
		return edges[i].delta < edges[j].delta
	})
	cur, peak := 0, 0
	for _, e := range edges {
		cur += e.delta
		peak = max(peak, cur)
	}
	if peak > 3 {
		t.Fatalf("%d calls ran at once over both servers; global cap 3", peak)
	}
}

// stdioClient serves m over in-memory pipes, as `toolwarden mcp` serves
// its stdin and stdout, and connects an mcp-go client to it.
func stdioClient(t *testing.T, m *mcp.Server) *client.Client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	clientRead, serverWrite := io.Pipe()
	serverRead, clientWrite := io.Pipe()
	done := make(chan struct{})
	go func() { defer close(done); m.ServeStdio(ctx, serverRead, serverWrite) }()
	c := client.NewClient(transport.NewIO(clientRead, clientWrite, io.NopCloser(strings.NewReader(""))))
	t.Cleanup(func() {
		c.Close()
		cancel()
		serverWrite.Close()
		serverRead.Close()
		<-done
	})
	ictx, icancel := context.WithTimeout(ctx, waitFor)
	defer icancel()
	if err := c.Start(ictx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ictx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
		ClientInfo: mcpgo.Implementation{Name: "stdio-agent", Version: "1"}}}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c
}

// Over stdio, with a fixed agent identity: a call waiting for a
// concurrency slot is cancelled cleanly (never forwarded); a forwarded
// call that is cancelled gets MCP cancellation, and since the upstream
// cannot confirm it stopped, its record ends orphaned with
// cleanup_unconfirmed — never cancelled.
func TestStdioCancelledUpstreamCallEndsOrphaned(t *testing.T) {
	svc := newService(t)
	g := newGateway(t, svc, gateway.Config{MaxConcurrentPerServer: 1,
		Servers: []gateway.ServerConfig{upstreamConfig("demo")}},
		gateway.Options{Wait: 300 * time.Millisecond})
	m, err := mcp.NewServer(mcp.Options{Service: svc, Gateway: g,
		Identify: mcp.FixedIdentity(mcp.Caller{ID: "stdio-agent"}), Wait: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	c := stdioClient(t, m)

	first := call(t, c, "demo_slow", map[string]any{"seconds": 120})
	fm := object(t, first)
	if first.IsError || fm["status"] != "running" || fm["wait_timed_out"] != true {
		t.Fatalf("slow call: is_error=%v %s", first.IsError, text(first))
	}
	// The second call waits for the server's only slot.
	second := object(t, call(t, c, "demo_slow", map[string]any{"seconds": 120}))
	if second["owner_key_id"] != "stdio-agent" {
		t.Fatalf("owner %v", second["owner_key_id"])
	}
	got := object(t, call(t, c, "cancel_tool_execution", map[string]any{"execution_id": second["execution_id"]}))
	if got["status"] != "cancelled" || got["cleanup"] != "cleaned" {
		t.Fatalf("cancelled while waiting for a slot: %v", got)
	}

	got = object(t, call(t, c, "cancel_tool_execution", map[string]any{"execution_id": fm["execution_id"], "reason": "agent gave up"}))
	if got["status"] != "orphaned" || got["cleanup"] != "cleanup_unconfirmed" || got["status_reason"] != "agent gave up" {
		t.Fatalf("cancelled upstream call: %v", got)
	}
	again := object(t, call(t, c, "get_tool_execution", map[string]any{"execution_id": fm["execution_id"]}))
	if again["status"] != "orphaned" {
		t.Fatalf("record changed: %v", again)
	}
	// The cancellation reached the upstream: its handler saw its context end.
	deadline := time.Now().Add(waitFor)
	for stats(t, g, "demo").Cancelled != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the upstream never saw notifications/cancelled")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Over stdio the toolwarden tools act as the fixed identity: a denied exec
// is blocked with its report and recorded under that owner.
func TestStdioExecBlockedAsFixedIdentity(t *testing.T) {
	svc := newService(t)
	m, err := mcp.NewServer(mcp.Options{Service: svc, Identify: mcp.FixedIdentity(mcp.Caller{ID: "stdio-agent"})})
	if err != nil {
		t.Fatal(err)
	}
	c := stdioClient(t, m)
	res := call(t, c, "run_python", map[string]any{"code": "import os\nos.system('rm -rf /')", "wait_seconds": 0})
	rm := object(t, res)
	if !res.IsError || rm["status"] != "blocked" || decision(rm) != "deny" || rm["owner_key_id"] != "stdio-agent" {
		t.Fatalf("run_python deny: is_error=%v %s", res.IsError, text(res))
	}
	bad := call(t, c, "get_tool_execution", map[string]any{"execution_id": rm["execution_id"], "partial_output_max_bytes": 70000})
	if !bad.IsError || !strings.Contains(text(bad), "partial_output_max_bytes") {
		t.Fatalf("out-of-range preview bound accepted: %s", text(bad))
	}
}

// An upstream answer over the result cap is spilled whole and replaced by
// the <persisted-output> preview, with the safety_report kept beside it.
func TestGatewayReducesOversizedResults(t *testing.T) {
	svc := newService(t)
	root := t.TempDir()
	g := newGateway(t, svc, gateway.Config{Servers: []gateway.ServerConfig{upstreamConfig("up")}},
		gateway.Options{Wait: waitFor, MaxResultBytes: 2048, ReductionRoot: root})
	long := "echo " + strings.Repeat("a", 6000)
	res, err := g.CallServer(context.Background(), "up", "run_shell_command", map[string]any{"command": long}, "tester")
	if err != nil || res.IsError || len(res.Content) != 2 {
		t.Fatalf("%v %s", err, text(res))
	}
	preview := res.Content[0].(mcpgo.TextContent).Text
	if !strings.Contains(preview, "<persisted-output>") || len(preview) > 2048 {
		t.Fatalf("preview (%d bytes): %.300s", len(preview), preview)
	}
	var meta map[string]any
	if err := json.Unmarshal([]byte(res.Content[1].(mcpgo.TextContent).Text), &meta); err != nil || decision(meta) != "allow" {
		t.Fatalf("report item: %v %v", err, meta)
	}
	rec, err := g.Store().Get(context.Background(), meta["execution_id"].(string))
	if err != nil || rec.SpillPath == "" || !strings.HasPrefix(rec.SpillPath, root) {
		t.Fatalf("spill path %q: %v", rec.SpillPath, err)
	}
	full, err := os.ReadFile(rec.SpillPath)
	if err != nil || !strings.Contains(string(full), strings.Repeat("a", 6000)) {
		t.Fatalf("spilled output incomplete: %v (%d bytes)", err, len(full))
	}
}

// A stdio upstream that crashed is restarted on the next call.
func TestGatewayRestartsCrashedStdioUpstream(t *testing.T) {
	svc := newService(t)
	g := newGateway(t, svc, gateway.Config{Servers: []gateway.ServerConfig{upstreamConfig("up")}},
		gateway.Options{Wait: waitFor})
	res, err := g.CallServer(context.Background(), "up", "crash", nil, "tester")
	if err != nil || !res.IsError {
		t.Fatalf("crash call: %v %s", err, text(res))
	}
	res, err = g.CallServer(context.Background(), "up", "run_shell_command", map[string]any{"command": "echo back"}, "tester")
	if err != nil || res.IsError || !strings.Contains(text(res), `"dry_run":true`) {
		t.Fatalf("after the crash: %v %s", err, text(res))
	}
}

// A client that cancels its tools/call (mcp-go sends notifications/cancelled
// when the call's context ends) cancels the upstream call too; the record
// says so and, unconfirmed by the upstream, ends orphaned.
func TestClientCancellingAToolsCallCancelsTheUpstreamCall(t *testing.T) {
	svc := newService(t)
	g := newGateway(t, svc, gateway.Config{Servers: []gateway.ServerConfig{upstreamConfig("demo")}},
		gateway.Options{Wait: waitFor})
	m, err := mcp.NewServer(mcp.Options{Service: svc, Gateway: g, Identify: mcp.FixedIdentity(mcp.Caller{ID: "stdio-agent"})})
	if err != nil {
		t.Fatal(err)
	}
	c := stdioClient(t, m)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Cancel once the upstream runs the call.
		defer cancel()
		for end := time.Now().Add(waitFor); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			if st, err := readStats(g, "demo"); err != nil || st.Max > 0 {
				return
			}
		}
	}()
	if _, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: "demo_slow",
		Arguments: map[string]any{"seconds": 120}}}); err == nil {
		t.Fatal("the cancelled call returned a result")
	}
	deadline := time.Now().Add(waitFor)
	for {
		recs, _, err := g.Store().List(context.Background(), execution.Filter{Owner: "stdio-agent"})
		if err != nil {
			t.Fatal(err)
		}
		var slow *execution.Record
		for _, r := range recs {
			if r.ToolName == "demo_slow" {
				slow = r
			}
		}
		if slow != nil && slow.Status.Terminal() {
			if slow.Status != execution.StatusOrphaned || slow.Cleanup != execution.CleanupUnconfirmed ||
				slow.StatusReason != gateway.ClientCancelledReason {
				t.Fatalf("record: %s %s %q", slow.Status, slow.Cleanup, slow.StatusReason)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the upstream call was not cancelled: %+v", slow)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for stats(t, g, "demo").Cancelled != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the upstream never saw the cancellation")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

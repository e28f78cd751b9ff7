package mcp_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/toolwarden/toolwarden/internal/auth"
	"github.com/toolwarden/toolwarden/internal/executor"
	"github.com/toolwarden/toolwarden/internal/isolation"
	"github.com/toolwarden/toolwarden/internal/mcp"
	"github.com/toolwarden/toolwarden/internal/mcp/gateway"
	"github.com/toolwarden/toolwarden/internal/server"
	"github.com/toolwarden/toolwarden/internal/service"
)

// httpFixture is toolwarden's API server with /mcp mounted, an embedded
// executor and a gateway in front of one test upstream ("demo").
type httpFixture struct {
	url           string
	svc           *service.Service
	gw            *gateway.Gateway
	agent, agent2 string
}

func newHTTPFixture(t *testing.T, withExecutor bool) *httpFixture {
	t.Helper()
	svc := newService(t)
	keys, err := auth.Open(filepath.Join(t.TempDir(), "keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	f := &httpFixture{svc: svc}
	f.agent, _, _ = keys.Create("agent", auth.RoleAgent)
	f.agent2, _, _ = keys.Create("agent2", auth.RoleAgent)
	f.gw = newGateway(t, svc, gateway.Config{Servers: []gateway.ServerConfig{upstreamConfig("demo")}},
		gateway.Options{Wait: waitFor})
	srv := server.New(server.Config{WaitTimeout: time.Second}, svc.Engine, svc.Backend, keys)
	// As in serve: both doors share one service.
	m, err := mcp.NewServer(mcp.Options{Service: srv.Service(), Gateway: f.gw, Wait: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	srv.Mount("/mcp", m.HTTPHandler(), auth.RoleAgent)
	if withExecutor {
		startExecutor(t, svc)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	f.url = hs.URL
	return f
}

// startExecutor runs an executor on the service's store under the
// process-group isolation backend.
func startExecutor(t *testing.T, svc *service.Service) {
	t.Helper()
	iso, err := isolation.Open(context.Background(), isolation.Config{Mode: isolation.ModeProcessGroup})
	if err != nil {
		t.Fatalf("open isolation: %v", err)
	}
	ws, err := os.MkdirTemp("", "mcp-ws-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(ws, 0o777)
	d, err := executor.New(svc.Backend, iso, executor.Config{Concurrency: 2, Exclusive: true, WorkspaceRoot: ws,
		HeartbeatInterval: 200 * time.Millisecond, ClaimBlock: 200 * time.Millisecond, PartialInterval: 50 * time.Millisecond,
		ReductionRoot: filepath.Join(ws, ".reduction")})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); d.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		iso.Close()
		os.RemoveAll(ws)
	})
}

// connect opens an mcp-go streamable-HTTP client with an API key.
func (f *httpFixture) connect(t *testing.T, key string) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(f.url+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + key}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
		ClientInfo: mcpgo.Implementation{Name: "test-agent", Version: "1"}}}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c
}

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/toolwarden/toolwarden/internal/config"
	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/execution/embedded"
	"github.com/toolwarden/toolwarden/internal/execution/redisq"
	"github.com/toolwarden/toolwarden/internal/mcp"
	"github.com/toolwarden/toolwarden/internal/mcp/gateway"
	"github.com/toolwarden/toolwarden/internal/service"
	wsp "github.com/toolwarden/toolwarden/internal/workspace"
)

func init() { subcommands = append(subcommands, newMCPCmd) }

// mcpFlags are the flags of `toolwarden mcp`.
type mcpFlags struct {
	stackFlags
	identity string
}

func newMCPCmd() *cobra.Command {
	var f mcpFlags
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the MCP tools (and the guarded MCP gateway) on stdin/stdout",
		Long: `mcp serves toolwarden's MCP tools — scan, exec, run_python, get_tool_execution, wait_tool_execution,
cancel_tool_execution — and the tools of the upstream MCP servers configured under "mcp:" (under their
prefix, every call scanned first) over stdio, for MCP clients that start their servers as a subprocess.

Identity: there is no API key on stdio. The session acts as the agent named by --identity: the records it
creates carry that owner, and it sees only records with that owner. Whoever can start this process has that
identity, so the operating-system user is the access boundary.

Store and executor: like serve, it uses the embedded store in --data-dir and runs an embedded executor. The
embedded store is locked by one process: to share executions with a running 'toolwarden serve', use --redis
(and --no-executor when executors run elsewhere), or give this process its own --data-dir.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.load(cmd.Flags())
			if err != nil {
				return usageErr(err)
			}
			if f.identity == "" {
				return usageErr(errors.New("--identity must not be empty"))
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return serveMCPStdio(ctx, cfg, f.identity)
		},
	}
	fl := cmd.Flags()
	f.register(fl, "YAML configuration file (the mcp: section lists upstream MCP servers)",
		"directory for the embedded store and spilled output", "Redis URL: share queue and store with serve and other executors")
	fl.StringVar(&f.identity, "identity", "mcp-stdio", "owner id the stdio session acts as (an agent: sees only its own executions)")
	return cmd
}

// serveMCPStdio runs the stdio MCP server until stdin closes or ctx ends.
// stdout carries the protocol only; logs go to stderr.
func serveMCPStdio(ctx context.Context, cfg config.Config, identity string) error {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := openStack(ctx, cfg, log)
	if err != nil {
		return usageErr(err)
	}
	defer st.close()
	pol := st.pol
	svc := &service.Service{Engine: st.eng, Backend: st.backend, MaxTimeout: cfg.ToolTimeout(),
		Workspaces:     wsp.Locator{Root: cfg.WorkspaceRoot()},
		MaxResultBytes: cfg.MaxResultBytes(), ReductionRoot: cfg.ReductionRoot()}
	scans, closeScans, err := openScanLog(cfg, log)
	if err != nil {
		return usageErr(err)
	}
	defer closeScans()
	if scans != nil {
		svc.ScanLog = scans
	}

	srv, closeMCP, err := newMCPServer(ctx, cfg, svc, mcp.FixedIdentity(mcp.Caller{ID: identity}), log)
	if err != nil {
		return usageErr(err)
	}
	defer closeMCP()
	log.Info("toolwarden mcp: serving on stdio", "identity", identity, "policy", pol.Name, "store", storeName(cfg))
	err = srv.ServeStdio(ctx, os.Stdin, os.Stdout)
	cancel()
	st.wait(log)
	return err
}

// newMCPServer builds the MCP server over svc and, when upstream servers
// are configured, the guarded gateway with a store of its own (see
// openGatewayStore). Upstreams that cannot be reached are logged and left
// out; a bad mcp: section is an error. close stops the gateway.
func newMCPServer(ctx context.Context, cfg config.Config, svc *service.Service, ident mcp.IdentifyFunc, log *slog.Logger) (*mcp.Server, func(), error) {
	closers := []func(){}
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	var gw *gateway.Gateway
	if len(cfg.MCP.Servers) > 0 {
		if err := cfg.MCP.Validate(); err != nil {
			return nil, nil, fmt.Errorf("config %w", err)
		}
		workerID := gatewayWorkerID()
		store, err := openGatewayStore(ctx, cfg, workerID)
		if err != nil {
			return nil, nil, err
		}
		closers = append(closers, func() { store.Close() })
		// The embedded gateway store is this process's alone: a call left
		// running by an earlier process is orphaned at start. A Redis
		// records keyspace is shared, so leases alone decide there.
		gw, err = gateway.New(cfg.MCP, gateway.Options{Scanner: svc, Store: store, WorkerID: workerID, Exclusive: cfg.RedisURL == "",
			Wait: cfg.WaitTimeout(), Logger: log, MaxResultBytes: cfg.MaxResultBytes(), ReductionRoot: cfg.ReductionRoot()})
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		if err := gw.Connect(ctx); err != nil {
			log.Error("mcp gateway: some upstream servers are unavailable; their tools are not offered", "err", err)
		}
		closers = append(closers, func() { gw.Close() })
	}
	srv, err := mcp.NewServer(mcp.Options{Service: svc, Gateway: gw, Identify: ident, Wait: cfg.WaitTimeout()})
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	return srv, closeAll, nil
}

// gatewayWorkerID names this process's gateway in leases.
func gatewayWorkerID() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("mcp-gateway-%s-%d", host, os.Getpid())
}

// openGatewayStore opens the store of the gateway's execution records. It
// must not be the executors' queue (an executor would claim the gateway's
// records): with Redis it is the same records keyspace — so the REST API
// and the panel see upstream calls — with a stream of its own; embedded, a
// separate store under <data_dir>/mcp-gateway, whose records the MCP
// get/wait/cancel tools find.
func openGatewayStore(ctx context.Context, cfg config.Config, workerID string) (execution.Backend, error) {
	if cfg.RedisURL != "" {
		master, err := masterKey(cfg)
		if err != nil {
			return nil, err
		}
		o := redisOptions(cfg, master)
		o.Pool = workerID
		b, err := redisq.Open(ctx, o)
		if err != nil {
			return nil, fmt.Errorf("open redis store for the mcp gateway: %w", err)
		}
		return b, nil
	}
	dir := filepath.Join(cfg.DataDir, "mcp-gateway")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create mcp gateway store dir: %w", err)
	}
	b, err := embedded.Open(dir, embedded.Options{})
	if err != nil {
		return nil, fmt.Errorf("open mcp gateway store in %s: %w", dir, err)
	}
	return b, nil
}

package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolwarden/toolwarden/internal/auth"
	"github.com/toolwarden/toolwarden/internal/config"
	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/execution/embedded"
	"github.com/toolwarden/toolwarden/internal/execution/redisq"
	"github.com/toolwarden/toolwarden/internal/executor"
	"github.com/toolwarden/toolwarden/internal/mcp"
	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/internal/server"
	"github.com/toolwarden/toolwarden/internal/webui"
	wsp "github.com/toolwarden/toolwarden/internal/workspace"
	"github.com/toolwarden/toolwarden/sdk"
)

func init() { subcommands = append(subcommands, newServeCmd) }

// serveFlags are the flags of `toolwarden serve`; set flags override the
// configuration file and the environment.
type serveFlags struct {
	stackFlags
	listen string
	// bodyLimit caps request bodies (server.Config.BodyLimit); 413
	// answers state it.
	bodyLimit string
	// queueStale is server.Config.QueueStaleAfter: queued work older than
	// this makes /readyz fail.
	queueStale time.Duration
}

func newServeCmd() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the API server (and, unless --no-executor, an embedded executor)",
		Long: `serve starts the HTTP API on --listen (loopback by default) with the built-in rule packs and the policy,
stores executions in the embedded store under --data-dir (or in Redis with --redis), and runs an embedded
executor that executes allowed calls under OS isolation. On first start without TOOLWARDEN_ADMIN_KEY it
creates an admin API key and prints it once.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.load(cmd.Flags())
			if err != nil {
				return usageErr(err)
			}
			if cmd.Flags().Changed("listen") {
				cfg.Listen = f.listen
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return serve(ctx, cfg, serveExtras{bodyLimit: f.bodyLimit, queueStale: f.queueStale}, cmd.OutOrStdout())
		},
	}
	fl := cmd.Flags()
	f.register(fl, "YAML configuration file", "directory for the embedded store, API keys and spilled output",
		"Redis URL (redis://host:6379/0): share queue, store and API keys with other servers and executors")
	fl.StringVar(&f.listen, "listen", "127.0.0.1:8080", "address to listen on")
	fl.StringVar(&f.bodyLimit, "body-limit", envOr("TOOLWARDEN_BODY_LIMIT", "2M"), "largest request body accepted, e.g. 512K, 2M, 10M (env TOOLWARDEN_BODY_LIMIT)")
	fl.DurationVar(&f.queueStale, "queue-stale-after", server.DefaultQueueStaleAfter, "/readyz fails while queued work has waited longer than this (negative: never)")
	return cmd
}

// openPolicy loads the configured policy; built-in names take the
// TOOLWARDEN_* policy overrides from the environment like files do.
func openPolicy(name string) (*sdk.Policy, error) {
	if name == "" {
		name = "default"
	}
	switch name {
	case "default", "strict":
		p, err := policies.Builtin(name)
		if err != nil {
			return nil, err
		}
		return policies.ApplyEnv(p)
	}
	return policies.Load(name)
}

// openBackend opens the Redis backend when a URL is configured, else the
// embedded store in the data directory.
func openBackend(ctx context.Context, cfg config.Config) (execution.Backend, error) {
	if cfg.RedisURL != "" {
		master, err := masterKey(cfg)
		if err != nil {
			return nil, err
		}
		b, err := redisq.Open(ctx, redisOptions(cfg, master))
		if err != nil {
			return nil, fmt.Errorf("open redis backend: %w", err)
		}
		return b, nil
	}
	b, err := embedded.Open(cfg.DataDir, embedded.Options{})
	if err != nil {
		return nil, fmt.Errorf("open embedded store in %s: %w", cfg.DataDir, err)
	}
	return b, nil
}

// executorConfig maps the service configuration onto an executor's.
// Every conversation (or run without one) gets a workspace of its own
// under security.workspace.root, owned by a uid of its own.
func executorConfig(cfg config.Config) (executor.Config, error) {
	m, err := openWorkspaces(cfg)
	if err != nil {
		return executor.Config{}, err
	}
	return executor.Config{
		Concurrency:     cfg.Concurrency,
		Timeout:         cfg.ToolTimeout(),
		NoOutputTimeout: cfg.NoOutputTimeout(),
		MaxResultBytes:  cfg.MaxResultBytes(),
		ReductionRoot:   cfg.ReductionRoot(),
		Workspaces:      m,
		Egress:          cfg.Security.Network,
	}, nil
}

// openWorkspaces opens the workspace manager of security.workspace.
func openWorkspaces(cfg config.Config) (*wsp.Manager, error) {
	w := cfg.Security.Workspace
	m, err := wsp.New(wsp.Config{
		Root: cfg.WorkspaceRoot(), UIDMin: w.UIDRange[0], UIDMax: w.UIDRange[1],
		MaxBytes: w.MaxBytes, TTL: w.TTL,
	})
	if err != nil {
		return nil, fmt.Errorf("security.workspace: %w", err)
	}
	return m, nil
}

// serveExtras are serve's settings that only flags set.
type serveExtras struct {
	bodyLimit  string
	queueStale time.Duration
}

func serve(ctx context.Context, cfg config.Config, x serveExtras, out io.Writer) error {
	if err := checkBodyLimit(x.bodyLimit); err != nil {
		return usageErr(err)
	}
	if err := checkAdminKeyEnv(os.Getenv("TOOLWARDEN_ADMIN_KEY")); err != nil {
		return usageErr(err)
	}
	log := slog.Default()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := openStack(ctx, cfg, log)
	if err != nil {
		return usageErr(err)
	}
	defer st.close()
	pol, eng, backend := st.pol, st.eng, st.backend

	keys, err := openKeys(ctx, cfg)
	if err != nil {
		return usageErr(err)
	}
	token, err := keys.Bootstrap(os.Getenv("TOOLWARDEN_ADMIN_KEY"))
	if err != nil {
		return usageErr(fmt.Errorf("bootstrap admin key: %w", err))
	}
	if token != "" {
		fmt.Fprintf(out, "toolwarden: created the first admin API key (shown once, store it now):\n%s\n", token)
	}

	ps, closePolicies, err := openPolicyStore(ctx, cfg, eng, log)
	if err != nil {
		return usageErr(fmt.Errorf("policy store: %w", err))
	}
	defer closePolicies()

	scfg := server.Config{
		Policies:        ps,
		Listen:          cfg.Listen,
		BodyLimit:       x.bodyLimit,
		QueueStaleAfter: x.queueStale,
		RatePerSecond:   cfg.RatePerSecond,
		RateBurst:       cfg.RateBurst,
		WaitTimeout:     cfg.WaitTimeout(),
		ReductionRoot:   cfg.ReductionRoot(),
		MaxResultBytes:  cfg.MaxResultBytes(),
		MaxTimeout:      cfg.ToolTimeout(),
		Workspaces:      wsp.Locator{Root: cfg.WorkspaceRoot()},
	}
	if m := st.workspaces; m != nil {
		scfg.Workspaces = m
		scfg.ConversationCancelled = func(_ context.Context, owner, conv string) {
			if err := m.RemoveConversation(wsp.Key(owner, conv)); err != nil {
				log.Warn("remove conversation workspace", "conversation_id", conv, "err", err)
			}
		}
	}
	// The web panel at /ui/: its sessions authenticate /v1 like API keys.
	sessions := webui.NewSessions(webui.SessionOptions{})
	scfg.Sessions = sessions
	scfg.UI = webui.Handler(webui.Options{Keys: keys, Sessions: sessions})
	scans, closeScans, err := openScanLog(cfg, log)
	if err != nil {
		return usageErr(err)
	}
	defer closeScans()
	scfg.ScanLog = scans
	pm, closePlugins, err := openPlugins(ctx, cfg, eng, recentScans(scans), log)
	if err != nil {
		return usageErr(err)
	}
	defer closePlugins()
	scfg.Plugins, scfg.PluginMaxModuleBytes = pm, cfg.Plugins.MaxModuleBytes
	srv := server.New(scfg, eng, backend, keys)
	_ = server.RegisterQueueGauge(backend)
	if cfg.EmbeddedExecutor {
		// Without an embedded executor there is none to report on here;
		// /readyz then judges the pool elsewhere by the queue's age.
		srv.Ready = func(context.Context) error { return st.executorErr() }
	}

	// MCP at /mcp: toolwarden's tools and the guarded upstream MCP servers
	// (mcp: in the config), behind the same API keys as the REST API.
	mcpSrv, closeMCP, err := newMCPServer(ctx, cfg, srv.Service(), mcp.HTTPIdentity, log)
	if err != nil {
		return usageErr(err)
	}
	defer closeMCP()
	srv.Mount("/mcp", mcpSrv.HTTPHandler(), auth.RoleAgent)

	ln, err := srv.Listen()
	if err != nil {
		return usageErr(err)
	}
	fmt.Fprintf(out, "toolwarden: listening on http://%s (policy %s, store %s, %d rule packs)\n",
		ln.Addr(), pol.Name, storeName(cfg), len(eng.Plugins()))
	fmt.Fprintf(out, "toolwarden: web panel at http://%s/ui/ (sign in with an API key)\n", ln.Addr())
	err = srv.Serve(ctx, ln)
	cancel()
	st.wait(log)
	return err
}

func storeName(cfg config.Config) string {
	if cfg.RedisURL != "" {
		return "redis"
	}
	return "embedded (" + cfg.DataDir + ")"
}

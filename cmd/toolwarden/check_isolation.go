package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/toolwarden/toolwarden/internal/config"
)

func init() { subcommands = append(subcommands, newCheckIsolationCmd) }

// newCheckIsolationCmd builds `toolwarden check-isolation`: it probes the
// host exactly as the executor would (a real run of /bin/true in a fresh
// unit) and prints which backend and layers runs get, so an operator can
// verify a deployment before it takes traffic. It exits 1 when the mode is
// required and the strong backend cannot be used.
func newCheckIsolationCmd() *cobra.Command {
	var configPath, mode, dataDir string
	cmd := &cobra.Command{
		Use:   "check-isolation",
		Short: "Probe the OS isolation backend and print what runs would get (JSON)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// The root a daemon with this configuration and data dir
			// would take (cgroup_root auto derives from the data dir).
			full, err := config.Load(configPath)
			if err != nil {
				return usageErr(err)
			}
			if dataDir != "" {
				full.DataDir = dataDir
			}
			cfg := full.IsolationConfig()
			if mode != "" {
				cfg.Mode = mode
			}
			rep, err := checkIsolationWithShim(context.Background(), cfg)
			if err != nil {
				return usageErr(err)
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			if err := enc.Encode(rep); err != nil {
				return fmt.Errorf("write report: %w", err)
			}
			if rep.Backend == "" {
				// Nothing could run a workload: never report that as a pass.
				return &exitError{code: 1, err: fmt.Errorf("no isolation backend could start a run: %v", rep.Reasons)}
			}
			if !rep.RequiredMet {
				return &exitError{code: 1, err: errors.New("isolation mode required cannot be met on this host")}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&configPath, "config", "", "YAML configuration file (reads security.process_isolation and data_dir)")
	cmd.Flags().StringVar(&dataDir, "data-dir", "", "the instance's data directory (cgroup_root auto derives from it; default from the config: data)")
	cmd.Flags().StringVar(&mode, "mode", "", "override the mode: auto, required or process_group")
	return cmd
}

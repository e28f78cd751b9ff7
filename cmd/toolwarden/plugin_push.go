package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/toolwarden/toolwarden/sdk/client"
)

func newPluginPushCmd() *cobra.Command {
	var o opsFlags
	var sigPath, manifestPath string
	var activate, noSig bool
	cmd := &cobra.Command{
		Use:   "push FILE.wasm --server URL [--activate]",
		Short: "Upload a plugin module to a server (admin key in TOOLWARDEN_KEY)",
		Long: `Push uploads FILE.wasm with its signature (FILE.wasm.minisig when it exists, or --sig) and manifest
(--manifest) to POST /v1/plugins. The server validates the module and runs its self-test before storing it;
with --activate it then activates the revision on every server. The answer (digest, rules, status and the
validation report) is printed as JSON. The admin API key is read from TOOLWARDEN_KEY.
Exit codes: 0 accepted, 1 refused by the server, 3 no answer or unreadable input.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := o.client()
			if err != nil {
				return err
			}
			wasm, err := readModule(args[0])
			if err != nil {
				return usageErr(err)
			}
			up := client.PluginUpload{Module: wasm, Activate: activate}
			switch {
			case noSig:
			case sigPath != "":
				if up.Signature, err = os.ReadFile(sigPath); err != nil {
					return usageErr(fmt.Errorf("push: signature: %w", err))
				}
			default:
				if up.Signature, err = os.ReadFile(args[0] + ".minisig"); err != nil && !errors.Is(err, os.ErrNotExist) {
					return usageErr(fmt.Errorf("push: signature: %w", err))
				}
			}
			if manifestPath != "" {
				if up.Manifest, err = os.ReadFile(manifestPath); err != nil {
					return usageErr(fmt.Errorf("push: manifest: %w", err))
				}
			}
			rev, err := c.UploadPlugin(cmd.Context(), up)
			if rev != nil {
				// A refusal carries the validation report: print it too.
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				if eerr := enc.Encode(rev); eerr != nil && err == nil {
					err = eerr
				}
			}
			if err != nil {
				return apiFailure(err)
			}
			return nil
		},
	}
	o.register(cmd)
	cmd.Flags().StringVar(&sigPath, "sig", "", "signature file (default FILE.wasm.minisig when present)")
	cmd.Flags().BoolVar(&noSig, "unsigned", false, "upload without a signature even when FILE.wasm.minisig exists")
	cmd.Flags().StringVar(&manifestPath, "manifest", "", "manifest file to upload with the module")
	cmd.Flags().BoolVar(&activate, "activate", false, "activate the revision once it passed validation")
	return cmd
}

package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"aead.dev/minisign"
	"github.com/spf13/cobra"
)

// Plugin signatures are minisign signatures of the module file (the
// prehashed Ed25519 form minisign uses by default), so an author may sign
// with the minisign tool as well as with plugin sign, and a server verifies
// either. The trusted comment names the module's sha256 digest, which the
// signature covers too, so a signature states which revision it is for.

// keyPasswordEnv names the environment variable holding the password of an
// encrypted private key: a password never goes on the command line.
const keyPasswordEnv = "TOOLWARDEN_PLUGIN_KEY_PASSWORD"

func newPluginKeygenCmd() *cobra.Command {
	var out string
	var force bool
	cmd := &cobra.Command{
		Use:   "keygen --out PREFIX",
		Short: "Create a minisign key pair for signing plugins (PREFIX.key and PREFIX.pub)",
		Long: `Keygen writes an Ed25519 key pair in minisign's format: PREFIX.key (mode 0600; encrypted with the
password in $` + keyPasswordEnv + ` when it is set, as minisign does) and PREFIX.pub, the public key a server
lists among its trusted plugin keys. Existing files are never overwritten unless --force.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageErr(errors.New("keygen: --out PREFIX is required"))
			}
			pub, priv, err := minisign.GenerateKey(rand.Reader)
			if err != nil {
				return usageErr(fmt.Errorf("keygen: %w", err))
			}
			var keyText []byte
			if pw := os.Getenv(keyPasswordEnv); pw != "" {
				keyText, err = minisign.EncryptKey(pw, priv)
			} else {
				keyText, err = priv.MarshalText()
			}
			if err != nil {
				return usageErr(fmt.Errorf("keygen: encode private key: %w", err))
			}
			pubText, err := pub.MarshalText()
			if err != nil {
				return usageErr(fmt.Errorf("keygen: encode public key: %w", err))
			}
			pubFile := append(pubText, '\n')
			if err := writeKeyFile(out+".key", keyText, 0o600, force); err != nil {
				return usageErr(err)
			}
			if err := writeKeyFile(out+".pub", pubFile, 0o644, force); err != nil {
				return usageErr(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s.key and %s.pub (key id %X)\npublic key: %s\n", out, out, pub.ID(), pub.String())
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "path prefix of the key files (required)")
	cmd.Flags().BoolVar(&force, "force", false, "overwrite existing key files")
	return cmd
}

// writeKeyFile writes a key file, refusing to replace one unless force.
func writeKeyFile(path string, data []byte, mode fs.FileMode, force bool) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if !force {
		flags |= os.O_EXCL
	}
	f, err := os.OpenFile(path, flags, mode)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("keygen: %s exists; pass --force to replace it", path)
		}
		return fmt.Errorf("keygen: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("keygen: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("keygen: write %s: %w", path, err)
	}
	return nil
}

// readPrivateKey reads a minisign private key, decrypting it with the
// password in keyPasswordEnv when it is encrypted.
func readPrivateKey(path string) (minisign.PrivateKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return minisign.PrivateKey{}, fmt.Errorf("private key: %w", err)
	}
	var key minisign.PrivateKey
	if minisign.IsEncrypted(data) {
		pw := os.Getenv(keyPasswordEnv)
		if pw == "" {
			return key, fmt.Errorf("private key %s is encrypted: set %s to its password", path, keyPasswordEnv)
		}
		if key, err = minisign.DecryptKey(pw, data); err != nil {
			return key, fmt.Errorf("private key %s: %w", path, err)
		}
		return key, nil
	}
	if err := key.UnmarshalText(data); err != nil {
		return key, fmt.Errorf("private key %s: %w", path, err)
	}
	return key, nil
}

// readPublicKey reads a minisign public key file, or a key given inline as
// its base64 text (the form a server's config lists).
func readPublicKey(pathOrKey string) (minisign.PublicKey, error) {
	var key minisign.PublicKey
	if _, err := os.Stat(pathOrKey); err == nil {
		if key, err = minisign.PublicKeyFromFile(pathOrKey); err != nil {
			return key, fmt.Errorf("public key %s: %w", pathOrKey, err)
		}
		return key, nil
	}
	if err := key.UnmarshalText([]byte(strings.TrimSpace(pathOrKey))); err != nil {
		return key, fmt.Errorf("public key %q: neither a readable file nor a minisign public key: %w", pathOrKey, err)
	}
	return key, nil
}

// signModule returns the minisign signature file of a module.
func signModule(key minisign.PrivateKey, wasm []byte) []byte {
	return minisign.SignWithComments(key, wasm, "toolwarden plugin "+moduleDigest(wasm),
		"signature from toolwarden plugin sign")
}

func newPluginSignCmd() *cobra.Command {
	var keyPath, out string
	cmd := &cobra.Command{
		Use:   "sign FILE.wasm --key PREFIX.key",
		Short: "Sign a plugin module (writes FILE.wasm.minisig)",
		Long: `Sign writes a minisign signature of FILE.wasm to FILE.wasm.minisig (or -o). The signature covers the
module's bytes, and its trusted comment names the module's sha256 digest. "minisign -Vm FILE.wasm -p PREFIX.pub"
verifies it too. An encrypted key's password is read from $` + keyPasswordEnv + `.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if keyPath == "" {
				return usageErr(errors.New("sign: --key is required"))
			}
			wasm, err := readModule(args[0])
			if err != nil {
				return usageErr(err)
			}
			key, err := readPrivateKey(keyPath)
			if err != nil {
				return usageErr(fmt.Errorf("sign: %w", err))
			}
			if out == "" {
				out = args[0] + ".minisig"
			}
			if err := os.WriteFile(out, signModule(key, wasm), 0o644); err != nil {
				return usageErr(fmt.Errorf("sign: %w", err))
			}
			fmt.Fprintf(cmd.OutOrStdout(), "signed %s (%s) with key %X: %s\n", args[0], moduleDigest(wasm), key.ID(), out)
			return nil
		},
	}
	cmd.Flags().StringVar(&keyPath, "key", "", "minisign private key file (required)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "signature file (default FILE.wasm.minisig)")
	return cmd
}

func newPluginVerifyCmd() *cobra.Command {
	var pubArg, sigPath string
	cmd := &cobra.Command{
		Use:   "verify FILE.wasm --pub PREFIX.pub",
		Short: "Check a plugin module's minisign signature against a public key",
		Long: `Verify checks FILE.wasm.minisig (or --sig) against the public key (a file, or the key's base64 text) the
way a server with plugins.require_signature does. Exit codes: 0 valid, 1 invalid or from another key, 3 unreadable.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if pubArg == "" {
				return usageErr(errors.New("verify: --pub is required"))
			}
			wasm, err := readModule(args[0])
			if err != nil {
				return usageErr(err)
			}
			pub, err := readPublicKey(pubArg)
			if err != nil {
				return usageErr(fmt.Errorf("verify: %w", err))
			}
			if sigPath == "" {
				sigPath = args[0] + ".minisig"
			}
			sigText, err := os.ReadFile(sigPath)
			if err != nil {
				return usageErr(fmt.Errorf("verify: signature: %w", err))
			}
			var sig minisign.Signature
			if err := sig.UnmarshalText(sigText); err != nil {
				return usageErr(fmt.Errorf("verify: signature %s: %w", sigPath, err))
			}
			if sig.KeyID != pub.ID() {
				return &exitError{code: exitMismatch, err: fmt.Errorf("verify: %s is signed by key %X, not by %X", args[0], sig.KeyID, pub.ID())}
			}
			if !minisign.Verify(pub, wasm, sigText) {
				return &exitError{code: exitMismatch, err: fmt.Errorf("verify: signature %s does not match %s (%s)", sigPath, args[0], moduleDigest(wasm))}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "signature ok: %s (%s) signed by key %X; trusted comment: %s\n",
				args[0], moduleDigest(wasm), pub.ID(), sig.TrustedComment)
			return nil
		},
	}
	cmd.Flags().StringVar(&pubArg, "pub", "", "minisign public key file or base64 key (required)")
	cmd.Flags().StringVar(&sigPath, "sig", "", "signature file (default FILE.wasm.minisig)")
	return cmd
}

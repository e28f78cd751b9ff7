// Package secrets holds toolwarden's at-rest protection of secrets: the
// master key an operator configures (security.secrets_key or
// TOOLWARDEN_SECRETS_KEY), the purpose keys derived from it with HKDF, and
// AES-256-GCM sealing of values that must cross a shared store (execution
// environment values in Redis).
//
// One master key is configured; each use gets its own derived key (HKDF-SHA256
// with a purpose label), so a key used to encrypt is never also used to
// authenticate, and adding a purpose needs no new configuration.
package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// KeySize is the size of the master key and of every derived key (256 bits).
const KeySize = 32

// Purposes of derived keys. Changing a label invalidates everything made
// with the key it names, so they carry a version.
const (
	// PurposeEnv encrypts execution environment values at rest.
	PurposeEnv = "toolwarden/execution-env/aes-256-gcm/v1"
	// PurposeKeyRecordMAC authenticates API key records.
	PurposeKeyRecordMAC = "toolwarden/api-key-record/hmac-sha256/v1"
)

// ConfigKeyName is how the master key is named in configuration and errors.
const ConfigKeyName = "security.secrets_key (TOOLWARDEN_SECRETS_KEY)"

// ErrNoKey reports that no master key was configured where one is required.
var ErrNoKey = errors.New(ConfigKeyName + " is required: generate one with `openssl rand -hex 32` " +
	"and give the same value to every server and executor")

// ParseKey decodes a master key given as 64 hex digits or as base64
// (standard or URL alphabet, padded or not) of exactly 32 bytes. The error
// never repeats the value.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, ErrNoKey
	}
	if len(s) == 2*KeySize {
		if b, err := hex.DecodeString(s); err == nil {
			return b, nil
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && len(b) == KeySize {
			return b, nil
		}
	}
	return nil, fmt.Errorf("%s: want %d bytes as 64 hex digits or base64 (for example `openssl rand -hex 32`)",
		ConfigKeyName, KeySize)
}

// Derive returns the key for purpose derived from master (HKDF-SHA256).
func Derive(master []byte, purpose string) ([]byte, error) {
	if len(master) != KeySize {
		return nil, fmt.Errorf("derive %s: master key is %d bytes, want %d", purpose, len(master), KeySize)
	}
	k, err := hkdf.Key(sha256.New, master, nil, purpose, KeySize)
	if err != nil {
		return nil, fmt.Errorf("derive %s: %w", purpose, err)
	}
	return k, nil
}

// Box seals and opens values with AES-256-GCM. Every Seal draws a fresh
// random nonce; the associated data binds a ciphertext to its owner (the
// execution id), so a ciphertext copied onto another record does not open.
type Box struct{ aead cipher.AEAD }

// NewBox returns a Box for a 32-byte key.
func NewBox(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("secrets box: key is %d bytes, want %d", len(key), KeySize)
	}
	blk, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secrets box: %w", err)
	}
	aead, err := cipher.NewGCM(blk)
	if err != nil {
		return nil, fmt.Errorf("secrets box: %w", err)
	}
	return &Box{aead: aead}, nil
}

// NewEnvBox returns the Box for execution environments derived from master.
func NewEnvBox(master []byte) (*Box, error) {
	k, err := Derive(master, PurposeEnv)
	if err != nil {
		return nil, err
	}
	return NewBox(k)
}

// Seal encrypts plaintext bound to ad and returns nonce || ciphertext.
func (b *Box) Seal(plaintext, ad []byte) ([]byte, error) {
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plaintext)+b.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("seal: nonce: %w", err)
	}
	return b.aead.Seal(nonce, nonce, plaintext, ad), nil
}

// ErrOpen reports a ciphertext that does not authenticate: a wrong key,
// another owner's ciphertext, or tampering.
var ErrOpen = errors.New("sealed value does not authenticate (wrong secrets key, other owner or tampered)")

// Open decrypts what Seal returned for the same ad.
func (b *Box) Open(sealed, ad []byte) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n+b.aead.Overhead() {
		return nil, ErrOpen
	}
	out, err := b.aead.Open(nil, sealed[:n], sealed[n:], ad)
	if err != nil {
		return nil, ErrOpen
	}
	return out, nil
}

// LoadOrCreateKeyFile returns the master key kept in path (hex), creating
// it with a new random key (mode 0600, directory 0700) when absent. It is
// for single-process deployments whose secrets never leave the host; a
// shared deployment configures the key instead, since every process must
// hold the same one.
func LoadOrCreateKeyFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		k, perr := ParseKey(string(b))
		if perr != nil {
			return nil, fmt.Errorf("secrets key file %s: %w", path, perr)
		}
		if err := os.Chmod(path, 0o600); err != nil {
			return nil, fmt.Errorf("secrets key file %s: %w", path, err)
		}
		return k, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("secrets key file %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("secrets key file %s: %w", path, err)
	}
	k := make([]byte, KeySize)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("secrets key file %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrExist) { // another process won the race: use its key
			return LoadOrCreateKeyFile(path)
		}
		return nil, fmt.Errorf("secrets key file %s: %w", path, err)
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return nil, fmt.Errorf("secrets key file %s: %w", path, err)
	}
	if _, err := f.WriteString(hex.EncodeToString(k) + "\n"); err != nil {
		f.Close()
		return nil, fmt.Errorf("secrets key file %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, fmt.Errorf("secrets key file %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("secrets key file %s: %w", path, err)
	}
	return k, nil
}

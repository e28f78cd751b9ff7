package secrets

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestParseKey(t *testing.T) {
	k := bytes.Repeat([]byte{0xab}, KeySize)
	for _, s := range []string{hex.EncodeToString(k), base64.StdEncoding.EncodeToString(k),
		base64.RawURLEncoding.EncodeToString(k), " " + hex.EncodeToString(k) + "\n"} {
		got, err := ParseKey(s)
		if err != nil || !bytes.Equal(got, k) {
			t.Fatalf("ParseKey(%q) = %x, %v", s, got, err)
		}
	}
	if _, err := ParseKey(""); !errors.Is(err, ErrNoKey) {
		t.Fatalf("empty key: %v", err)
	}
	for _, bad := range []string{"abcd", hex.EncodeToString(k[:16]), "zz" + hex.EncodeToString(k)[2:]} {
		_, err := ParseKey(bad)
		if err == nil || strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "security.secrets_key") {
			t.Fatalf("ParseKey(%q): %v (must fail, name the key, not repeat the value)", bad, err)
		}
	}
}

// TestBoxBindsOwnerAndKey: a sealed value opens only with its key and its
// associated data (the execution id), and tampering is detected; two seals
// of one value differ (random nonce).
func TestBoxBindsOwnerAndKey(t *testing.T) {
	master := bytes.Repeat([]byte{1}, KeySize)
	box, err := NewEnvBox(master)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := box.Seal([]byte("token-value"), []byte("exe_1"))
	b, _ := box.Seal([]byte("token-value"), []byte("exe_1"))
	if bytes.Equal(a, b) || bytes.Contains(a, []byte("token-value")) {
		t.Fatal("seal is deterministic or shows the plaintext")
	}
	if got, err := box.Open(a, []byte("exe_1")); err != nil || string(got) != "token-value" {
		t.Fatalf("open: %q %v", got, err)
	}
	if _, err := box.Open(a, []byte("exe_2")); !errors.Is(err, ErrOpen) {
		t.Fatalf("opened under another execution id: %v", err)
	}
	other, _ := NewEnvBox(bytes.Repeat([]byte{2}, KeySize))
	if _, err := other.Open(a, []byte("exe_1")); !errors.Is(err, ErrOpen) {
		t.Fatalf("opened with another key: %v", err)
	}
	a[len(a)-1] ^= 1
	if _, err := box.Open(a, []byte("exe_1")); !errors.Is(err, ErrOpen) {
		t.Fatalf("tampered ciphertext opened: %v", err)
	}
	envKey, _ := Derive(master, PurposeEnv)
	macKey, _ := Derive(master, PurposeKeyRecordMAC)
	if bytes.Equal(envKey, macKey) || bytes.Equal(envKey, master) {
		t.Fatal("derived keys are not distinct")
	}
}

// TestKeyFilePrivateUnderUmaskZero: the generated key file is 0600 even
// under umask 000, and reading it back gives the same key.
func TestKeyFilePrivateUnderUmaskZero(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	p := filepath.Join(t.TempDir(), "d", "secrets.key")
	k, err := LoadOrCreateKeyFile(p)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file %v", fi.Mode().Perm())
	}
	if d, _ := os.Stat(filepath.Dir(p)); d.Mode().Perm() != 0o700 {
		t.Fatalf("key dir %v", d.Mode().Perm())
	}
	again, err := LoadOrCreateKeyFile(p)
	if err != nil || !bytes.Equal(k, again) {
		t.Fatalf("reload: %v", err)
	}
}

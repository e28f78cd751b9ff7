package embedded_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/execution/embedded"
)

// grepDir fails t if needle appears in any file under dir (the database,
// its -wal and -shm included).
func grepDir(t *testing.T, dir, needle string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(needle)) {
			t.Errorf("%s contains the env value", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestEnvNeverOnDisk: env values stay in memory; the database files never
// hold them, before the claim (WAL included) or after the run.
func TestEnvNeverOnDisk(t *testing.T) {
	dir := t.TempDir()
	b, err := embedded.Open(dir, embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	secret := "tw-embedded-secret-4b1d2c9e77"
	r := &execution.Record{Language: "bash", Content: "true", EnvNames: []string{"API_TOKEN"},
		Env: map[string]string{"API_TOKEN": secret}}
	if err := b.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	grepDir(t, dir, secret)
	c, err := b.Claim(ctx, "w", 0)
	if err != nil || c.Env["API_TOKEN"] != secret {
		t.Fatalf("claim: %v env %v", err, c)
	}
	if err := b.Finish(ctx, "w", r.ExecutionID, &execution.Record{Status: execution.StatusCompleted}); err != nil {
		t.Fatal(err)
	}
	grepDir(t, dir, secret)
}

// TestEnvLostAtRestartFailsNotRuns: a queued record whose env lived in the
// memory of a previous process is failed with a clear reason, never run
// without it.
func TestEnvLostAtRestartFailsNotRuns(t *testing.T) {
	dir := t.TempDir()
	b, err := embedded.Open(dir, embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r := &execution.Record{Language: "bash", Content: "true", EnvNames: []string{"API_TOKEN"},
		Env: map[string]string{"API_TOKEN": "v"}}
	if err := b.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	b.Close()
	b, err = embedded.Open(dir, embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if got, err := b.Claim(ctx, "w", 0); !errors.Is(err, execution.ErrNoWork) {
		t.Fatalf("claim after restart handed out %v (err %v), want no work", got, err)
	}
	got, err := b.Get(ctx, r.ExecutionID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != execution.StatusFailed || got.StatusReason != embedded.EnvLostReason {
		t.Fatalf("record after restart: status %s reason %q", got.Status, got.StatusReason)
	}
}

// TestFilesPrivateUnderUmaskZero: created under umask 000, the store's
// directory is 0700 and the database, -wal and -shm files 0600; and
// secure_delete is on.
func TestFilesPrivateUnderUmaskZero(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "data")
	b, err := embedded.Open(dir, embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Create(context.Background(), &execution.Record{Language: "bash", Content: "true"}); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(dir)
	if fi.Mode().Perm() != 0o700 {
		t.Fatalf("store dir %v", fi.Mode().Perm())
	}
	seen := 0
	for _, f := range []string{embedded.DBFile, embedded.DBFile + "-wal", embedded.DBFile + "-shm", embedded.DBFile + ".lock"} {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			continue
		}
		seen++
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s is %v, want 0600", f, fi.Mode().Perm())
		}
	}
	if seen < 3 {
		t.Fatalf("expected the db, its -wal and lock to exist, saw %d", seen)
	}
	if v := b.SecureDelete(); v != 1 {
		t.Fatalf("secure_delete = %d, want 1", v)
	}
}

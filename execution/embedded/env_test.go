package embedded_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolwarden/toolwarden/execution"
	"github.com/toolwarden/toolwarden/execution/embedded"
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

package datadir

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func mode(t *testing.T, p string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// TestExistingOpenDirFixedAndLogged: a data dir created 0755 with 0644
// files (as an operator's mkdir or an older version leaves it) ends 0700 /
// 0600, the log names the path, and the workspace is left alone.
func TestExistingOpenDirFixedAndLogged(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(filepath.Join(dir, "reduction", "conv"), 0o755); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "workspace")
	os.Mkdir(ws, 0o755)
	os.Chmod(dir, 0o755)
	os.Chmod(ws, os.ModeSticky|0o777)
	for _, f := range []string{"executions.db", "executions.db-wal", "keys.json", "reduction/conv/out.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chmod(filepath.Join(dir, f), 0o644)
	}
	var logs bytes.Buffer
	if err := Secure(dir, slog.New(slog.NewTextHandler(&logs, nil))); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, dir); m != 0o700 {
		t.Fatalf("data dir %v, want 0700", m)
	}
	for _, f := range []string{"executions.db", "executions.db-wal", "keys.json", "reduction/conv/out.txt"} {
		if m := mode(t, filepath.Join(dir, f)); m != 0o600 {
			t.Fatalf("%s is %v, want 0600", f, m)
		}
	}
	if m := mode(t, filepath.Join(dir, "reduction", "conv")); m != 0o700 {
		t.Fatalf("reduction/conv is %v", m)
	}
	if fi, _ := os.Stat(ws); fi.Mode()&os.ModeSticky == 0 || fi.Mode().Perm() != 0o777 {
		t.Fatalf("workspace mode changed: %v", fi.Mode())
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "path="+dir+" ") {
		t.Fatalf("no warning naming the data dir:\n%s", logs.String())
	}
	logs.Reset()
	if err := Secure(dir, slog.New(slog.NewTextHandler(&logs, nil))); err != nil || logs.Len() != 0 {
		t.Fatalf("second pass changed something: %v\n%s", err, logs.String())
	}
}

// TestCreatedUnderUmaskZero: a data dir Secure creates under umask 000 is
// 0700.
func TestCreatedUnderUmaskZero(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "a", "data")
	if err := Secure(dir, nil); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, dir); m != 0o700 {
		t.Fatalf("data dir %v under umask 0, want 0700", m)
	}
}

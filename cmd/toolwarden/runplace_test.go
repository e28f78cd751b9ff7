package main

import (
	"os"
	"path/filepath"
	"testing"
)

// These exercise runPlace directly, as the run's leftovers would look:
// what a workload can leave behind that the CLI must not bring back as is.

func newTestPlace(t *testing.T) (*runPlace, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI runs as root; this test must run there")
		}
		t.Skip("needs root: the run place is handed to another uid")
	}
	caller := t.TempDir()
	if err := os.WriteFile(filepath.Join(caller, "a.txt"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := newRunPlace(caller)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p, caller
}

func TestRunPlaceDropsSetuidBits(t *testing.T) {
	p, caller := newTestPlace(t)
	f := filepath.Join(p.work, "suid")
	if err := os.WriteFile(f, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(f, 0o755|os.ModeSetuid|os.ModeSetgid); err != nil {
		t.Fatal(err)
	}
	if err := p.copyBack(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(caller, "suid"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode()&(os.ModeSetuid|os.ModeSetgid) != 0 {
		t.Fatalf("mode %v keeps setuid/setgid", st.Mode())
	}
}

func TestRunPlaceNeverWritesThroughSymlinks(t *testing.T) {
	p, caller := newTestPlace(t)
	outside := t.TempDir()
	// The caller's directory already holds a link leading out; the run
	// replaced it by a regular file of the same name: the link is replaced,
	// not followed.
	if err := os.Symlink(filepath.Join(outside, "victim"), filepath.Join(caller, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.work, "link"), []byte("payload"), 0o644); err != nil {
		t.Fatal(err)
	}
	// And a directory link made by the run with a file below it in the
	// run's copy cannot exist; a file under a linked directory of the
	// caller is refused by os.Root.
	if err := p.copyBack(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(outside, "victim")); err == nil {
		t.Fatal("copy back wrote through a symlink to outside the directory")
	}
	st, err := os.Lstat(filepath.Join(caller, "link"))
	if err != nil || !st.Mode().IsRegular() {
		t.Fatalf("link is %v (err %v), want the regular file the run made", st.Mode(), err)
	}
}

func TestRunPlaceEnvIsPrivate(t *testing.T) {
	p, caller := newTestPlace(t)
	for k, v := range p.Env() {
		if k == "GOFLAGS" {
			continue
		}
		if rel, err := filepath.Rel(p.home, v); err != nil || rel == ".." || filepath.IsAbs(rel) || len(rel) >= 2 && rel[:2] == ".." {
			t.Errorf("%s=%s is not under the run's home %s", k, v, p.home)
		}
		if rel, err := filepath.Rel(caller, v); err == nil && !(len(rel) >= 2 && rel[:2] == "..") {
			t.Errorf("%s=%s is inside the caller's directory", k, v)
		}
	}
	st, err := os.Stat(p.base)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("run place mode %v (err %v), want 0700", st.Mode(), err)
	}
}

func TestRunPlaceWithholdsWhatOthersCannotRead(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI runs as root; this test must run there")
		}
		t.Skip("needs root")
	}
	caller := t.TempDir()
	secret := filepath.Join(caller, ".env")
	if err := os.WriteFile(secret, []byte("TOKEN=s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(caller, "private"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(caller, "private", "key"), []byte("k"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := newRunPlace(caller)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, rel := range []string{".env", "private"} {
		if _, err := os.Lstat(filepath.Join(p.work, rel)); err == nil {
			t.Errorf("%s was copied for the workload, which could not read it in place", rel)
		}
	}
	// The run makes files of those names: the caller's stay untouched.
	os.WriteFile(filepath.Join(p.work, ".env"), []byte("overwritten"), 0o644)
	if err := p.copyBack(); err == nil {
		t.Error("copy back did not report the withheld .env")
	}
	if b, _ := os.ReadFile(secret); string(b) != "TOKEN=s3cret" {
		t.Fatalf(".env = %q", b)
	}
	if _, err := os.Stat(filepath.Join(caller, "private", "key")); err != nil {
		t.Fatalf("private/key was removed: %v", err)
	}
}

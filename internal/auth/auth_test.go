package auth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCreateAuthenticateDelete(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.json")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	token, k, err := s.Create("ci agent", RoleAgent)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Authenticate(token)
	if err != nil || got.ID != k.ID || got.Role != RoleAgent || got.Hash != "" {
		t.Fatalf("Authenticate = %+v, %v", got, err)
	}
	if _, err := s.Authenticate(token + "x"); err != ErrInvalidKey {
		t.Fatalf("wrong token: err = %v", err)
	}
	b, _ := os.ReadFile(path)
	if strings.Contains(string(b), token) {
		t.Fatal("key file stores the token in clear")
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, want 0600", fi.Mode().Perm())
	}
	// Reopen: the key survives a restart.
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Authenticate(token); err != nil {
		t.Fatalf("after reopen: %v", err)
	}
	if err := s2.Delete(k.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Authenticate(token); err != ErrInvalidKey {
		t.Fatalf("deleted key still authenticates: %v", err)
	}
}

func TestRoles(t *testing.T) {
	if !RoleAdmin.Allows(RoleReviewer) || !RoleReviewer.Allows(RoleAgent) || RoleAgent.Allows(RoleReviewer) || RoleReviewer.Allows(RoleAdmin) {
		t.Fatal("role order wrong")
	}
	if Role("root").Allows(RoleAgent) {
		t.Fatal("unknown role allowed")
	}
	if _, err := ParseRole("superuser"); err == nil {
		t.Fatal("ParseRole accepted an unknown role")
	}
}

func TestBootstrap(t *testing.T) {
	s, _ := Open(filepath.Join(t.TempDir(), "keys.json"))
	token, err := s.Bootstrap("")
	if err != nil || !strings.HasPrefix(token, "tw_") {
		t.Fatalf("first start: token %q, err %v", token, err)
	}
	again, err := s.Bootstrap("")
	if err != nil || again != "" {
		t.Fatalf("second start printed a new key %q (%v)", again, err)
	}
	if _, err := s.Bootstrap("short"); err == nil {
		t.Fatal("short bootstrap token accepted")
	}
	if _, err := s.Bootstrap("env-admin-token-0123456789"); err != nil {
		t.Fatal(err)
	}
	k, err := s.Authenticate("env-admin-token-0123456789")
	if err != nil || k.Role != RoleAdmin {
		t.Fatalf("env token: %+v %v", k, err)
	}
}

func TestBearerToken(t *testing.T) {
	if BearerToken("Bearer abc") != "abc" || BearerToken("bearer  abc ") != "abc" || BearerToken("Basic abc") != "" {
		t.Fatal("BearerToken parsing wrong")
	}
}

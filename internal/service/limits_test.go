package service_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/service"
)

// TestCwdWithoutWorkspaceLocator: a service that cannot locate workspaces
// accepts relative cwds only; every absolute one and every .. escape is a
// FieldError naming cwd.
func TestCwdWithoutWorkspaceLocator(t *testing.T) {
	s := newService(t)
	for _, cwd := range []string{"/", "/etc", "/tmp/x", "..", "../..", "a/../../b"} {
		_, _, err := s.Submit(context.Background(), &service.ToolRequest{Command: "ls", Cwd: cwd}, "agent", 0)
		var fe *service.FieldError
		if !errors.As(err, &fe) || fe.Field != "cwd" {
			t.Errorf("cwd %q: %v, want a FieldError naming cwd", cwd, err)
		}
	}
	for _, cwd := range []string{"", ".", "src", "a/b/../c"} {
		if _, _, err := s.Submit(context.Background(), &service.ToolRequest{Command: "ls", Cwd: cwd}, "agent", 0); err != nil {
			t.Errorf("cwd %q: %v", cwd, err)
		}
	}
}

// TestEnvNamesWithEqualsRefused: an env name holding "=" (or NUL, or an
// empty one) is a FieldError naming env — "BASH_ENV=x.sh" with value ""
// would reach the run as BASH_ENV=x.sh= while the scan judged an unknown
// name — and nothing is queued.
func TestEnvNamesWithEqualsRefused(t *testing.T) {
	s := newService(t)
	for _, name := range []string{"BASH_ENV=x.sh", "LD_PRELOAD=/w/x.so", "", "A\x00B", "=x"} {
		_, _, err := s.Submit(context.Background(), &service.ToolRequest{Command: "true", Env: map[string]string{name: ""}}, "agent", 0)
		var fe *service.FieldError
		if !errors.As(err, &fe) || fe.Field != "env" {
			t.Errorf("env name %q: %v, want a FieldError naming env", name, err)
		}
	}
	if _, _, err := s.Submit(context.Background(), &service.ToolRequest{Command: "true", Env: map[string]string{"MY_TOKEN": "a=b"}}, "agent", 0); err != nil {
		t.Errorf("a value holding = is fine: %v", err)
	}
}

// TestTimeoutClampedByPolicyAndConfig: the stored and effective timeouts
// are min(requested, max_timeout_seconds, MaxTimeout).
func TestTimeoutClampedByPolicyAndConfig(t *testing.T) {
	s := newService(t)
	s.MaxTimeout = 2 * time.Minute
	max := s.Engine.Policy().MaxTimeoutSeconds
	cases := map[float64]int64{
		100000: min(int64(max*1000), 120_000),
		10:     10_000,
		0.0001: 1,
		1e300:  min(int64(max*1000), 120_000),
	}
	for req, want := range cases {
		rec, _, err := s.Submit(context.Background(), &service.ToolRequest{Command: "echo hi", TimeoutSeconds: req}, "agent", 0)
		if err != nil {
			t.Fatal(err)
		}
		if rec.TimeoutMS != want || rec.EffectiveTimeoutMS != want {
			t.Errorf("requested %gs: timeout_ms %d effective %d, want %d", req, rec.TimeoutMS, rec.EffectiveTimeoutMS, want)
		}
	}
	rec, _, err := s.Submit(context.Background(), &service.ToolRequest{Command: "echo hi"}, "agent", 0)
	if err != nil || rec.TimeoutMS != 0 || rec.EffectiveTimeoutMS != 120_000 {
		t.Errorf("no request: timeout_ms %d effective %d (%v), want 0 and 120000", rec.TimeoutMS, rec.EffectiveTimeoutMS, err)
	}
}

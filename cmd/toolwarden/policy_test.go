package main

import (
	"path/filepath"
	"testing"
)

func TestPolicyValidateAcceptsGoodFiles(t *testing.T) {
	for _, p := range []string{
		filepath.Join("testdata", "policies", "good.yaml"),
		filepath.Join("testdata", "policies", "block_on_review.yaml"),
		filepath.Join("testdata", "eval_policy.yaml"),
	} {
		r := tw(t, "policy", "validate", p)
		wantCode(t, r, 0)
		wantContains(t, "stdout", r.stdout, p, "ok")
	}
}

func TestPolicyValidateNamesFileAndField(t *testing.T) {
	cases := []struct {
		file, field, why string
	}{
		{"unknown_key.yaml", `"allowed_domain"`, "unknown field"},
		{"wrong_type.yaml", `"max_timeout_seconds"`, "must be a number"},
		{"negative_limit.yaml", `"max_output_bytes"`, "-5"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			p := filepath.Join("testdata", "policies", c.file)
			r := tw(t, "policy", "validate", p)
			wantCode(t, r, 3)
			wantContains(t, "stderr", r.stderr, p, c.field, c.why)
			if r.stdout != "" {
				t.Errorf("an invalid policy printed %q on stdout", r.stdout)
			}
		})
	}
}

func TestPolicyValidateReportsEveryProblem(t *testing.T) {
	// A policy never half-loads, and one round trip names all its problems.
	p := writeFile(t, t.TempDir(), "many.yaml",
		"max_output_bytes: -1\nlong_sleep_seconds: [1]\nblock_on_revue: true\n")
	r := tw(t, "policy", "validate", p)
	wantCode(t, r, 3)
	wantContains(t, "stderr", r.stderr, p, `"max_output_bytes"`, `"long_sleep_seconds"`, `"block_on_revue"`)
}

func TestPolicyValidateUsageErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "absent.yaml")
	r := tw(t, "policy", "validate", missing)
	wantCode(t, r, 3)
	wantContains(t, "stderr", r.stderr, missing)

	notYAML := writeFile(t, t.TempDir(), "broken.yaml", "allowed_domains: [github.com\n")
	r = tw(t, "policy", "validate", notYAML)
	wantCode(t, r, 3)
	wantContains(t, "stderr", r.stderr, notYAML)

	r = tw(t, "policy", "validate")
	wantCode(t, r, 3)
}

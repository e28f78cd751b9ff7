package client

import (
	"context"
	"net/http"
	"time"
)

// PolicyRevision is one version of the managed policy document.
type PolicyRevision struct {
	// Version counts the revisions from 1; a rollback makes a new version
	// with an older document.
	Version int `json:"version"`
	// Digest is "sha256:" and the hex SHA-256 of YAML.
	Digest    string    `json:"digest"`
	YAML      string    `json:"yaml"`
	UpdatedAt time.Time `json:"updated_at"`
	// UpdatedBy is the id of the API key that stored the revision.
	UpdatedBy string `json:"updated_by,omitempty"`
	// Comment says why, e.g. "rollback to version 3".
	Comment string `json:"comment,omitempty"`
}

// Policy returns the active policy (reviewer or admin role).
func (c *Client) Policy(ctx context.Context) (*PolicyRevision, error) {
	var out PolicyRevision
	if _, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/policy", idempotent: true}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// PutPolicy validates yaml strictly and makes it the active policy on every
// server (admin role). An invalid document is refused with a 400 whose
// APIError.Field names the key at fault.
func (c *Client) PutPolicy(ctx context.Context, yaml string) (*PolicyRevision, error) {
	var out PolicyRevision
	if _, err := c.do(ctx, call{method: http.MethodPut, path: "/v1/policy", body: map[string]string{"yaml": yaml}}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DryRunPolicy judges up to limit recorded scans again under the candidate
// yaml and reports the decisions it would change; nothing is stored (admin
// role).
func (c *Client) DryRunPolicy(ctx context.Context, yaml string, limit int) (*ReplayResult, error) {
	var out ReplayResult
	if _, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/policy/dry-run",
		body: map[string]any{"yaml": yaml, "limit": limit}, idempotent: true}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// PolicyHistory lists the stored policy revisions, newest first (reviewer
// or admin role).
func (c *Client) PolicyHistory(ctx context.Context) ([]PolicyRevision, error) {
	var out struct {
		Revisions []PolicyRevision `json:"revisions"`
	}
	if _, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/policy/history", idempotent: true}, &out); err != nil {
		return nil, err
	}
	return out.Revisions, nil
}

// RollbackPolicy makes the document of an earlier version active again, as
// a new version (admin role).
func (c *Client) RollbackPolicy(ctx context.Context, version int) (*PolicyRevision, error) {
	var out PolicyRevision
	if _, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/policy/rollback",
		body: map[string]int{"version": version}}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

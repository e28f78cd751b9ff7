package client

import (
	"context"
	"net/http"
	"net/url"
)

// CreateKey creates an API key (admin role). The token is in the answer
// only; store it.
func (c *Client) CreateKey(ctx context.Context, name, role string) (*CreatedKey, error) {
	var out CreatedKey
	if _, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/keys", body: map[string]string{"name": name, "role": role},
		accept: []int{http.StatusCreated}}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListKeys lists API keys (admin role).
func (c *Client) ListKeys(ctx context.Context) ([]Key, error) {
	var out struct {
		Keys []Key `json:"keys"`
	}
	if _, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/keys", idempotent: true}, &out); err != nil {
		return nil, err
	}
	return out.Keys, nil
}

// RevokeKey deletes an API key (admin role).
func (c *Client) RevokeKey(ctx context.Context, id string) error {
	_, err := c.do(ctx, call{method: http.MethodDelete, path: "/v1/keys/" + url.PathEscape(id), idempotent: true,
		accept: []int{http.StatusNoContent}}, nil)
	return err
}

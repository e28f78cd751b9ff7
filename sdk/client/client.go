package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Client talks to one toolwarden server with one API key. It is safe for
// concurrent use.
type Client struct {
	base  *url.URL
	token string
	http  *http.Client
	retry RetryPolicy
}

// RetryPolicy bounds retries of 429 and 503 answers and of failed
// connections.
type RetryPolicy struct {
	// MaxAttempts counts the first try; 1 disables retries (default 4).
	MaxAttempts int
	// BaseDelay is the first backoff, doubled per attempt with jitter
	// (default 250ms); a server's Retry-After wins when longer.
	BaseDelay time.Duration
	// MaxDelay caps one wait, Retry-After included (default 30s).
	MaxDelay time.Duration
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sets the HTTP client (default: one with no overall
// timeout, since waits are bounded by the API and by contexts).
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// WithRetry sets the retry policy.
func WithRetry(p RetryPolicy) Option { return func(c *Client) { c.retry = p } }

// New returns a client for the server at baseURL (e.g.
// "http://127.0.0.1:8080") authenticating with the API key token.
func New(baseURL, token string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil {
		return nil, fmt.Errorf("toolwarden client: server URL %q: %w", baseURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("toolwarden client: server URL %q: want http:// or https://", baseURL)
	}
	c := &Client{base: u, token: token, http: &http.Client{}}
	for _, o := range opts {
		o(c)
	}
	if c.retry.MaxAttempts <= 0 {
		c.retry.MaxAttempts = 4
	}
	if c.retry.BaseDelay <= 0 {
		c.retry.BaseDelay = 250 * time.Millisecond
	}
	if c.retry.MaxDelay <= 0 {
		c.retry.MaxDelay = 30 * time.Second
	}
	return c, nil
}

// call is one API call.
type call struct {
	method string
	path   string
	query  url.Values
	body   any
	// raw, when set, is sent as the body as it is, with contentType
	// (uploads of modules and policy documents); body is then ignored.
	raw         []byte
	contentType string
	// idempotent calls are retried on 503 too; others only on 429, which
	// the server answers before doing anything.
	idempotent bool
	// accept lists the statuses that carry a result rather than an error
	// (200 when empty).
	accept []int
}

// do runs c and decodes the answer into out (nil: discard). It returns the
// status of the accepted answer.
func (cl *Client) do(ctx context.Context, c call, out any) (int, error) {
	var body []byte
	if c.body != nil {
		b, err := json.Marshal(c.body)
		if err != nil {
			return 0, fmt.Errorf("toolwarden client: encode request: %w", err)
		}
		body = b
	}
	if c.raw != nil {
		body = c.raw
	}
	u := *cl.base
	u.Path = cl.base.Path + c.path
	u.RawQuery = c.query.Encode()
	var lastErr error
	for attempt := 1; ; attempt++ {
		status, retryAfter, err := cl.once(ctx, c, u.String(), body, out)
		if err == nil {
			return status, nil
		}
		lastErr = err
		if attempt >= cl.retry.MaxAttempts || !cl.retryable(c, err) {
			return 0, lastErr
		}
		delay := cl.backoff(attempt, retryAfter)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return 0, fmt.Errorf("%w (gave up retrying: %w)", lastErr, ctx.Err())
		case <-t.C:
		}
	}
}

func (cl *Client) retryable(c call, err error) bool {
	var ae *APIError
	if errors.As(err, &ae) {
		switch ae.StatusCode {
		case http.StatusTooManyRequests:
			return true
		case http.StatusServiceUnavailable:
			return c.idempotent
		}
		return false
	}
	var ne *netError
	return errors.As(err, &ne) && c.idempotent
}

// backoff is BaseDelay·2^(attempt-1) with ±20% jitter, at least the
// server's Retry-After, at most MaxDelay.
func (cl *Client) backoff(attempt int, retryAfter time.Duration) time.Duration {
	d := cl.retry.BaseDelay << (attempt - 1)
	d = time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
	if retryAfter > d {
		d = retryAfter
	}
	if d > cl.retry.MaxDelay {
		d = cl.retry.MaxDelay
	}
	return d
}

// netError marks a failure to reach the server (no answer).
type netError struct{ err error }

func (e *netError) Error() string { return "toolwarden client: " + e.err.Error() }
func (e *netError) Unwrap() error { return e.err }

func (cl *Client) once(ctx context.Context, c call, u string, body []byte, out any) (int, time.Duration, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, c.method, u, rd)
	if err != nil {
		return 0, 0, fmt.Errorf("toolwarden client: %w", err)
	}
	if body != nil {
		ct := "application/json"
		if c.raw != nil && c.contentType != "" {
			ct = c.contentType
		}
		req.Header.Set("Content-Type", ct)
	}
	req.Header.Set("Accept", "application/json")
	if cl.token != "" {
		req.Header.Set("Authorization", "Bearer "+cl.token)
	}
	resp, err := cl.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, 0, fmt.Errorf("toolwarden client: %s %s: %w", c.method, c.path, ctx.Err())
		}
		return 0, 0, &netError{err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return 0, 0, &netError{fmt.Errorf("read answer of %s %s: %w", c.method, c.path, err)}
	}
	accept := c.accept
	if len(accept) == 0 {
		accept = []int{http.StatusOK}
	}
	for _, st := range accept {
		if resp.StatusCode != st {
			continue
		}
		if out != nil && len(bytes.TrimSpace(data)) > 0 {
			if err := json.Unmarshal(data, out); err != nil {
				return 0, 0, fmt.Errorf("toolwarden client: decode answer of %s %s: %w", c.method, c.path, err)
			}
		}
		return resp.StatusCode, 0, nil
	}
	ae := &APIError{StatusCode: resp.StatusCode, RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After"))}
	var wrapped struct {
		Error *APIError `json:"error"`
	}
	wrapped.Error = ae
	if json.Unmarshal(data, &wrapped) != nil || ae.Message == "" {
		ae.Message = strings.TrimSpace(string(data))
		if len(ae.Message) > 512 {
			ae.Message = ae.Message[:512]
		}
	}
	return 0, ae.RetryAfter, ae
}

// parseRetryAfter reads delay-seconds or an HTTP date.
func parseRetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

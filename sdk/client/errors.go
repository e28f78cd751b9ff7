package client

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// APIError is an error answer of the API: its HTTP status and the body's
// {"error": {"code", "message", "field"}}.
type APIError struct {
	// StatusCode is the HTTP status (400, 401, 403, 404, 409, 413, 429, 503…).
	StatusCode int `json:"-"`
	// Code is the machine-readable error code ("invalid_request",
	// "not_found", "rate_limited", "store_unavailable", …).
	Code string `json:"code"`
	// Message says what went wrong, in the API's words.
	Message string `json:"message"`
	// Field names the request field at fault, when one is.
	Field string `json:"field,omitempty"`
	// RetryAfter is the server's Retry-After, when it sent one.
	RetryAfter time.Duration `json:"-"`
}

// Error renders the status, code, field and message.
func (e *APIError) Error() string {
	s := fmt.Sprintf("toolwarden: %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if e.Code != "" {
		s += " (" + e.Code + ")"
	}
	if e.Field != "" {
		s += ": field " + e.Field
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Temporary reports whether retrying later may succeed (429 and 503).
func (e *APIError) Temporary() bool {
	return e.StatusCode == http.StatusTooManyRequests || e.StatusCode == http.StatusServiceUnavailable
}

// IsNotFound reports whether err is a 404 of the API (an execution or key
// that does not exist or that the caller may not see).
func IsNotFound(err error) bool { return statusIs(err, http.StatusNotFound) }

// IsConflict reports whether err is a 409 (e.g. reviewing an execution that
// is not pending review, or reading the output of an unfinished one).
func IsConflict(err error) bool { return statusIs(err, http.StatusConflict) }

func statusIs(err error, status int) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.StatusCode == status
}

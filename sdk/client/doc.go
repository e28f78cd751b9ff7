// Package client is the Go client of toolwarden's REST API: scan a tool
// call, submit it for execution, get, wait for (in bounded steps), cancel
// and read the output of executions, cancel a conversation, approve or
// reject held executions, and manage API keys.
//
// Every call takes a context and honours its deadline. Answers the server
// asks to retry — 429 (rate limited) and 503 (store unavailable) — are
// retried with exponential backoff, waiting at least the Retry-After the
// server sent; calls that create something (Submit, CreateKey) are retried
// only on 429, which the server answers before doing anything, so a retry
// never runs a command twice. Every other error answer is an *APIError
// carrying the API's error body (code, message and the field at fault).
//
// The package lives in the sdk module and depends on nothing but it and
// the standard library, so agents can use it without pulling in the
// server.
package client

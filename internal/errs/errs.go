// Package errs is the typed error that crosses package boundaries: a code
// the caller branches on, the operation that failed, and the cause. Callers
// test the code with Has (errors.As underneath), never the error text, so
// rewording a message cannot change what a caller does.
package errs

import "errors"

// Code is what kind of failure an Error is; callers branch on it.
type Code string

// Codes in use between packages.
const (
	// InvalidCursor: a List cursor that does not decode (the API's 400
	// naming "cursor").
	InvalidCursor Code = "invalid_cursor"
	// IsolationRefused: the isolation backend refused to start a run (as
	// opposed to a bad request: a missing cwd, an unknown language); the
	// executor pauses its claims while it keeps happening.
	IsolationRefused Code = "isolation_refused"
)

// Error is a failure with a code, the operation and the cause.
type Error struct {
	Code Code
	// Op names the operation, e.g. "runner.Start" or "execution.DecodeCursor".
	Op  string
	Err error
}

// New returns an Error of code for op caused by err.
func New(code Code, op string, err error) *Error { return &Error{Code: code, Op: op, Err: err} }

// Error is "<op>: <cause>".
func (e *Error) Error() string {
	if e.Err == nil {
		return e.Op + ": " + string(e.Code)
	}
	return e.Op + ": " + e.Err.Error()
}

// Unwrap returns the cause, so errors.Is sees through an Error.
func (e *Error) Unwrap() error { return e.Err }

// Has reports whether an Error of code is anywhere in err's chain.
func Has(err error, code Code) bool {
	var e *Error
	for errors.As(err, &e) {
		if e.Code == code {
			return true
		}
		err = e.Err
	}
	return false
}

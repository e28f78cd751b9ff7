package execution

import "errors"

// Sentinel errors every backend returns (wrapped with context), so the HTTP
// layer can map them to status codes without knowing the backend.
var (
	// ErrNotFound: no record with that id (404).
	ErrNotFound = errors.New("execution not found")
	// ErrExists: Create with an id that is already stored (409).
	ErrExists = errors.New("execution already exists")
	// ErrInvalidRecord: a record or argument that must not be stored (400).
	ErrInvalidRecord = errors.New("invalid execution record")
	// ErrInvalidTransition: the status change is not in the transition table (409).
	ErrInvalidTransition = errors.New("invalid status transition")
	// ErrLeaseLost: the worker no longer holds the record's lease — it expired,
	// another worker has it, or it was orphaned. The worker must stop writing.
	ErrLeaseLost = errors.New("execution lease lost")
	// ErrAlreadyFinished: the record is terminal; its result is written once.
	ErrAlreadyFinished = errors.New("execution already finished")
	// ErrNoWork: Claim found nothing queued within its wait.
	ErrNoWork = errors.New("no queued execution")
	// ErrUnavailable: the backing store cannot be reached (503). Never
	// treated as "no record" or "no work" by callers: fail closed.
	ErrUnavailable = errors.New("execution store unavailable")
	// ErrClosed: the backend was closed.
	ErrClosed = errors.New("execution backend closed")
)

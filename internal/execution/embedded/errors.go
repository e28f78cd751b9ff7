package embedded

import "errors"

// ErrLocked: another process has the data directory open. The embedded
// backend is single-process by design; use the Redis backend to share.
var ErrLocked = errors.New("executions data directory is in use by another process")

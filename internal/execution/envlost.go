package execution

// EnvLostOutcome is the terminal outcome a backend writes, at claim, for a
// record whose environment values cannot be handed to the worker (lost
// with the memory of a restarted process, deleted from the store, or sealed
// under another secrets key). Running it without them would run something
// other than what was asked, so it fails, saying why, and never runs.
func EnvLostOutcome(reason string) *Record {
	return &Record{Status: StatusFailed, IsError: true, Cleanup: CleanupDone,
		Error:        "not run: " + reason + " (environment values are never stored in plain text)",
		StatusReason: reason}
}

//go:build !linux

package staged

// readBeneath cannot confine path resolution to the workspace without
// openat2, so nothing is read: every file is unreadable, which the scan
// reports for review rather than trusting a path it could not resolve
// safely.
func readBeneath(root, rel string, max int64) Read {
	return Read{File: File{Path: rel, State: StateUnreadable}}
}

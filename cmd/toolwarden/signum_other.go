//go:build !unix

package main

// signalNum is 0 off Unix: there are no signal numbers to report, and
// `toolwarden run` exits 1 for a run ended by a signal.
func signalNum(name string) int { return 0 }

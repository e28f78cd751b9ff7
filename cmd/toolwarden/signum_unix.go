//go:build unix

package main

import "golang.org/x/sys/unix"

// signalNum is the number of a signal named like "SIGKILL" (0 if
// unknown), so that `toolwarden run` exits 128+N like a shell.
func signalNum(name string) int { return int(unix.SignalNum(name)) }

//go:build linux

package isolation

import (
	"os/signal"
	"syscall"
)

// signalIgnore makes a helper process immune to the signals a terminal or
// a process-group kill of its parent would send.
func signalIgnore() {
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGPIPE)
}

//go:build linux

package isolation

import (
	"context"
	"errors"
	"fmt"
	"net"
	"runtime"

	"golang.org/x/sys/unix"
)

// listenInNetns opens a TCP listener on addr inside the network namespace
// of process pid (a shim or supervisor the daemon just cloned with
// CLONE_NEWNET, not yet running the workload). It brings that namespace's
// loopback up first, since 127.0.0.1 only exists on an up "lo".
//
// The socket is created by one OS thread that enters the namespace and
// leaves it again; a socket keeps the namespace it was created in, so the
// daemon serves it from the host namespace afterwards. If the thread
// cannot return to the host namespace it stays locked, and the Go runtime
// destroys it when the goroutine ends, so no other goroutine ever runs in
// the run's namespace.
func listenInNetns(pid int, addr string) (net.Listener, error) {
	type result struct {
		ln  net.Listener
		err error
	}
	res := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		ln, restored, err := listenOnThread(pid, addr)
		if restored {
			runtime.UnlockOSThread()
		}
		res <- result{ln, err}
	}()
	r := <-res
	return r.ln, r.err
}

// listenOnThread does the work of listenInNetns on the locked calling
// thread and reports whether the thread is back in its own namespace.
func listenOnThread(pid int, addr string) (ln net.Listener, restored bool, err error) {
	self, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, true, fmt.Errorf("isolation: egress listener: open own netns: %w", err)
	}
	defer unix.Close(self)
	target, err := unix.Open(fmt.Sprintf("/proc/%d/ns/net", pid), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, true, fmt.Errorf("isolation: egress listener: open run netns: %w", err)
	}
	defer unix.Close(target)
	if err := unix.Setns(target, unix.CLONE_NEWNET); err != nil {
		return nil, true, fmt.Errorf("isolation: egress listener: enter run netns: %w", err)
	}
	ln, lerr := func() (net.Listener, error) {
		if err := loopbackUp(); err != nil {
			return nil, err
		}
		var lc net.ListenConfig
		return lc.Listen(context.Background(), "tcp4", addr)
	}()
	if err := unix.Setns(self, unix.CLONE_NEWNET); err != nil {
		if ln != nil {
			ln.Close()
		}
		return nil, false, errors.Join(lerr, fmt.Errorf("isolation: egress listener: return to host netns: %w", err))
	}
	if lerr != nil {
		return nil, true, fmt.Errorf("isolation: egress listener on %s: %w", addr, lerr)
	}
	return ln, true, nil
}

// egressHook returns startShim's afterStart callback for spec: it opens
// the egress listener in the namespace of the process just started and
// hands it to spec.EgressProxy. *held receives the listener so the
// backend closes it when the run has ended (or failed to start).
func egressHook(spec Spec, held *net.Listener) func(pid int) error {
	if spec.EgressProxy == nil {
		return nil
	}
	return func(pid int) error {
		ln, err := listenInNetns(pid, EgressProxyAddr)
		if err != nil {
			return err
		}
		*held = ln
		if err := spec.EgressProxy(ln); err != nil {
			return fmt.Errorf("isolation: egress proxy refused the run: %w", err)
		}
		return nil
	}
}

package isolation

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// fdEgress is the supervisor's optional end of a unix socket pair (user
// namespace runs with an egress proxy only): the supervisor opens the
// egress listener inside the run's network namespace, sends it over this
// socket and waits for the daemon's one-byte go-ahead.
const fdEgress = 7

// egressArg follows supervisorArg on the supervisor's command line when
// fdEgress is open.
const egressArg = "egress"

// probeUserNS reports whether this (unprivileged) process may create a
// user namespace with a network namespace in it, by starting /bin/true so
// (the same clone the supervisor gets). The error says why not: a kernel
// without user namespaces, user.max_user_namespaces at 0, or an LSM
// restricting them.
func probeUserNS() error {
	cmd := exec.Command("/bin/true")
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:                 unix.CLONE_NEWUSER | unix.CLONE_NEWNET,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}},
		GidMappingsEnableSetgroups: false,
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("user namespaces unavailable: %w", err)
	}
	return nil
}

// socketPair returns both ends of a unix stream socket pair, close-on-exec
// (the child's end is passed explicitly through ExtraFiles).
func socketPair() (mine, theirs *os.File, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("isolation: egress socket pair: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "egress-daemon"), os.NewFile(uintptr(fds[1]), "egress-supervisor"), nil
}

// egressFromSupervisor is startShim's afterStart callback for a user
// namespace run with an egress proxy: it receives the listener the
// supervisor opened at EgressProxyAddr inside the run's network namespace,
// hands it to spec.EgressProxy and only then lets the supervisor go on.
// Any failure (no listener within startBound, a proxy that refuses) closes
// the socket, and the supervisor stops before starting the workload.
func egressFromSupervisor(spec Spec, sock *os.File, held *net.Listener) func(pid int) error {
	return func(int) error {
		c, err := net.FileConn(sock)
		if err != nil {
			return fmt.Errorf("isolation: egress socket: %w", err)
		}
		defer c.Close()
		uc, ok := c.(*net.UnixConn)
		if !ok {
			return errors.New("isolation: egress socket is not a unix socket")
		}
		_ = uc.SetDeadline(time.Now().Add(startBound))
		buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4))
		_, oobn, _, _, err := uc.ReadMsgUnix(buf, oob)
		if err != nil {
			return fmt.Errorf("isolation: receive egress listener from the supervisor: %w", err)
		}
		ln, err := listenerFromRights(oob[:oobn])
		if err != nil {
			return err
		}
		*held = ln
		if err := spec.EgressProxy(ln); err != nil {
			return fmt.Errorf("isolation: egress proxy refused the run: %w", err)
		}
		if _, err := uc.Write([]byte{1}); err != nil {
			return fmt.Errorf("isolation: egress go-ahead: %w", err)
		}
		return nil
	}
}

// listenerFromRights turns the one descriptor of an SCM_RIGHTS message
// into a net.Listener.
func listenerFromRights(oob []byte) (net.Listener, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil || len(msgs) != 1 {
		return nil, fmt.Errorf("isolation: egress listener message: %d messages, %v", len(msgs), err)
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return nil, fmt.Errorf("isolation: egress listener message: %d descriptors, %v", len(fds), err)
	}
	f := os.NewFile(uintptr(fds[0]), "egress-listener")
	defer f.Close()
	ln, err := net.FileListener(f)
	if err != nil {
		return nil, fmt.Errorf("isolation: egress listener: %w", err)
	}
	return ln, nil
}

// supervisorEgress is the supervisor's side of egressFromSupervisor, run
// first thing when fdEgress is open: bring the namespace's loopback up,
// listen at EgressProxyAddr, send the listener, wait for the go-ahead.
// Without the egressArg argument (and so without fdEgress) it does
// nothing.
func supervisorEgress() error {
	if len(os.Args) < 3 || os.Args[2] != egressArg {
		return nil // no egress socket: a run without a proxy
	}
	sock := os.NewFile(fdEgress, "egress")
	defer sock.Close()
	if err := loopbackUp(); err != nil {
		return err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(context.Background(), "tcp4", EgressProxyAddr)
	if err != nil {
		return fmt.Errorf("egress listener on %s: %w", EgressProxyAddr, err)
	}
	defer ln.Close()
	lf, err := ln.(*net.TCPListener).File()
	if err != nil {
		return fmt.Errorf("egress listener: %w", err)
	}
	defer lf.Close()
	if err := unix.Sendmsg(fdEgress, []byte{0}, unix.UnixRights(int(lf.Fd())), nil, 0); err != nil {
		return fmt.Errorf("send egress listener: %w", err)
	}
	ack := make([]byte, 1)
	if n, err := sock.Read(ack); err != nil || n != 1 || ack[0] != 1 {
		return fmt.Errorf("egress proxy did not accept the run (%v)", err)
	}
	return nil
}

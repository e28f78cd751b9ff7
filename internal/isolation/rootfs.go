//go:build linux

package isolation

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// systemDirs are the host directories a run sees, read-only, at the same
// path (a symlink such as /bin -> usr/bin stays a symlink). /usr covers
// /usr/local, so interpreters and toolchains installed there (go) work.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/etc"}

// maskedEtc are secrets below /etc that a run never reads: password
// hashes, sudo rules, host private keys and this service's own
// configuration. Files are covered by /dev/null, directories by an empty
// read-only tmpfs; glob patterns are expanded at run start.
var maskedEtc = []string{
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-",
	"/etc/sudoers", "/etc/sudoers.d", "/etc/security/opasswd",
	"/etc/ssh/ssh_host_*_key", "/etc/ssl/private", "/etc/pki/tls/private",
	"/etc/krb5.keytab", "/etc/credstore", "/etc/credstore.encrypted",
	"/etc/letsencrypt", "/etc/toolwarden", "/etc/docker", "/etc/containerd",
	"/etc/kubernetes", "/etc/rancher", "/etc/wireguard", "/etc/NetworkManager/system-connections",
	"/etc/ipsec.secrets", "/etc/ppp", "/etc/machine-id",
}

// devNodes are the character devices of the run's minimal /dev, bound
// from the host's nodes (no other device is reachable).
var devNodes = []string{"null", "zero", "full", "random", "urandom", "tty"}

// newRootDir is where the shim assembles the run's root (in its own mount
// namespace, on a tmpfs mounted over the host's /tmp there) before
// pivot_root makes it "/".
const newRootDir = "/tmp"

// buildRoot gives the shim (root, in fresh mount, PID and network
// namespaces) a root made for the run, the way bubblewrap does: a tmpfs
// with read-only binds of the system directories, /etc without secrets,
// size-capped private /tmp and /dev/shm, a minimal /dev, a fresh /proc
// and the workspace read-write at its own path, then pivot_root and a
// lazy unmount of the host's tree. Nothing else of the host is reachable
// by path afterwards: not /run, /var, /home, /root, /srv, the data dir or
// any other workspace. It leaves the shim in cfg.Dir.
//
// It is prepareRoot (what every run's root has in common) then finishRoot
// (what depends on the run, or must be read when it starts); a warm shim
// does the first before its run is known (see warmShim).
func buildRoot(cfg shimConfig) error {
	hostTmp, err := prepareRoot(cfg.TmpfsBytes)
	if err != nil {
		return err
	}
	defer unix.Close(hostTmp)
	return finishRoot(cfg, hostTmp)
}

// prepareRoot assembles at newRootDir the part of the run's root that is
// the same for every run: the root tmpfs, the read-only system binds, /dev
// with its capped /dev/shm, the capped /tmp and a fresh /proc. hostTmp is
// the host's newRootDir, opened before the root tmpfs covered it, so that a
// workspace below it can still be found (openWorkspace).
func prepareRoot(tmpfsBytes int64) (hostTmp int, err error) {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return -1, fmt.Errorf("root: make mounts private: %w", err)
	}
	hostTmp, err = unix.Open(newRootDir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("root: open %s: %w", newRootDir, err)
	}
	defer func() {
		if err != nil {
			unix.Close(hostTmp)
			hostTmp = -1
		}
	}()
	return hostTmp, assembleRoot(tmpfsBytes)
}

// assembleRoot does the mounts of prepareRoot.
func assembleRoot(tmpfsBytes int64) error {
	// The run's root: a small tmpfs that holds only mount points.
	if err := unix.Mount("tmpfs", newRootDir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=1m,nr_inodes=4096"); err != nil {
		return fmt.Errorf("root: mount root tmpfs: %w", err)
	}
	nr := func(p string) string { return newRootDir + p }
	for _, d := range systemDirs {
		if err := bindSystem(d, nr(d)); err != nil {
			return err
		}
	}
	if err := buildDev(nr("/dev"), tmpfsBytes); err != nil {
		return err
	}
	if err := mountTmpfs(nr("/tmp"), "mode=1777", tmpfsBytes); err != nil {
		return err
	}
	if err := mkdirAll(nr("/proc")); err != nil {
		return err
	}
	if err := unix.Mount("proc", nr("/proc"), "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("root: mount /proc: %w", err)
	}
	return nil
}

// finishRoot completes the root prepareRoot assembled: the secrets of /etc
// masked (the glob patterns expanded now, when the run starts), the
// workspace bound read-write, the root made read-only, pivot_root into it
// and the host's tree detached; it leaves the shim in cfg.Dir.
func finishRoot(cfg shimConfig, hostTmp int) error {
	nr := func(p string) string { return newRootDir + p }
	if cfg.Workspace != "" {
		ws := filepath.Clean(cfg.Workspace)
		fd, err := openWorkspace(ws, hostTmp)
		if err != nil {
			return &workspaceError{ws: ws, err: err}
		}
		defer unix.Close(fd)
		if err := mkdirAll(nr(ws)); err != nil {
			return err
		}
		src := fmt.Sprintf("/proc/self/fd/%d", fd)
		if err := unix.Mount(src, nr(ws), "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("root: bind workspace %s: %w", ws, err)
		}
		if err := remount(nr(ws), unix.MS_NOSUID|unix.MS_NODEV, false); err != nil {
			return err
		}
	}
	if err := maskSecrets(nr); err != nil {
		return err
	}
	// The root tmpfs itself becomes read-only: a run creates files only
	// in its workspace, /tmp and /dev/shm.
	if err := unix.Mount("", newRootDir, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
		return fmt.Errorf("root: make root read-only: %w", err)
	}
	if err := os.Chdir(newRootDir); err != nil {
		return fmt.Errorf("root: enter new root: %w", err)
	}
	// pivot_root(".", ".") stacks the old root on top of the new one;
	// detaching it leaves only the run's tree.
	if err := unix.PivotRoot(".", "."); err != nil {
		return fmt.Errorf("root: pivot_root: %w", err)
	}
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("root: detach host root: %w", err)
	}
	if err := os.Chdir(cfg.Dir); err != nil {
		return fmt.Errorf("root: working directory %s: %w", cfg.Dir, err)
	}
	return nil
}

// openWorkspace opens the workspace ws (O_PATH) as the host sees it: one
// below newRootDir through hostTmp, the host's directory that the root
// tmpfs now covers.
func openWorkspace(ws string, hostTmp int) (int, error) {
	rel, below := strings.CutPrefix(ws, newRootDir+"/")
	if ws == newRootDir {
		rel, below = ".", true
	}
	if below {
		return unix.Openat(hostTmp, rel, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}
	return unix.Open(ws, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
}

// workspaceError is a workspace the shim cannot open. A warm shim reports
// it as stale: the workspace may sit on a mount made after the shim's mount
// namespace was copied, and a fresh shim would see it.
type workspaceError struct {
	ws  string
	err error
}

func (e *workspaceError) Error() string {
	return fmt.Sprintf("root: open workspace %s: %v", e.ws, e.err)
}
func (e *workspaceError) Unwrap() error { return e.err }

// bindSystem mirrors the host's src at dst: a symlink as the same
// symlink, a directory as a recursive read-only bind; absent is skipped.
func bindSystem(src, dst string) error {
	st, err := os.Lstat(src)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("root: %s: %w", src, err)
	}
	if st.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(src)
		if err != nil {
			return fmt.Errorf("root: read link %s: %w", src, err)
		}
		if err := os.Symlink(target, dst); err != nil {
			return fmt.Errorf("root: link %s: %w", dst, err)
		}
		return nil
	}
	if !st.IsDir() {
		return nil
	}
	if err := mkdirAll(dst); err != nil {
		return err
	}
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("root: bind %s: %w", src, err)
	}
	return remount(dst, unix.MS_NOSUID|unix.MS_NODEV, true)
}

// remount applies flags (and read-only when ro) to the bind mount at dst
// and, through mount_setattr, to every mount below it.
func remount(dst string, flags uintptr, ro bool) error {
	attr := unix.MountAttr{}
	if flags&unix.MS_NOSUID != 0 {
		attr.Attr_set |= unix.MOUNT_ATTR_NOSUID
	}
	if flags&unix.MS_NODEV != 0 {
		attr.Attr_set |= unix.MOUNT_ATTR_NODEV
	}
	if ro {
		attr.Attr_set |= unix.MOUNT_ATTR_RDONLY
	}
	err := unix.MountSetattr(unix.AT_FDCWD, dst, unix.AT_RECURSIVE|unix.AT_NO_AUTOMOUNT, &attr)
	if err == nil {
		return nil
	}
	if !errors.Is(err, unix.ENOSYS) {
		return fmt.Errorf("root: set mount attributes of %s: %w", dst, err)
	}
	// Kernels before 5.12: the top mount only.
	if ro {
		flags |= unix.MS_RDONLY
	}
	if err := unix.Mount("", dst, "", unix.MS_REMOUNT|unix.MS_BIND|flags, ""); err != nil {
		return fmt.Errorf("root: remount %s: %w", dst, err)
	}
	return nil
}

// maskSecrets covers maskedEtc in the run's /etc.
func maskSecrets(nr func(string) string) error {
	for _, pat := range maskedEtc {
		paths := []string{pat}
		if strings.ContainsAny(pat, "*?[") {
			paths, _ = filepath.Glob(pat)
		}
		for _, p := range paths {
			st, err := os.Lstat(p)
			if err != nil || st.Mode()&os.ModeSymlink != 0 {
				// Absent, or a symlink whose target is outside the run.
				continue
			}
			dst := nr(p)
			if st.IsDir() {
				if err := unix.Mount("tmpfs", dst, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=0755,size=4k"); err != nil {
					return fmt.Errorf("root: mask %s: %w", p, err)
				}
				continue
			}
			if err := unix.Mount("/dev/null", dst, "", unix.MS_BIND, ""); err != nil {
				return fmt.Errorf("root: mask %s: %w", p, err)
			}
		}
	}
	return nil
}

// buildDev makes the run's minimal /dev: the devNodes, a private devpts
// with ptmx, the fd/stdin/stdout/stderr links and a size-capped /dev/shm.
func buildDev(dev string, shmBytes int64) error {
	if err := mkdirAll(dev); err != nil {
		return err
	}
	if err := unix.Mount("tmpfs", dev, "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "mode=0755,size=64k"); err != nil {
		return fmt.Errorf("root: mount /dev: %w", err)
	}
	for _, n := range devNodes {
		src, dst := "/dev/"+n, filepath.Join(dev, n)
		if _, err := os.Stat(src); err != nil {
			continue
		}
		f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o666)
		if err != nil {
			return fmt.Errorf("root: /dev/%s: %w", n, err)
		}
		f.Close()
		if err := unix.Mount(src, dst, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("root: bind /dev/%s: %w", n, err)
		}
	}
	if err := mkdirAll(filepath.Join(dev, "pts")); err != nil {
		return err
	}
	if err := unix.Mount("devpts", filepath.Join(dev, "pts"), "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620"); err == nil {
		if err := os.Symlink("pts/ptmx", filepath.Join(dev, "ptmx")); err != nil {
			return fmt.Errorf("root: /dev/ptmx: %w", err)
		}
	}
	for name, target := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(target, filepath.Join(dev, name)); err != nil {
			return fmt.Errorf("root: /dev/%s: %w", name, err)
		}
	}
	return mountTmpfs(filepath.Join(dev, "shm"), "mode=1777", shmBytes)
}

// mountTmpfs mounts a size-capped tmpfs at dst (created first).
func mountTmpfs(dst, opts string, size int64) error {
	if err := mkdirAll(dst); err != nil {
		return err
	}
	if size > 0 {
		opts += fmt.Sprintf(",size=%d", size)
	}
	if err := unix.Mount("tmpfs", dst, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		return fmt.Errorf("root: mount tmpfs %s: %w", dst, err)
	}
	return nil
}

func mkdirAll(p string) error {
	if err := os.MkdirAll(p, 0o755); err != nil {
		return fmt.Errorf("root: create %s: %w", p, err)
	}
	return nil
}

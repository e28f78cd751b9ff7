//go:build linux

package isolation

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// unprivProbe is the workload of the unprivileged-daemon tests: each line
// it prints is "name=value" for one thing the run could or could not do.
const unprivProbe = `
id -u | sed 's/^/uid=/'
grep '^CapEff' /proc/self/status | awk '{print "capeff=" $2}'
grep '^CapBnd' /proc/self/status | awk '{print "capbnd=" $2}'
if (exec 3<>/dev/tcp/127.0.0.1/$HOST_PORT) 2>/dev/null; then echo host_tcp=reached; else echo host_tcp=refused; fi
if [ -e "$HOST_SOCK" ]; then echo host_sock=visible; else echo host_sock=absent; fi
for d in /run /home /root /var /srv "$HOST_DATA"; do [ -e "$d" ] && echo "visible=$d"; done
if touch /usr/tw-probe 2>/dev/null; then echo usr_write=ok; else echo usr_write=refused; fi
if echo x > "$PWD/own" 2>/dev/null; then echo ws_write=ok; else echo ws_write=refused; fi
if mount -t tmpfs x /tmp 2>/dev/null; then echo mount=ok; else echo mount=refused; fi
if [ -n "$EGRESS" ]; then exec 4<>/dev/tcp/127.0.0.1/3128 && head -c 5 <&4 | sed 's/^/egress=/'; echo; fi
echo done=1
`

// TestUnprivilegedDaemonRunsInOwnNamespaces runs the process_group backend
// from a daemon that is not root (uid 65534, as a developer's toolwarden
// would be) and checks that its runs get the same confinement a root
// daemon gives them: their own network namespace (a TCP listener on the
// host's loopback is unreachable), their own root (no /run, /home, data
// dir; the host's unix socket cannot even be named), no capabilities, and
// an egress proxy listener handed over by the supervisor.
func TestUnprivilegedDaemonRunsInOwnNamespaces(t *testing.T) {
	needRoot(t)
	if err := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "unshare", "-Urn", "true").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but unprivileged user namespaces are unavailable: %v", err)
		}
		t.Skipf("unprivileged user namespaces unavailable here: %v", err)
	}
	// A host service on loopback and a pathname unix socket under a host
	// directory the workload must not reach.
	hostLn, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hostLn.Close()
	go func() {
		for {
			c, err := hostLn.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("HOST\n"))
			c.Close()
		}
	}()
	hostDir, err := os.MkdirTemp("/run", "tw-userns-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(hostDir)
	os.Chmod(hostDir, 0o755)
	sockLn, err := net.Listen("unix", filepath.Join(hostDir, "service.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer sockLn.Close()
	os.Chmod(filepath.Join(hostDir, "service.sock"), 0o777)

	// The daemon: this test binary, copied where uid 65534 can execute it.
	binDir, err := os.MkdirTemp("", "tw-userns-bin-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(binDir)
	os.Chmod(binDir, 0o755)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(binDir, "isolation.test")
	copyFile(t, self, bin, 0o755)
	ws := workspace(t)
	os.Chmod(ws, 0o700)
	dataDir := t.TempDir()

	for _, egress := range []bool{false, true} {
		t.Run(fmt.Sprintf("egress=%v", egress), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "-test.run=^$")
			cmd.Env = []string{"TW_TEST_HELPER=unpriv", "PATH=/usr/bin:/bin", "TW_WS=" + ws,
				"HOST_PORT=" + fmt.Sprint(hostLn.Addr().(*net.TCPAddr).Port), "HOST_SOCK=" + filepath.Join(hostDir, "service.sock"),
				"HOST_DATA=" + dataDir, fmt.Sprintf("TW_EGRESS=%v", egress)}
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobodyID, Gid: nobodyID}}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("unprivileged daemon: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
			}
			got := map[string][]string{}
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				if k, v, ok := strings.Cut(sc.Text(), "="); ok {
					got[k] = append(got[k], v)
				}
			}
			want := map[string]string{"done": "1", "capeff": "0000000000000000", "capbnd": "0000000000000000",
				"host_tcp": "refused", "host_sock": "absent", "usr_write": "refused", "ws_write": "ok", "mount": "refused"}
			if egress {
				want["egress"] = "HELLO"
			}
			for k, v := range want {
				if len(got[k]) != 1 || got[k][0] != v {
					t.Errorf("%s = %q, want %q\n%s", k, got[k], v, out)
				}
			}
			if len(got["visible"]) != 0 {
				t.Errorf("host directories visible in the run: %q", got["visible"])
			}
			var layers []string
			if err := json.Unmarshal([]byte(strings.Join(got["layers"], "")), &layers); err != nil {
				t.Fatalf("layers: %v\n%s", err, out)
			}
			for _, l := range []string{"netns", "pidns", "root", "userns", "no-caps", "landlock"} {
				if !contains(layers, l) {
					t.Errorf("layer %s missing: %v", l, layers)
				}
			}
		})
	}
}

// helperUnprivileged is the unprivileged daemon of
// TestUnprivilegedDaemonRunsInOwnNamespaces: it opens the process_group
// backend, runs unprivProbe and prints its output and the run's layers.
func helperUnprivileged() {
	fail := func(err error) {
		fmt.Println("error=" + err.Error())
		os.Exit(1)
	}
	if os.Geteuid() == 0 {
		fail(fmt.Errorf("helper runs as root"))
	}
	b, err := Open(context.Background(), Config{Mode: ModeProcessGroup})
	if err != nil {
		fail(err)
	}
	defer b.Close()
	ws := os.Getenv("TW_WS")
	env := []string{"PATH=/usr/bin:/bin", "HOST_PORT=" + os.Getenv("HOST_PORT"), "HOST_SOCK=" + os.Getenv("HOST_SOCK"), "HOST_DATA=" + os.Getenv("HOST_DATA")}
	spec := Spec{Path: "/bin/bash", Args: []string{"bash", "-c", unprivProbe}, Dir: ws, Workspace: ws}
	if os.Getenv("TW_EGRESS") == "true" {
		env = append(env, "EGRESS=1")
		spec.EgressProxy = func(ln net.Listener) error {
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					io.WriteString(c, "HELLO")
					c.Close()
				}
			}()
			return nil
		}
	}
	spec.Env = env
	var out bytes.Buffer
	spec.Stdout, spec.Stderr = &out, &out
	p, err := b.Start(context.Background(), spec)
	if err != nil {
		fail(err)
	}
	if _, err := p.Wait(); err != nil {
		fail(err)
	}
	fmt.Print(out.String())
	layers, _ := json.Marshal(p.Layers())
	fmt.Println("layers=" + string(layers))
}

// TestUnprivilegedWithoutUserNSRefuses checks the fail-closed side: an
// unprivileged process_group backend that cannot create user namespaces
// refuses runs (they would share the host's network) unless
// allow_shared_host says otherwise.
func TestUnprivilegedWithoutUserNSRefuses(t *testing.T) {
	b := &pgBackend{cfg: Config{}, usernsReason: "test: no user namespaces"}
	defer func(f func() int) { daemonEUID = f }(daemonEUID)
	daemonEUID = func() int { return 1000 }
	_, err := b.Start(context.Background(), Spec{Path: "/bin/true", Dir: "/"})
	if err == nil || !strings.Contains(err.Error(), "allow_shared_host") {
		t.Fatalf("start without user namespaces = %v, want a refusal naming allow_shared_host", err)
	}
}

func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

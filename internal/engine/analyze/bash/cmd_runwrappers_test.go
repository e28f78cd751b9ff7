package bash

import "testing"

// TestRunWrappers: the programs that run the command in their arguments
// after options of their own hand it on as a command of its own, their
// options' values skipped; the modes that run nothing hand on nothing.
func TestRunWrappers(t *testing.T) {
	runs := []string{
		"systemd-run rm -rf /x",
		"systemd-run --user --scope -p MemoryMax=1G --unit=job -E A=b --working-directory /tmp rm -rf /x",
		"systemd-run --on-calendar daily --setenv A=b rm -rf /x",
		"nsenter -t 1 -m -u -n rm -rf /x",
		"nsenter --target 1 --mount=/proc/1/ns/mnt rm -rf /x",
		"unshare -r -R /srv/root -w /tmp rm -rf /x",
		"unshare --map-user 0 --propagation private rm -rf /x",
		"setpriv --reuid 1000 --regid 1000 --init-groups rm -rf /x",
		"capsh --caps=cap_sys_admin+ep -- -c 'rm -rf /x'",
		"ip netns exec ns1 rm -rf /x",
		"ip -all netns exec rm -rf /x",
		"ip net e ns1 rm -rf /x",
		"firejail --noprofile --private=/tmp/x rm -rf /x",
		"bwrap --ro-bind / / --dev /dev --setenv A b --overlay a b c rm -rf /x",
		"proot -r /srv/root -b /dev -w / rm -rf /x",
		"start-stop-daemon --start --exec /bin/rm -- -rf /x",
		"start-stop-daemon -S -p /run/x.pid -x /bin/rm -- -rf /x",
		"runuser -u bob -- rm -rf /x",
		"runuser -l bob -c 'rm -rf /x'",
		"sg docker -c 'rm -rf /x'",
		"sg docker 'rm -rf /x'",
		"doas -u root rm -rf /x",
		"pkexec --user root rm -rf /x",
		"chrt -f 10 rm -rf /x",
		"chrt --sched-runtime 5 -d 0 rm -rf /x",
		"taskset -c 1 rm -rf /x",
		"taskset 0x3 rm -rf /x",
		"numactl --cpunodebind=0 -m 0 rm -rf /x",
		"prlimit --nofile=10 -n rm -rf /x",
		"cgexec -g cpu:grp rm -rf /x",
		"stdbuf -o L rm -rf /x",
		"unbuffer -p rm -rf /x",
		"faketime -f '2020-01-01 00:00:00' rm -rf /x",
		"torsocks -P 9050 rm -rf /x",
		"proxychains -f x.conf rm -rf /x",
		"proxychains4 -q rm -rf /x",
	}
	for _, src := range runs {
		f := run(t, src)
		if findCmd(f, "rm", "-rf", "/x") == nil {
			t.Errorf("%q: the inner rm -rf /x is not a command\n%s", src, dump(f))
		}
	}
	none := []string{
		"chrt -p 10 1234",
		"taskset -p 0x3 1234",
		"prlimit -p 1234 --nofile=10",
		"ip addr show rm",
		"start-stop-daemon --stop --exec /bin/rm -- -rf /x",
		"numactl --show",
	}
	for _, src := range none {
		f := run(t, src)
		for _, c := range f.Commands[1:] {
			if c.Name == "rm" || c.Name == "1234" || c.Name == "show" {
				t.Errorf("%q: no command runs, but %s %q does\n%s", src, c.Name, c.Args, dump(f))
			}
		}
	}
}

// TestPipeThroughWrappers: a pipe into an interpreter behind any wrapper
// the registry sees through is re-scanned as code, as behind sudo; a
// wrapper that runs code of its own or nothing is not looked through.
func TestPipeThroughWrappers(t *testing.T) {
	for _, tail := range []string{
		"sudo sh",
		"firejail sh",
		"firejail --noprofile --private=/tmp/x bash -s",
		"setpriv --reuid=1 sh",
		"setpriv --reuid 1000 --init-groups sh",
		"systemd-run --pipe sh",
		"systemd-run --user -P --unit job bash",
		"sudo -u root firejail env A=b sh",
		"nsenter -t 1 -m sh",
		"bwrap --ro-bind / / --dev /dev sh",
		"runuser -u bob -- sh",
		"timeout 10 sh",
		"env -S 'sh -x'",
		"ip netns exec ns1 sh",
		"sudo ip -all netns exec bash -s",
		"env -i -S 'bash -s' --",
	} {
		src := "echo 'cat /etc/shadow' | " + tail
		f := run(t, src)
		if findFile(f, "read", "/etc/shadow") == nil {
			t.Errorf("%q: the piped text is not scanned as code\n%s", src, dump(f))
		}
	}
	for _, tail := range []string{
		"taskset -p 0x3 sh",
		"firejail cat",
		"ip addr show sh",
	} {
		src := "echo 'cat /etc/shadow' | " + tail
		if f := run(t, src); findFile(f, "read", "/etc/shadow") != nil {
			t.Errorf("%q: unexpected read of /etc/shadow\n%s", src, dump(f))
		}
	}
}

// TestXargsWholeItems: with -0 / -d the known input items are taken whole,
// so the static text piped into `xargs -0 sh -c` is the code sh runs.
func TestXargsWholeItems(t *testing.T) {
	for _, src := range []string{
		"echo 'cat /etc/shadow' | xargs -0 sh -c",
		"echo 'cat /etc/shadow' | xargs --null bash -c",
		"echo 'cat /etc/shadow' | xargs -r0 sh -c",
		`echo 'cat /etc/shadow' | xargs -d '\n' sh -c`,
		`echo 'cat /etc/shadow' | xargs -d $'\n' -n 1 sh -c`,
		`printf 'cat /etc/shadow\0' | xargs -0 -n1 sh -c`,
		`printf 'true\ncat /etc/shadow\n' | xargs -d '\n' -n 1 sh -c`,
		`xargs --delimiter='\n' sh -c <<< 'cat /etc/shadow'`,
		"echo 'cat /etc/shadow' | sudo xargs -0 sh -c",
	} {
		f := run(t, src)
		if findFile(f, "read", "/etc/shadow") == nil {
			t.Errorf("%q: the piped item is not sh's code\n%s", src, dump(f))
		}
	}
	// The first item is the code; the next ones are its $0 and arguments.
	for _, src := range []string{
		`printf 'true\ncat /etc/shadow\n' | xargs -d '\n' sh -c`,
		"echo 'cat /etc/shadow' | xargs -0 echo",
	} {
		if f := run(t, src); findFile(f, "read", "/etc/shadow") != nil {
			t.Errorf("%q: unexpected read of /etc/shadow\n%s", src, dump(f))
		}
	}
}

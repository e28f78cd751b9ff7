package filesystem

import (
	"testing"

	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/catalog"
	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/packtest"
	"github.com/toolwarden/toolwarden/sdk"
)

type C = packtest.Case

var (
	deny   = sdk.Deny
	review = sdk.NeedsHumanReview
)

func file(path, op, by string) sdk.FileAccess {
	return sdk.FileAccess{Path: path, Op: op, By: by, Evidence: by + " " + path, Pos: sdk.Pos{Line: 1, Col: 1}}
}

func del(path string, rec, force bool, by string) sdk.FileAccess {
	f := file(path, "delete", by)
	f.Recursive, f.Force = rec, force
	return f
}

func cmds(c ...sdk.Command) sdk.Facts { return sdk.Facts{Commands: c} }

func TestDeletes(t *testing.T) {
	find := packtest.Cmd(1, "find", "/", "-maxdepth", "0")
	rmExec := packtest.Cmd(2, "rm", "-rf", "{}")
	rmExec.Reach = []string{"find_exec"}
	pyDyn := del("os.path.join(root, name)", false, false, "os.remove")
	pyDyn.Dynamic = true
	dynRoot := del("/$X", true, true, "rm")
	dynRoot.Dynamic = true
	dynRel := del("$OUT", true, true, "rm")
	dynRel.Dynamic = true
	for p, want := range map[string]bool{"/$X": true, "~/$DIR": true, "/usr/$X": true, "/$X/*": true,
		"/tmp/$RUN_ID": false, "/tmp/$ID/build": false, "$OUT": false, "$OUT/x": false, "/home/$USER/build": false,
		"build-$X": false, "/usr/lib/$X/cache/x": false} {
		if got := dynamicSystemDelete(p); got != want {
			t.Errorf("dynamicSystemDelete(%q) = %v, want %v", p, got, want)
		}
	}
	packtest.Run(t, Scan, []C{
		{Name: "rm -rf / fact", Facts: sdk.Facts{Files: []sdk.FileAccess{del("/", true, true, "rm")}}, Rule: "BASH_RECURSIVE_DELETE", Want: deny},
		{Name: "rm -rf ~ from command only", Facts: cmds(packtest.Cmd(1, "rm", "-rf", "~")), Rule: "BASH_RECURSIVE_DELETE", Want: deny},
		{Name: "rm --recursive --force /var", Facts: cmds(packtest.Cmd(1, "rm", "--recursive", "--force", "/var")), Rule: "BASH_RECURSIVE_DELETE", Want: deny},
		{Name: "glob command word resolves to rm", Facts: cmds(sdk.Command{ID: 1, Path: "/bin/r?", Candidates: []string{"rm"}, Args: []string{"-rf", "/"}}), Rule: "BASH_RECURSIVE_DELETE", Want: deny},
		{Name: "rm -rf /*", Facts: cmds(packtest.Cmd(1, "rm", "-rf", "/*")), Rule: "BASH_RECURSIVE_DELETE", Want: deny},
		{Name: "rm -rf denied path", Facts: cmds(packtest.Cmd(1, "rm", "-rf", "~/.ssh")), Rule: "BASH_RECURSIVE_DELETE", Want: deny},
		{Name: "find / -exec rm -rf", Facts: cmds(find, rmExec), Rule: "BASH_RECURSIVE_DELETE", Want: deny},
		{Name: "find /etc -delete", Facts: cmds(packtest.Cmd(1, "find", "/etc", "-type", "f", "-delete")), Rule: "BASH_RECURSIVE_DELETE", Want: deny},
		{Name: "rm -rf /$X (empty var deletes root)", Facts: sdk.Facts{Files: []sdk.FileAccess{dynRoot}}, Rule: "BASH_RECURSIVE_DELETE", Want: deny},
		{Name: "nested rm -rf / counts like top level", Facts: sdk.Facts{Files: []sdk.FileAccess{{Path: "/", Op: "delete", Recursive: true, Force: true, By: "rm", Pos: sdk.Pos{Line: 3, Col: 1, Depth: 1, Via: "os.system"}}}}, Lang: "python", Rule: "BASH_RECURSIVE_DELETE", Want: deny},
		{Name: "echo / | xargs rm -rf", Facts: cmds(
			sdk.Command{ID: 1, Name: "echo", Args: []string{"/"}, Pipeline: 1, Pos: sdk.Pos{Line: 1, Col: 1}},
			sdk.Command{ID: 2, Name: "xargs", Args: []string{"rm", "-rf"}, Pipeline: 1, Stage: 1, StdinSources: []int{1}, Pos: sdk.Pos{Line: 1, Col: 10}},
			sdk.Command{ID: 3, Name: "rm", Args: []string{"-rf"}, Reach: []string{"xargs"}, Pos: sdk.Pos{Line: 1, Col: 10}}), Rule: "BASH_RECURSIVE_DELETE", Want: deny},
		{Name: "xargs <<< /", Facts: cmds(
			sdk.Command{ID: 1, Name: "xargs", Args: []string{"-I{}", "rm", "-rf", "{}"}, Redirects: []sdk.Redirect{{Op: "<<<", Target: "/"}}, Pos: sdk.Pos{Line: 1, Col: 1}},
			sdk.Command{ID: 2, Name: "rm", Args: []string{"-rf", "{}"}, Reach: []string{"xargs"}, Pos: sdk.Pos{Line: 1, Col: 1}}), Rule: "BASH_RECURSIVE_DELETE", Want: deny},
		{Name: "cd / && rm -rf *", Facts: cmds(
			sdk.Command{ID: 1, Name: "cd", Args: []string{"/"}, Pos: sdk.Pos{Line: 1, Col: 1}},
			sdk.Command{ID: 2, Name: "rm", Args: []string{"-rf", "*"}, Pos: sdk.Pos{Line: 1, Col: 9}}), Rule: "BASH_RECURSIVE_DELETE", Want: deny},
		{Name: "cd build && rm -rf *", Facts: cmds(
			sdk.Command{ID: 1, Name: "cd", Args: []string{"build"}, Pos: sdk.Pos{Line: 1, Col: 1}},
			sdk.Command{ID: 2, Name: "rm", Args: []string{"-rf", "*"}, Pos: sdk.Pos{Line: 1, Col: 13}}), Rule: "BASH_RECURSIVE_DELETE"},
		{Name: "busybox rm", Facts: cmds(packtest.Cmd(1, "busybox", "rm", "-rf", "/")), Rule: "BASH_RECURSIVE_DELETE", Want: deny},
		{Name: "git clean -fdx", Facts: cmds(packtest.Cmd(1, "git", "clean", "-fdx")), Rule: "WORKSPACE_RECURSIVE_DELETE_REVIEW", Want: review},
		{Name: "git clean -n", Facts: cmds(packtest.Cmd(1, "git", "clean", "-nd")), Rule: "WORKSPACE_RECURSIVE_DELETE_REVIEW"},
		{Name: "rm -rf build is workspace review", Facts: cmds(packtest.Cmd(1, "rm", "-rf", "build/")), Rule: "WORKSPACE_RECURSIVE_DELETE_REVIEW", Want: review},
		{Name: "rm -rf build is not a system delete", Facts: cmds(packtest.Cmd(1, "rm", "-rf", "build/")), Rule: "BASH_RECURSIVE_DELETE"},
		{Name: "rm -rf dynamic relative is review", Facts: sdk.Facts{Files: []sdk.FileAccess{dynRel}}, Rule: "WORKSPACE_RECURSIVE_DELETE_REVIEW", Want: review},
		{Name: "rm -rf dynamic relative is not deny", Facts: sdk.Facts{Files: []sdk.FileAccess{dynRel}}, Rule: "BASH_RECURSIVE_DELETE"},
		{Name: "rm file.txt is nothing", Facts: cmds(packtest.Cmd(1, "rm", "file.txt")), Rule: "WORKSPACE_RECURSIVE_DELETE_REVIEW"},
		{Name: "find . -exec rm -f is not recursive", Facts: cmds(packtest.Cmd(1, "find", ".", "-name", "*.pyc"), func() sdk.Command { c := packtest.Cmd(2, "rm", "-f", "{}"); c.Reach = []string{"find_exec"}; return c }()), Rule: "WORKSPACE_RECURSIVE_DELETE_REVIEW"},
		{Name: "shutil.rmtree('/home')", Lang: "python", Facts: sdk.Facts{Files: []sdk.FileAccess{del("/home", true, false, "shutil.rmtree")}}, Rule: "FILE_DANGEROUS_DELETE", Want: deny},
		{Name: "shutil.rmtree call only", Lang: "python", Facts: sdk.Facts{Calls: []sdk.Call{{Name: "shutil.rmtree", Args: []sdk.Value{packtest.Str("/usr")}, Pos: sdk.Pos{Line: 2}}}}, Rule: "FILE_DANGEROUS_DELETE", Want: deny},
		{Name: "os.remove of history file is not a tree delete", Lang: "python", Facts: sdk.Facts{Files: []sdk.FileAccess{del("~/.bash_history", false, false, "os.remove")}}, Rule: "FILE_DANGEROUS_DELETE"},
		{Name: "os.walk('/usr') deleting", Lang: "python", Facts: sdk.Facts{Files: []sdk.FileAccess{pyDyn}, Calls: []sdk.Call{
			{Name: "os.walk", Args: []sdk.Value{packtest.Str("/usr")}, Pos: sdk.Pos{Line: 3}},
			{Name: "os.remove", Args: []sdk.Value{{Kind: "call", Str: "os.path.join(root, name)"}}, Pos: sdk.Pos{Line: 5}}}}, Rule: "FILE_DANGEROUS_DELETE", Want: deny},
		{Name: "shutil.rmtree('build') is review", Lang: "python", Facts: sdk.Facts{Files: []sdk.FileAccess{del("build", true, false, "shutil.rmtree")}}, Rule: "WORKSPACE_RECURSIVE_DELETE_REVIEW", Want: review},
	})
}

func TestSecretPaths(t *testing.T) {
	glob := file("~/.ssh/id_*", "read", "cat")
	glob.Glob = true
	packtest.Run(t, Scan, []C{
		{Name: "cat .env", Facts: sdk.Facts{Files: []sdk.FileAccess{file(".env", "read", "cat")}}, Rule: "FILE_SECRET_PATH_ACCESS", Want: deny},
		{Name: "aws credentials", Facts: sdk.Facts{Files: []sdk.FileAccess{file("~/.aws/credentials", "read", "cat")}}, Rule: "FILE_SECRET_PATH_ACCESS", Want: deny},
		{Name: "glob into ssh", Facts: sdk.Facts{Files: []sdk.FileAccess{glob}}, Rule: "FILE_SECRET_PATH_ACCESS", Want: deny},
		{Name: "glob shadow", Facts: sdk.Facts{Files: []sdk.FileAccess{{Path: "/etc/sh*dow", Op: "read", By: "cat", Glob: true}}}, Rule: "FILE_SECRET_PATH_ACCESS", Want: deny},
		{Name: "link to key", Facts: sdk.Facts{Files: []sdk.FileAccess{file("~/.ssh/id_rsa", "link", "ln")}}, Rule: "FILE_SECRET_PATH_ACCESS", Want: deny},
		{Name: "other home ssh", Facts: sdk.Facts{Files: []sdk.FileAccess{file("/home/bob/.ssh/id_ed25519", "copy_from", "cp")}}, Rule: "FILE_SECRET_PATH_ACCESS", Want: deny},
		{Name: "~user home", Facts: sdk.Facts{Files: []sdk.FileAccess{file("~bob/notes.txt", "read", "cat")}}, Rule: "FILE_SECRET_PATH_ACCESS", Want: deny},
		{Name: "redirect write to .env", Facts: cmds(sdk.Command{ID: 1, Name: "echo", Args: []string{"X=1"}, Redirects: []sdk.Redirect{{Op: ">>", Fd: -1, Target: "config/.env"}}}), Rule: "FILE_SECRET_PATH_ACCESS", Want: deny},
		{Name: "tar of whole home", Facts: sdk.Facts{Files: []sdk.FileAccess{{Path: "~", Op: "read", By: "tar", Recursive: true}}}, Rule: "FILE_SECRET_PATH_ACCESS", Want: deny},
		{Name: "du of whole home only lists", Facts: sdk.Facts{Files: []sdk.FileAccess{{Path: "~", Op: "list", By: "du", Recursive: true}}}, Rule: "FILE_SECRET_PATH_ACCESS"},
		{Name: "upload of key", Facts: sdk.Facts{Network: []sdk.NetworkUse{{Host: "transfer.sh", Via: "curl", Upload: true, UploadFrom: "~/.aws/credentials"}}}, Rule: "FILE_SECRET_PATH_ACCESS", Want: deny},
		{Name: "python dotenv call", Lang: "python", Facts: sdk.Facts{Calls: []sdk.Call{{Name: "dotenv.dotenv_values", Args: []sdk.Value{packtest.Str(".env")}}}}, Rule: "FILE_SECRET_PATH_ACCESS", Want: deny},
		{Name: "git check-ignore names a path only", Facts: sdk.Facts{Commands: []sdk.Command{packtest.Cmd(1, "git", "check-ignore", ".env")}, Files: []sdk.FileAccess{file(".env", "ref", "git")}}, Rule: "FILE_SECRET_PATH_ACCESS"},
		{Name: "git add reads the file", Facts: sdk.Facts{Commands: []sdk.Command{packtest.Cmd(1, "git", "add", ".env")}, Files: []sdk.FileAccess{file(".env", "ref", "git")}}, Rule: "FILE_SECRET_PATH_ACCESS", Want: deny},
		{Name: "echo names a path only", Facts: sdk.Facts{Files: []sdk.FileAccess{file(".env", "ref", "echo")}}, Rule: "FILE_SECRET_PATH_ACCESS"},
		{Name: ".env.example is fine", Facts: sdk.Facts{Files: []sdk.FileAccess{file(".env.example", "read", "cat")}}, Rule: "FILE_SECRET_PATH_ACCESS"},
		{Name: "catch-all glob is fine", Facts: sdk.Facts{Files: []sdk.FileAccess{{Path: "docs/*", Op: "copy_from", By: "cp", Glob: true}}}, Rule: "FILE_SECRET_PATH_ACCESS"},
		{Name: "empty denied list", Facts: sdk.Facts{Files: []sdk.FileAccess{file(".env", "read", "cat")}}, Policy: func(p *sdk.Policy) { p.DeniedPaths = nil }, Rule: "FILE_SECRET_PATH_ACCESS"},
	})
}

func TestCwdAndDevices(t *testing.T) {
	packtest.Run(t, Scan, []C{
		{Name: "cwd in ssh", Ctx: sdk.RequestContext{Cwd: "~/.ssh"}, Rule: "EXECUTION_DENIED_CWD", Want: deny},
		{Name: "cwd root home", Ctx: sdk.RequestContext{Cwd: "/root"}, Rule: "EXECUTION_DENIED_CWD", Want: deny},
		{Name: "cwd workspace", Ctx: sdk.RequestContext{Cwd: "/workspace/project"}, Rule: "EXECUTION_DENIED_CWD"},
		{Name: "dd of=/dev/nvme0n1", Facts: cmds(packtest.Cmd(1, "dd", "if=/dev/urandom", "of=/dev/nvme0n1")), Rule: "BLOCK_DEVICE_WRITE", Want: deny},
		{Name: "dd to image file", Facts: cmds(packtest.Cmd(1, "dd", "if=/dev/zero", "of=disk.img")), Rule: "BLOCK_DEVICE_WRITE"},
		{Name: "mkfs.ext4", Facts: cmds(packtest.Cmd(1, "mkfs.ext4", "/dev/sdb1")), Rule: "BLOCK_DEVICE_WRITE", Want: deny},
		{Name: "redirect to /dev/sda", Facts: cmds(sdk.Command{ID: 1, Name: "cat", Args: []string{"x"}, Redirects: []sdk.Redirect{{Op: ">", Fd: -1, Target: "/dev/sda"}}}), Rule: "BLOCK_DEVICE_WRITE", Want: deny},
		{Name: "redirect to /dev/null", Facts: cmds(sdk.Command{ID: 1, Name: "cat", Args: []string{"x"}, Redirects: []sdk.Redirect{{Op: ">", Fd: -1, Target: "/dev/null"}}}), Rule: "BLOCK_DEVICE_WRITE"},
	})
}

func TestPersistenceAndEvasion(t *testing.T) {
	packtest.Run(t, Scan, []C{
		{Name: "append to bashrc", Facts: sdk.Facts{Files: []sdk.FileAccess{file("~/.bashrc", "append", "redirect")}}, Rule: "PERSISTENCE", Want: deny},
		{Name: "authorized_keys anywhere", Facts: sdk.Facts{Files: []sdk.FileAccess{file("/home/u/.ssh/authorized_keys", "write", "tee")}}, Rule: "PERSISTENCE", Want: deny},
		{Name: "systemd unit", Facts: sdk.Facts{Files: []sdk.FileAccess{file("/etc/systemd/system/x.service", "write", "cp")}}, Rule: "PERSISTENCE", Want: deny},
		{Name: "append to bash_aliases", Facts: sdk.Facts{Files: []sdk.FileAccess{file("~/.bash_aliases", "append", "redirect")}}, Rule: "PERSISTENCE", Want: deny},
		{Name: "fish conf.d", Facts: sdk.Facts{Files: []sdk.FileAccess{file("~/.config/fish/conf.d/x.fish", "write", "redirect")}}, Rule: "PERSISTENCE", Want: deny},
		{Name: "reading bashrc is fine", Facts: sdk.Facts{Files: []sdk.FileAccess{file("~/.bashrc", "read", "cat")}}, Rule: "PERSISTENCE"},
		{Name: "crontab -", Facts: cmds(packtest.Cmd(1, "crontab", "-")), Rule: "PERSISTENCE", Want: deny},
		{Name: "crontab file", Facts: cmds(packtest.Cmd(1, "crontab", "jobs.txt")), Rule: "PERSISTENCE", Want: deny},
		{Name: "systemd-run timer", Facts: cmds(packtest.Cmd(1, "systemd-run", "--user", "--on-calendar=daily", "ls")), Rule: "PERSISTENCE", Want: deny},
		{Name: "systemd-run timer spaced", Facts: cmds(packtest.Cmd(1, "systemd-run", "--on-active", "30", "ls")), Rule: "PERSISTENCE", Want: deny},
		{Name: "systemd-run scope", Facts: cmds(packtest.Cmd(1, "systemd-run", "--scope", "--user", "ls")), Rule: "PERSISTENCE"},
		{Name: "crontab -l", Facts: cmds(packtest.Cmd(1, "crontab", "-l")), Rule: "PERSISTENCE"},
		{Name: "crontab -u bob -l", Facts: cmds(packtest.Cmd(1, "crontab", "-u", "bob", "-l")), Rule: "PERSISTENCE"},
		{Name: "systemctl enable", Facts: cmds(packtest.Cmd(1, "systemctl", "enable", "--now", "x")), Rule: "PERSISTENCE", Want: deny},
		{Name: "systemctl status", Facts: cmds(packtest.Cmd(1, "systemctl", "status", "x")), Rule: "PERSISTENCE"},
		{Name: "history -c", Facts: cmds(packtest.Cmd(1, "history", "-c")), Rule: "DEFENSE_EVASION", Want: deny},
		{Name: "unset HISTFILE", Facts: sdk.Facts{Assignments: []sdk.Assignment{{Name: "HISTFILE", Op: "unset"}}}, Rule: "DEFENSE_EVASION", Want: deny},
		{Name: "HISTSIZE=0", Facts: sdk.Facts{Assignments: []sdk.Assignment{{Name: "HISTSIZE", Op: "export", Value: "0"}}}, Rule: "DEFENSE_EVASION", Want: deny},
		{Name: "HISTSIZE=1000", Facts: sdk.Facts{Assignments: []sdk.Assignment{{Name: "HISTSIZE", Op: "export", Value: "1000"}}}, Rule: "DEFENSE_EVASION"},
		{Name: "truncate history by redirect", Facts: cmds(sdk.Command{ID: 1, Name: "cat", Args: []string{"/dev/null"}, Redirects: []sdk.Redirect{{Op: ">", Fd: -1, Target: "~/.bash_history"}}}), Rule: "DEFENSE_EVASION", Want: deny},
		{Name: "python removes history", Lang: "python", Facts: sdk.Facts{Files: []sdk.FileAccess{del("~/.bash_history", false, false, "os.remove")}}, Rule: "DEFENSE_EVASION", Want: deny},
		{Name: "setenforce 0", Facts: cmds(packtest.Cmd(1, "setenforce", "0")), Rule: "DEFENSE_EVASION", Want: deny},
		{Name: "ufw disable", Facts: cmds(packtest.Cmd(1, "ufw", "disable")), Rule: "DEFENSE_EVASION", Want: deny},
		{Name: "ufw status", Facts: cmds(packtest.Cmd(1, "ufw", "status")), Rule: "DEFENSE_EVASION"},
		{Name: "iptables -F", Facts: cmds(packtest.Cmd(1, "iptables", "-F")), Rule: "DEFENSE_EVASION", Want: deny},
		{Name: "iptables -L", Facts: cmds(packtest.Cmd(1, "iptables", "-L")), Rule: "DEFENSE_EVASION"},
		{Name: "systemctl stop auditd", Facts: cmds(packtest.Cmd(1, "systemctl", "stop", "auditd")), Rule: "DEFENSE_EVASION", Want: deny},
	})
}

func TestScanRequiresFacts(t *testing.T) {
	if _, err := Scan(&sdk.ScanInput{}); err == nil {
		t.Fatal("a scan without facts must fail (closed), not allow")
	}
}

func TestInfoDeclaresEveryReportedRule(t *testing.T) {
	info := Info()
	if info.Name != "toolwarden-filesystem" || info.Version == "" || len(info.Rules) != len(ruleIDs) {
		t.Fatalf("bad info: %+v", info)
	}
}

// TestEvasionCasesAgreeWithIs checks that the case table answers as Is
// would for every name of every case, for plain words, glob words with
// candidates and unrelated names.
func TestEvasionCasesAgreeWithIs(t *testing.T) {
	cases := map[uint64][]string{
		evHistory: {"history"}, evSet: {"set"}, evSetenforce: {"setenforce"}, evUfw: {"ufw"},
		evIptables: {"iptables", "ip6tables", "iptables-legacy", "iptables-nft"}, evNft: {"nft"},
		evAuditctl: {"auditctl"}, evAppArmor: {"aa-teardown", "aa-disable"}, evSpctl: {"spctl"},
		evCsrutil: {"csrutil"}, evSystemctl: {"systemctl"}, evService: {"service"}, evJournalctl: {"journalctl"},
		evLn: {"ln"}, evTruncate: {"truncate", "shred"},
	}
	cmds := []sdk.Command{{Name: "set"}, {Name: "s?t", Candidates: []string{"set", "sed"}}, {Name: "ls"},
		{Name: "iptables-nft"}, {Name: "shred"}, {Name: "", Candidates: []string{"ln"}}, {Name: "Set"}, {Name: "se[t]"}}
	for i := range cmds {
		c := &cmds[i]
		got := evasionCasesOf(c)
		for bit, names := range cases {
			if want := catalog.Is(c, names...); (got&bit != 0) != want {
				t.Errorf("%+v: case %v is %v, Is(%v) = %v", *c, bit, got&bit != 0, names, want)
			}
		}
	}
}

func TestExtractionIntoRoot(t *testing.T) {
	extract := func(path string) sdk.FileAccess {
		f := file(path, "write", "tar")
		f.Recursive = true
		return f
	}
	packtest.Run(t, Scan, []C{
		{Name: "tar into /", Facts: sdk.Facts{Files: []sdk.FileAccess{extract("/")}}, Rule: "SYSTEM_FILE_WRITE", Want: deny},
		{Name: "tar into /etc", Facts: sdk.Facts{Files: []sdk.FileAccess{extract("/etc")}}, Rule: "SYSTEM_FILE_WRITE", Want: deny},
		{Name: "tar into /tmp", Facts: sdk.Facts{Files: []sdk.FileAccess{extract("/tmp")}}, Rule: "SYSTEM_FILE_WRITE"},
		{Name: "plain write of /", Facts: sdk.Facts{Files: []sdk.FileAccess{file("/", "write", "touch")}}, Rule: "SYSTEM_FILE_WRITE"},
	})
}

// TestDynamicSystemWrite checks writes to absolute paths completed by an
// unresolved expansion: inside a system tree denied, where one may lie
// below reviewed, elsewhere left alone.
func TestDynamicSystemWrite(t *testing.T) {
	dyn := func(path, op string) sdk.Facts {
		f := file(path, op, "cp")
		f.Dynamic = true
		return sdk.Facts{Files: []sdk.FileAccess{f}}
	}
	packtest.Run(t, Scan, []C{
		{Name: "cp to /etc/$X", Facts: dyn("/etc/$X", "copy_to"), Rule: "SYSTEM_FILE_WRITE", Want: deny},
		{Name: "write /usr/lib/$N/x", Facts: dyn("/usr/lib/$N/x", "write"), Rule: "SYSTEM_FILE_WRITE", Want: deny},
		{Name: "name completed in /etc", Facts: dyn("/etc/cron$X", "write"), Rule: "SYSTEM_FILE_WRITE", Want: deny},
		{Name: "cp to /$X", Facts: dyn("/$X", "copy_to"), Rule: "SYSTEM_FILE_WRITE", Want: review},
		{Name: "write /var/$F", Facts: dyn("/var/$F", "write"), Rule: "SYSTEM_FILE_WRITE", Want: review},
		{Name: "cp to /tmp/$X", Facts: dyn("/tmp/$X", "copy_to"), Rule: "SYSTEM_FILE_WRITE"},
		{Name: "cp to $OUT/x", Facts: dyn("$OUT/x", "copy_to"), Rule: "SYSTEM_FILE_WRITE"},
		{Name: "read of /etc/$X", Facts: dyn("/etc/$X", "read"), Rule: "SYSTEM_FILE_WRITE"},
	})
}

func TestFirewalldAndAudit(t *testing.T) {
	c := func(args ...string) sdk.Facts { return cmds(packtest.Cmd(1, args[0], args[1:]...)) }
	packtest.Run(t, Scan, []C{
		{Name: "default zone trusted", Facts: c("firewall-cmd", "--set-default-zone=trusted"), Rule: "DEFENSE_EVASION", Want: deny},
		{Name: "default zone trusted spaced", Facts: c("firewall-cmd", "--set-default-zone", "trusted"), Rule: "DEFENSE_EVASION", Want: deny},
		{Name: "rich accept all", Facts: c("firewall-cmd", "--add-rich-rule=rule family=ipv4 source address=0.0.0.0/0 accept"), Rule: "DEFENSE_EVASION", Want: deny},
		{Name: "target accept", Facts: c("firewall-cmd", "--zone=public", "--set-target=ACCEPT", "--permanent"), Rule: "DEFENSE_EVASION", Want: deny},
		{Name: "trusted interface", Facts: c("firewall-cmd", "--zone=trusted", "--add-interface=eth0"), Rule: "DEFENSE_EVASION", Want: deny},
		{Name: "all ports", Facts: c("firewall-cmd", "--add-port=1-65535/tcp"), Rule: "DEFENSE_EVASION", Want: deny},
		{Name: "open one service", Facts: c("firewall-cmd", "--add-service=http"), Rule: "DEFENSE_EVASION"},
		{Name: "rich rule one service", Facts: c("firewall-cmd", "--add-rich-rule=rule family=ipv4 service name=ssh accept"), Rule: "DEFENSE_EVASION"},
		{Name: "default zone public", Facts: c("firewall-cmd", "--set-default-zone=public"), Rule: "DEFENSE_EVASION"},
		{Name: "auditctl never", Facts: c("auditctl", "-a", "never,exit"), Rule: "DEFENSE_EVASION", Want: deny},
		{Name: "auditctl exit,never", Facts: c("auditctl", "-A", "exit,never", "-F", "arch=b64"), Rule: "DEFENSE_EVASION", Want: deny},
		{Name: "auditctl backlog wait 0", Facts: c("auditctl", "--backlog_wait_time", "0"), Rule: "DEFENSE_EVASION", Want: deny},
		{Name: "auditctl silent failure", Facts: c("auditctl", "-f", "0"), Rule: "DEFENSE_EVASION", Want: deny},
		{Name: "auditctl always rule", Facts: c("auditctl", "-a", "always,exit", "-F", "path=/etc/shadow"), Rule: "DEFENSE_EVASION"},
		{Name: "auditctl list", Facts: c("auditctl", "-l"), Rule: "DEFENSE_EVASION"},
	})
}

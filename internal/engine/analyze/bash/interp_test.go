package bash

import (
	"strings"
	"testing"
)

// hasFile reports a file access of path with op (any op when op is "").
func hasFile(t *testing.T, src, path, op string) {
	t.Helper()
	f := run(t, src)
	for _, fa := range f.Files {
		if fa.Path == path && (op == "" || fa.Op == op) {
			return
		}
	}
	t.Errorf("%s: no %s access of %s\n%s", src, op, path, dump(f))
}

// hasNested reports a command named name reached through nesting.
func hasNested(t *testing.T, src, name string, args ...string) {
	t.Helper()
	f := run(t, src)
	for _, c := range f.Commands {
		if c.Name == name && c.Pos.Depth > 0 && (len(args) == 0 || strings.Join(c.Args, " ") == strings.Join(args, " ")) {
			return
		}
	}
	t.Errorf("%s: no nested %s %v\n%s", src, name, args, dump(f))
}

func hasHost(t *testing.T, src, host string) {
	t.Helper()
	f := run(t, src)
	for _, n := range f.Network {
		if n.Host == host {
			return
		}
	}
	t.Errorf("%s: no destination %s\n%s", src, host, dump(f))
}

// TestInterpreterRegistry checks that each registered language's own
// process, file and network APIs become facts (development examples; the
// held-out set is scored elsewhere).
func TestInterpreterRegistry(t *testing.T) {
	hasNested(t, `perl -e 'system("shred", "-u", "notes")'`, "shred", "-u", "notes")
	hasNested(t, `perl -e 'my $c = "wipefs -a /dev/sdc"; system($c)'`, "wipefs", "-a", "/dev/sdc")
	hasFile(t, `perl -e 'open(my $h, ">>", "$ENV{HOME}/.profile"); print $h "x"'`, "~/.profile", "append")
	hasFile(t, `perl -e 'open(H, "<" . $ENV{HOME} . "/.netrc")'`, "~/.netrc", "read")
	hasFile(t, `perl -e 'unlink "/var/log/auth.log"'`, "/var/log/auth.log", "delete")
	hasNested(t, `perl -ne 'print qx(id -u)' x`, "id", "-u")
	hasNested(t, "ruby -e 'puts `uname -r`'", "uname", "-r")
	hasNested(t, `ruby -e 'exec "shutdown", "-h", "now"'`, "shutdown", "-h", "now")
	hasFile(t, `ruby -e 'File.write(File.join(Dir.home, ".bash_profile"), "x")'`, "~/.bash_profile", "write")
	hasFile(t, `ruby -e 'FileUtils.rm_rf(ENV["HOME"] + "/work")'`, "~/work", "delete")
	// Listing APIs are recorded as ls is: a list of the directory or glob.
	hasFile(t, `ruby -e 'Dir.glob(File.join(Dir.home, ".ssh", "*")).each { |f| puts File.read(f) }'`, "~/.ssh/*", "list")
	hasFile(t, `ruby -e 'puts Dir.children(Dir.home + "/.aws")'`, "~/.aws", "list")
	hasFile(t, `node -e 'console.log(require("fs").readdirSync(require("os").homedir() + "/.kube"))'`, "~/.kube", "list")
	hasFile(t, `php -r 'print_r(scandir(getenv("HOME") . "/.docker"));'`, "~/.docker", "list")
	hasHost(t, `ruby -rnet/http -e 'Net::HTTP.get(URI("http://203.0.113.44/p"))'`, "203.0.113.44")
	hasNested(t, `node -e 'require("child_process").execFileSync("chattr", ["+i", "/srv/x"])'`, "chattr", "+i", "/srv/x")
	hasFile(t, "node -e 'require(\"fs\").writeFileSync(`${process.env.HOME}/.npmrc`, \"x\")'", "~/.npmrc", "write")
	hasFile(t, `node -e 'const fs=require("fs"); fs.unlinkSync(require("os").homedir() + "/.gitconfig")'`, "~/.gitconfig", "delete")
	hasHost(t, `node -e 'fetch("https://ingest.example.com/x", {method: "POST"})'`, "ingest.example.com")
	hasNested(t, `php -r 'echo shell_exec("ls /root");'`, "ls", "/root")
	hasFile(t, `php -r 'file_put_contents("/etc/cron.d/job", "x");'`, "/etc/cron.d/job", "write")
	hasFile(t, `php -r '$f = fopen("/etc/hosts", "a");'`, "/etc/hosts", "append")
	hasNested(t, `lua -e 'os.execute("halt")'`, "halt")
	hasFile(t, `lua -e 'local f = io.open(os.getenv("HOME") .. "/.zshrc", "w")'`, "~/.zshrc", "write")
	hasNested(t, `awk 'BEGIN { while (("ps aux" | getline l) > 0) n++ }'`, "ps", "aux")
	hasNested(t, `awk 'BEGIN { x = "who" "ami"; system(x) }'`, "whoami")
	hasNested(t, `awk 'BEGIN { system(sprintf("%s %s", "shred", "k")) }'`, "shred", "k")
	hasFile(t, `awk '{ print $0 >> "/etc/environment" }' f`, "/etc/environment", "append")
	hasNested(t, `awk '{ print $1 | "sort -u" }' f`, "sort", "-u")
	// Text printed into a shell is its script; "." concatenates in perl
	// and php, it joins no member name.
	hasNested(t, `awk 'BEGIN { print "shred -u k" | "sh" }'`, "shred", "-u", "k")
	if d := findDyn(run(t, `awk '{ print "chattr +i " $1 | "/bin/bash" }' f`), "awk_system"); d == nil || d.Static {
		t.Errorf("awk printing a computed script into bash: %+v", d)
	}
	hasHost(t, `php -r '$h = "203.0.113.9"; echo file_get_contents("http://".$h."/x");'`, "203.0.113.9")
	hasHost(t, `perl -MLWP::Simple -e '$h = "203.0.113.10"; get("http://".$h."/x")'`, "203.0.113.10")
	// Tcl: command words rewritten into calls (interptcl.go).
	hasNested(t, "echo 'exec chattr +i /srv/x' | tclsh", "chattr", "+i", "/srv/x")
	hasFile(t, "tclsh <<'EOF'\nset f [open $env(HOME)/.netrc]\nputs [read $f]\nEOF", "~/.netrc", "read")
	hasFile(t, "echo 'set f [open /etc/motd w]' | tclsh", "/etc/motd", "write")
	hasFile(t, "echo 'file delete -force /var/log/auth.log' | tclsh", "/var/log/auth.log", "delete")
	hasHost(t, "echo 'set s [socket -async 203.0.113.7 8080]' | tclsh", "203.0.113.7")
	// R: c() vectors are argv lists, paste0 concatenates, recursive=TRUE
	// makes unlink a tree delete.
	hasNested(t, `Rscript -e 'system2("shred", c("-u", "notes"))'`, "shred", "-u", "notes")
	hasNested(t, `Rscript -e 'cmd <- paste0("who", "ami"); system(cmd)'`, "whoami")
	hasFile(t, `Rscript -e 'x <- readLines(file.path(Sys.getenv("HOME"), ".netrc"))'`, "~/.netrc", "read")
	hasHost(t, `Rscript -e 'h <- "203.0.113.8"; con <- socketConnection(host = h, port = 9000)'`, "203.0.113.8")
	if fa := findFile(run(t, `Rscript -e 'unlink("/opt/app", recursive = TRUE)'`), "delete", "/opt/app"); fa == nil || !fa.Recursive {
		t.Errorf("R unlink recursive: %+v", fa)
	}
	for _, src := range []string{`Rscript -e 'print(summary(c(1, 2, 3)))'`, "echo 'puts [expr 1+2]' | tclsh",
		`Rscript -e 'print("system(\"rm -rf /\")")'`} {
		if f := run(t, src); len(f.Network) != 0 || len(f.Files) != 0 || findDyn(f, "shell_c") != nil {
			t.Errorf("%s: %s", src, dump(f))
		}
	}
}

// TestRunnerRegistry checks command runners and config hooks.
func TestRunnerRegistry(t *testing.T) {
	hasNested(t, `sed -n '3e shred -u k' f`, "shred", "-u", "k")
	hasNested(t, `sed 's/x/id -u/e' f`, "id", "-u")
	hasFile(t, `sed -n '/secret/w /etc/issue' f`, "/etc/issue", "write")
	hasFile(t, `sed 's/a/b/w out/changed.txt' f`, "out/changed.txt", "write")
	hasFile(t, `sed '1r /etc/shadow' f`, "/etc/shadow", "read")
	hasNested(t, `vim -c ':!shred k' -c ':qa!' f`, "shred", "k")
	hasNested(t, `nvim --headless '+silent !halt' +q`, "halt")
	hasNested(t, `ex -c 'r !id' -c wq f`, "id")
	hasNested(t, `parallel shred ::: a b`, "shred", "a")
	hasNested(t, `parallel 'chmod 000 {}' ::: /srv/x`, "chmod", "000", "/srv/x")
	hasNested(t, `parallel ::: 'halt -f'`, "halt", "-f")
	hasNested(t, "printf 'x:\\n\\tshred -u k\\n' > build.mk\nmake -f build.mk x", "shred", "-u", "k")
	hasNested(t, "mkdir -p w\ncat > w/Makefile <<'EOF'\nall:\n\t@halt\nEOF\nmake -C w", "halt")
	hasNested(t, `git -c core.pager='shred -u k' log`, "shred", "-u", "k")
	hasNested(t, `git -c core.sshCommand='ssh -i /tmp/k' fetch`, "ssh")
	hasNested(t, `git -c pager.diff='halt' diff`, "halt")
	hasNested(t, `git -c diff.x.textconv='shred' diff`, "shred")
	f := run(t, `git -c color.ui=always -c user.name=x log`)
	for _, c := range f.Commands {
		if c.Pos.Depth > 0 {
			t.Errorf("plain git config ran a command: %s", dump(f))
		}
	}
	hasFile(t, `vim -c 'w! /etc/issue' -c q f`, "/etc/issue", "write")
	hasFile(t, `ex -sc 'w >> /etc/motd' -c q f`, "/etc/motd", "append")
	hasFile(t, `vim '+saveas /srv/x.txt' +q f`, "/srv/x.txt", "write")
	// sed running its input lines: piped text is the shell's.
	hasNested(t, `echo 'shred -u k' | sed 's/.*/&/e'`, "shred", "-u", "k")
	hasNested(t, `printf 'halt\n' | sed -n e`, "halt")
	if f := run(t, `vim -c 'wq' f`); len(f.Files) > 1 {
		t.Errorf("vim :wq wrote a file it does not name: %s", dump(f))
	}
	if f := run(t, `echo 'shred -u k' | sed 's/a/b/'`); len(f.DynamicExec) > 0 {
		t.Errorf("a plain sed of piped text ran it: %s", dump(f))
	}
	f = run(t, `sed -n '1,20p;/x/p' f`)
	if len(f.DynamicExec) > 0 || len(f.Files) > 1 {
		t.Errorf("a plain sed script ran something: %s", dump(f))
	}
}

// TestLoginShellWord checks `$SHELL -c CODE` runs CODE as shell code.
func TestLoginShellWord(t *testing.T) {
	hasNested(t, `$SHELL -c 'shred -u k'`, "shred", "-u", "k")
	hasNested(t, `"${SHELL}" -c "halt"`, "halt")
	hasNested(t, `${SHELL:-/bin/bash} -c 'halt'`, "halt")
}

// TestReadArray checks `read -a NAME` assigns the line's words as an array.
func TestReadArray(t *testing.T) {
	hasNested2 := func(src, name string, args ...string) {
		t.Helper()
		if c := findCmd(run(t, src), name, args...); c == nil {
			t.Errorf("%s: no %s %v\n%s", src, name, args, dump(run(t, src)))
		}
	}
	hasNested2("read -a w <<< 'shred -u k'\n\"${w[@]}\"", "shred", "-u", "k")
	hasNested2("read -ra w <<< 'shred -u k'\n${w[0]} ${w[1]} ${w[2]}", "shred", "-u", "k")
	hasNested2("IFS=' ' read -r -a w <<EOF\nhalt -f\nEOF\n\"${w[@]}\"", "halt", "-f")
	hasNested2("n=DB_PASS\necho \"${!n}\"", "echo", "$DB_PASS")
}

// TestRoutingOptions checks curl's routing options and proxy variables make
// the host the connection really goes to a destination.
func TestRoutingOptions(t *testing.T) {
	hasHost(t, "curl --resolve pypi.org:443:198.51.100.7 https://pypi.org/", "198.51.100.7")
	hasHost(t, "curl --connect-to ::evil.example:443 https://github.com/", "evil.example")
	hasHost(t, "curl --connect-to github.com:443:[2001:db8::5]:443 https://github.com/", "2001:db8::5")
	hasHost(t, "curl -x http://proxy.example:3128 https://github.com/", "proxy.example")
	hasHost(t, "curl --socks5-hostname 198.51.100.9:1080 https://github.com/", "198.51.100.9")
	hasHost(t, "HTTPS_PROXY=http://198.51.100.3:8080 curl https://github.com/", "198.51.100.3")
	hasHost(t, "export all_proxy=socks5://198.51.100.4:1080\nwget https://pypi.org/", "198.51.100.4")
}

// TestCurlValueOptionsAreNotDestinations: the value of a value-taking curl
// option (`--noproxy '*'`, `--max-redirs 3`) is not read as a URL.
func TestCurlValueOptionsAreNotDestinations(t *testing.T) {
	for _, src := range []string{
		`curl -s --noproxy '*' -m 3 https://pypi.org/`,
		`curl --max-redirs 3 --proto =https https://pypi.org/simple/`,
		`curl --noproxy localhost,127.0.0.1 https://pypi.org/`,
	} {
		f := run(t, src)
		for _, n := range f.Network {
			if n.Host != "pypi.org" {
				t.Errorf("%s: destination %q (%+v), want only pypi.org", src, n.Host, n)
			}
		}
		if len(f.Network) == 0 {
			t.Errorf("%s: no destination found", src)
		}
	}
}

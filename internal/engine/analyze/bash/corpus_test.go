package bash

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

type corpusCase struct {
	ID       string `json:"id"`
	Language string `json:"language"`
	Content  string `json:"content"`
	Expect   string `json:"expect"`
	Category string `json:"category"`
	Evasion  bool   `json:"evasion"`
}

func loadCorpus(t testing.TB) []corpusCase {
	t.Helper()
	fh, err := os.Open("testdata/dev_cases_bash.jsonl")
	if err != nil {
		t.Fatalf("open corpus: %v", err)
	}
	defer fh.Close()
	var out []corpusCase
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c corpusCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("corpus line: %v", err)
		}
		out = append(out, c)
	}
	return out
}

// corpusChecks assert, per dev-corpus case, the facts a rule needs to reach
// the labelled decision. Every evasion case must have one.
var corpusChecks = map[string]func(c *checker){
	"sh-deny-base64-payload-03": func(c *checker) {
		d := c.dyn("pipe_interpreter")
		if d != nil {
			c.expect(d.Static && d.Encoded && d.Content == "rm -rf ~" && d.Interpreter == "sh", "decoded payload: %+v", d)
			c.expect(len(d.Decoders) == 1 && d.Decoders[0] == "base64", "decoders %v", d.Decoders)
		}
		if x := c.cmd("rm", "-rf", "~"); x != nil {
			c.expect(x.Pos.Depth == 1 && x.Pos.Encoded, "nested rm pos %+v", x.Pos)
		}
		if fa := c.file("delete", "~"); fa != nil {
			c.expect(fa.Recursive && fa.Force, "rm -rf flags")
		}
	},
	"sh-deny-dependency-install-11": func(c *checker) {
		if d := c.dyn("eval"); d != nil {
			c.expect(d.Static && d.Content == "npm install lodash", "eval content %q", d.Content)
		}
		if x := c.cmd("npm", "install", "lodash"); x != nil {
			c.expect(x.Pos.Depth == 1 && x.Pos.Via == "eval", "via %+v", x.Pos)
		}
	},
	"sh-deny-destructive-delete-14": func(c *checker) {
		c.cmd("rm", "-rf", "/")
		if fa := c.file("delete", "/"); fa != nil {
			c.expect(fa.Recursive && fa.Force, "flags")
		}
	},
	"sh-deny-destructive-delete-28": func(c *checker) {
		c.cmd("rm", "-rf", "/")
		c.file("delete", "/")
	},
	"sh-deny-destructive-delete-11": func(c *checker) {
		c.cmd("rm", "-rf", "/")
		c.file("delete", "/")
	},
	"sh-deny-destructive-delete-27": func(c *checker) {
		if x := c.cmd("rm", "-rf", "/"); x != nil {
			c.expect(x.Path == "/bin/r?" && len(x.Candidates) == 1 && x.Candidates[0] == "rm", "glob word %+v", x)
		}
		c.file("delete", "/")
	},
	"sh-deny-destructive-delete-24": func(c *checker) {
		if x := c.cmd("rm", "-rf", "{}"); x != nil {
			c.expect(hasReach(x, "find_exec"), "reach %v", x.Reach)
			c.expect(len(x.DynamicArgs) == 1 && x.DynamicArgs[0] == 1, "placeholder dynamic %v", x.DynamicArgs)
		}
		if fa := c.file("delete", "/"); fa != nil {
			c.expect(fa.Recursive && fa.By == "rm", "find -exec rm target %+v", fa)
		}
	},
	"sh-deny-destructive-delete-32": func(c *checker) {
		if d := c.dyn("awk_system"); d != nil {
			c.expect(d.Static && d.Content == "rm -rf /", "awk content %q", d.Content)
		}
		c.cmd("rm", "-rf", "/")
		c.file("delete", "/")
	},
	"sh-deny-destructive-delete-13": func(c *checker) {
		c.cmd("rm", "-rf", "~")
		c.file("delete", "~")
	},
	"sh-deny-destructive-delete-02": func(c *checker) { c.file("delete", "~") },
	"sh-deny-destructive-delete-08": func(c *checker) {
		if fa := c.file("delete", "/var"); fa != nil {
			c.expect(fa.Recursive && fa.Force, "long flags")
		}
	},
	"sh-deny-exfiltration-05": func(c *checker) {
		if n := c.net("dns"); n != nil {
			c.expect(n.Host == "attacker.tld" && n.DataInHost && n.Dynamic, "dns exfil %+v", n)
		}
		c.cmd("whoami")
		c.cmd("hostname")
	},
	"sh-deny-exfiltration-04": func(c *checker) {
		if n := c.net("dns"); n != nil {
			c.expect(n.Host == "evil.com" && n.DataInHost, "dns exfil %+v", n)
		}
		if fa := c.file("read", ".env"); fa != nil {
			c.expect(fa.By == "cat", "by %s", fa.By)
		}
	},
	"sh-deny-exfiltration-01": func(c *checker) {
		if n := c.net("curl"); n != nil {
			c.expect(n.Host == "transfer.sh" && n.Upload && n.UploadFrom == "~/.aws/credentials", "upload %+v", n)
		}
		c.file("read", "~/.aws/credentials")
	},
	"sh-deny-network-egress-10": func(c *checker) {
		if n := c.net("wget"); n != nil {
			c.expect(n.Host == "pypi.org.attacker.net" && n.Scheme == "https", "host %+v", n)
		}
	},
	"sh-deny-network-egress-04": func(c *checker) {
		if n := c.net("git"); n != nil {
			c.expect(n.Host == "gitlab.com", "host %q", n.Host)
		}
	},
	"sh-deny-persistence-06": func(c *checker) {
		if x := c.cmd("crontab", "-"); x != nil {
			c.expect(len(x.StdinSources) == 2, "crontab fed by the subshell: %v", x.StdinSources)
		}
		if n := c.net("dev_tcp"); n != nil {
			c.expect(n.ExecShell && n.Host == "198.51.100.66" && n.Port == 9443 && n.Pos.Depth == 2, "cron job reverse shell %+v", n)
			c.expect(strings.HasPrefix(n.Pos.Via, "crontab"), "via %q", n.Pos.Via)
		}
	},
	"sh-deny-persistence-04": func(c *checker) {
		c.file("append", "~/.bashrc")
		c.noCmd("history")
		if d := c.dyn("pipe_interpreter"); d != nil {
			c.expect(d.Downloaded && d.Pos.Via == "startup_file", "installed curl|sh %+v", d)
		}
	},
	"sh-deny-privilege-escalation-11": func(c *checker) {
		if x := c.cmd("sudo", "-u", "root", "bash"); x != nil {
			c.expect(x.Path == "/usr/bin/sudo", "path %q", x.Path)
		}
		if x := c.cmd("bash"); x != nil {
			c.expect(hasReach(x, "wrapper"), "reach %v", x.Reach)
		}
	},
	"sh-deny-privilege-escalation-14": func(c *checker) {
		if d := c.dyn("pipe_interpreter"); d != nil {
			c.expect(d.Static && d.Encoded && d.Content == "sudo id", "printf payload %+v", d)
		}
		if x := c.cmd("sudo", "id"); x != nil {
			c.expect(x.Pos.Depth == 1 && x.Pos.Encoded, "pos %+v", x.Pos)
		}
	},
	"sh-deny-privilege-escalation-16": func(c *checker) {
		if x := c.cmd("sudo", "-n", "true"); x != nil {
			c.expect(hasReach(x, "wrapper"), "reach %v", x.Reach)
		}
		c.cmd("timeout", "5", "sudo", "-n", "true")
		c.cmd("true")
	},
	"sh-deny-privilege-escalation-08": func(c *checker) {
		c.cmd("docker", "run", "--rm", "--privileged", "-v", "/:/host", "alpine", "chroot", "/host", "sh")
	},
	"sh-deny-remote-code-exec-12": func(c *checker) {
		if d := c.dyn("pipe_interpreter"); d != nil {
			c.expect(d.Downloaded && !d.Static && d.Interpreter == "bash" && d.Pos.Line == 39, "curl|bash %+v", d)
		}
		if n := c.net("curl"); n != nil {
			c.expect(n.Host == "203.0.113.50", "host %q", n.Host)
		}
		if len(c.f.Functions) != 1 || !c.f.Functions[0].CalledAtTop || c.f.Functions[0].Recursive {
			c.failf("function log: %+v", c.f.Functions)
		}
	},
	"sh-deny-remote-code-exec-03": func(c *checker) {
		if d := c.dyn("pipe_interpreter"); d != nil {
			c.expect(d.Downloaded, "downloaded")
		}
		if n := c.net("curl"); n != nil {
			c.expect(n.Host == "github.com", "host %q", n.Host)
		}
	},
	"sh-deny-remote-code-exec-02": func(c *checker) {
		if d := c.dyn("pipe_interpreter"); d != nil {
			c.expect(d.Downloaded, "downloaded")
		}
		if n := c.net("wget"); n != nil {
			c.expect(n.Host == "install.evil.io", "host %q", n.Host)
		}
		c.noFile("-")
	},
	"sh-deny-reverse-shell-07": func(c *checker) {
		if n := c.net("ncat"); n != nil {
			c.expect(n.ExecShell && n.Host == "203.0.113.50" && n.Port == 4444, "ncat %+v", n)
		}
	},
	"sh-deny-reverse-shell-02": func(c *checker) {
		if n := c.net("nc"); n != nil {
			c.expect(n.ExecShell && n.Host == "203.0.113.9" && n.Port == 9001, "nc %+v", n)
		}
	},
	"sh-deny-secret-read-13": func(c *checker) {
		if fa := c.file("read", "~/.ssh/id_*"); fa != nil {
			c.expect(fa.Glob, "glob")
		}
	},
	"sh-deny-secret-read-15": func(c *checker) {
		if fa := c.file("read", "/etc/sh*dow"); fa != nil {
			c.expect(fa.Glob, "glob")
		}
	},
	"sh-deny-secret-read-16": func(c *checker) {
		c.file("link", "~/.ssh/id_rsa")
		c.file("read", "~/.ssh/id_rsa") // read through the link the script made
	},
	"sh-deny-secret-read-06": func(c *checker) {
		c.file("read", ".env")
		c.noFile("PASSWORD")
	},
	"sh-deny-block-device-write-02": func(c *checker) {
		c.file("write", "/dev/nvme0n1")
		c.file("read", "/dev/urandom")
	},
	"sh-deny-chmod-root-02": func(c *checker) {
		if fa := c.file("chmod", "/"); fa != nil {
			c.expect(fa.Mode == "777" && fa.Recursive, "chmod %+v", fa)
		}
	},
	"sh-deny-mkfs-01": func(c *checker) { c.file("write", "/dev/sdb1") },
	"sh-deny-fork-bomb-01": func(c *checker) {
		if len(c.f.Functions) != 1 {
			c.failf("functions %+v", c.f.Functions)
			return
		}
		fn := c.f.Functions[0]
		c.expect(fn.Name == ":" && fn.Recursive && fn.SelfPipe && fn.Background && fn.CalledAtTop, "fork bomb %+v", fn)
	},
	"sh-deny-history-wipe-02": func(c *checker) {
		var unset, export bool
		for _, a := range c.f.Assignments {
			unset = unset || (a.Op == "unset" && a.Name == "HISTFILE")
			export = export || (a.Op == "export" && a.Name == "HISTSIZE" && a.Value == "0")
		}
		c.expect(unset && export, "assignments %+v", c.f.Assignments)
	},
	"sh-review-find-exec-01": func(c *checker) {
		// -name narrows the delete to the start's entries of that name
		if fa := c.file("delete", "*.pyc"); fa != nil {
			c.expect(fa.Recursive, "find -exec rm walks the tree")
		}
	},
	"sh-review-infinite-loop-02": func(c *checker) {
		c.expect(len(c.f.Loops) == 1 && c.f.Loops[0].Kind == "until_false" && !c.f.Loops[0].HasBreak, "loops %+v", c.f.Loops)
		c.expect(len(c.f.Sleeps) == 1 && c.f.Sleeps[0].Seconds == 10, "sleeps %+v", c.f.Sleeps)
	},
	"sh-review-script-mixed-03": func(c *checker) {
		c.expect(len(c.f.Loops) == 1 && c.f.Loops[0].Kind == "while_true" && !c.f.Loops[0].HasBreak, "loops %+v", c.f.Loops)
	},
	"sh-review-inline-interpreter-04": func(c *checker) {
		if d := c.dyn("shell_c"); d != nil {
			c.expect(d.Static && d.Content == "ls -la && git status", "content %q", d.Content)
		}
		if x := c.cmd("git", "status"); x != nil {
			c.expect(x.Pos.Via == "bash -c", "via %q", x.Pos.Via)
		}
	},
	"sh-review-inline-interpreter-01": func(c *checker) {
		if d := c.dyn("python_c"); d != nil {
			// No python analyzer is registered here, so the content is
			// known but was not analyzed: Static must stay false.
			c.expect(!d.Static && d.Content == "print(1+1)", "python -c %+v", d)
		}
	},
	"sh-review-network-unresolved-03": func(c *checker) {
		if n := c.net("git"); n != nil {
			c.expect(n.Dynamic && n.Host == "", "dynamic clone %+v", n)
		}
	},
	"sh-review-network-unresolved-04": func(c *checker) {
		if n := c.net("curl"); n != nil {
			c.expect(n.Dynamic && !n.DataInHost && n.Host == "", "dynamic host %+v", n)
		}
	},
	"sh-review-command-substitution-05": func(c *checker) {
		c.file("read", "a.txt")
		c.noFile("<(sort a.txt)")
		if x := c.cmd("diff"); x != nil {
			c.expect(len(x.ArgSources) == 2, "arg sources %v", x.ArgSources)
		}
	},
	"sh-review-shell-redirect-13": func(c *checker) {
		if x := c.cmd("tee", "build/ci.log"); x != nil {
			c.expect(hasReach(x, "process_substitution"), "reach %v", x.Reach)
		}
	},
	"sh-review-shell-pipe-06": func(c *checker) {
		if x := c.cmd("gofmt", "-l", "{}"); x != nil {
			c.expect(hasReach(x, "xargs"), "reach %v", x.Reach)
		}
	},
	"sh-review-background-job-03": func(c *checker) {
		if x := c.cmd("policyscan"); x != nil {
			c.expect(hasReach(x, "background") && hasReach(x, "wrapper"), "reach %v", x.Reach)
		}
	},
	"sh-review-unlisted-command-05": func(c *checker) { c.file("source", "scripts/env.sh") },
	"sh-review-unlisted-command-07": func(c *checker) { c.cmd("go", "test", "./...") },
	"sh-allow-fp-trap-comment-01": func(c *checker) {
		c.noCmd("sudo")
		c.noCmd("rm")
		c.noCmd("curl")
		c.noCmd("sh")
		c.expect(len(c.f.Network) == 0, "network from a comment")
	},
	"sh-allow-fp-trap-string-only-07": func(c *checker) { c.noFile("id_rsa") },
	"sh-allow-fp-trap-string-only-11": func(c *checker) {
		c.noCmd("curl")
		c.expect(len(c.f.ShellFeatures) == 0, "quoted pipe is no feature")
	},
	"sh-allow-fp-trap-string-only-12": func(c *checker) {
		c.expect(len(c.f.Functions) == 0 && len(c.f.ShellFeatures) == 0, "quoted fork bomb")
	},
	"sh-allow-fp-trap-string-only-31": func(c *checker) {
		c.noFile("id_rsa")
		c.noFile("*.md")
		c.file("read", ".")
	},
	"sh-allow-fp-trap-string-only-37": func(c *checker) {
		c.file("read", "docs/key-rotation.md")
		c.noFile("BEGIN OPENSSH PRIVATE KEY")
	},
	"sh-allow-fp-trap-string-only-05": func(c *checker) {
		c.file("read", ".gitignore")
		c.noFile("\\.env")
		c.noFile(".env")
	},
}

func TestCorpusCases(t *testing.T) {
	cases := loadCorpus(t)
	if len(cases) < 100 {
		t.Fatalf("corpus has %d bash cases", len(cases))
	}
	for _, cc := range cases {
		t.Run(cc.ID, func(t *testing.T) {
			f := run(t, cc.Content)
			if len(f.ParseErrors) > 0 {
				t.Fatalf("parse errors: %+v", f.ParseErrors)
			}
			if len(f.Commands) == 0 {
				t.Errorf("no commands for %q", cc.Content)
			}
			check, ok := corpusChecks[cc.ID]
			if !ok {
				if cc.Evasion {
					t.Fatalf("evasion case %s has no fact check", cc.ID)
				}
				return
			}
			c := &checker{t: t, f: f, src: cc.Content}
			check(c)
			c.done()
		})
	}
}

// TestCorpusStringOnly checks the principle "text only printed, grepped,
// committed or stored is not executed" on every fp_trap case: nothing is
// found nested, and no command runs but the visible top-level ones.
func TestCorpusStringOnly(t *testing.T) {
	for _, cc := range loadCorpus(t) {
		if !strings.HasPrefix(cc.Category, "fp_trap") {
			continue
		}
		f := run(t, cc.Content)
		for _, x := range f.Commands {
			if x.Pos.Depth > 0 || len(x.Reach) > 0 {
				t.Errorf("%s: command %s %q reached from quoted text", cc.ID, x.Name, x.Args)
			}
		}
		if len(f.DynamicExec) > 0 || len(f.Network) > 0 || len(f.Functions) > 0 {
			t.Errorf("%s: facts from quoted text: %s", cc.ID, dump(f))
		}
		for _, fa := range f.Files {
			if fa.Op != "read" && fa.Op != "list" && fa.Op != "ref" {
				t.Errorf("%s: unexpected %s of %s", cc.ID, fa.Op, fa.Path)
			}
		}
	}
}

package bash

import "testing"

// TestEnvironmentListings: declaration builtins that only list are
// commands (so their output is followed like env's), and inline code that
// prints the language's whole environment is an Output of every variable;
// code that passes the environment on, or reads one variable, is not.
func TestEnvironmentListings(t *testing.T) {
	for _, src := range []string{"export -p", "declare -x", "typeset -p", "export"} {
		t.Run(src, func(t *testing.T) {
			f := run(t, src)
			if len(f.Commands) != 1 {
				t.Fatalf("want one listing command\n%s", dump(f))
			}
		})
	}
	for _, src := range []string{"export A=1", "declare -x B=2", "declare -r C", "local -a d"} {
		t.Run("declares: "+src, func(t *testing.T) {
			if f := run(t, src); len(f.Commands) != 0 {
				t.Errorf("a declaration is not a listing\n%s", dump(f))
			}
		})
	}
	whole := func(src string) bool {
		for _, o := range run(t, src).Outputs {
			for _, v := range o.Vars {
				if v == "*" {
					return true
				}
			}
		}
		return false
	}
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{`node -e 'console.log(process.env)'`, true},
		{`node -e 'console.log(JSON.stringify(process.env, null, 2))'`, true},
		{`ruby -e 'p ENV.to_h'`, true},
		{`perl -e 'print "$_=$ENV{$_}\n" for keys %ENV'`, true},
		{`php -r 'print_r(getenv());'`, true},
		{`awk 'BEGIN { for (k in ENVIRON) print k, ENVIRON[k] }'`, true},
		{`node -e 'require("child_process").spawn("ls", [], {env: process.env})'`, false},
		{`node -e 'console.log(process.env.HOME)'`, false},
		{`ruby -e 'puts ENV["HOME"]'`, false},
	} {
		t.Run(tc.src, func(t *testing.T) {
			if got := whole(tc.src); got != tc.want {
				t.Errorf("whole-environment output = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestFoldedPrivateKeys: a private-key header assembled from variables or
// printf arguments is a private_key Secret; a certificate is not.
func TestFoldedPrivateKeys(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{"h='-----BEGIN RSA PRIV'\nt='ATE KEY-----'\necho \"$h$t\"", true},
		{"a='-----BEGIN OPENSSH'\nb=' PRIVATE KEY-----'\nprintf '%s%s\\n' \"$a\" \"$b\"", true},
		{"H=PRIVATE\necho \"-----BEGIN EC $H KEY-----\"", true},
		{"C=CERTIFICATE\necho \"-----BEGIN $C-----\"", false},
		{"grep -rn 'PRIVATE KEY' docs/", false},
	} {
		t.Run(tc.src, func(t *testing.T) {
			f := run(t, tc.src)
			got := false
			for _, s := range f.Secrets {
				got = got || s.Kind == "private_key"
			}
			if got != tc.want {
				t.Errorf("private key = %v, want %v\n%s", got, tc.want, dump(f))
			}
		})
	}
}

// TestRunnersAndWorkingDirectory: code git, pagers and editors run from
// configuration or the environment is analyzed; relative paths after cd to
// a directory outside the workspace are judged there.
func TestRunnersAndWorkingDirectory(t *testing.T) {
	for _, tc := range []struct{ name, src, cmd string }{
		{"git config persisted", "git config --global core.fsmonitor 'rm -rf ~'\ngit status", "rm"},
		{"GIT_PAGER prefix", "GIT_PAGER='cat ~/.netrc' git log", "cat"},
		{"PAGER prefix", "PAGER='head -c 100 /etc/shadow' man ls", "head"},
		{"exported editor", "export GIT_EDITOR='rm -rf /'\ngit commit", "rm"},
		{"$BASH -c", "$BASH -c 'id'", "id"},
		{"ex -sc", "ex -sc '!uname -a' -cq", "uname"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if f := run(t, tc.src); findCmd(f, tc.cmd) == nil {
				t.Errorf("no %s command\n%s", tc.cmd, dump(f))
			}
		})
	}
	for _, tc := range []struct{ name, src, path string }{
		{"cd to a secret directory", "cd ~/.ssh\ncat config", "~/.ssh/config"},
		{"cd through /proc", "cd /proc/self/root\ncat etc/shadow", "/etc/shadow"},
		{"cd then cd relative", "cd /etc\ncd ssh\ncat sshd_config", "/etc/ssh/sshd_config"},
		{"cd in the workspace", "cd build\ncat out.txt", "out.txt"},
		{"dynamic cd forgets", "cd /etc\ncd \"$DIR\"\ncat passwd", "passwd"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if f := run(t, tc.src); findFile(f, "read", tc.path) == nil {
				t.Errorf("no read of %s\n%s", tc.path, dump(f))
			}
		})
	}
}

// TestReadIFSAndParallelStdin: read splits on a given IFS, and parallel
// without a command runs its input lines.
func TestReadIFSAndParallelStdin(t *testing.T) {
	for _, tc := range []struct{ name, src, cmd string }{
		{"IFS prefix on read -a", "IFS=: read -r -a c <<< 'rm:-rf:/'\n\"${c[@]}\"", "rm"},
		{"IFS set before", "IFS=,\nread -r a b <<< 'uname,-a'\n$a $b", "uname"},
		{"parallel reads command lines", "echo 'head -c 10 /etc/shadow' | parallel", "head"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if f := run(t, tc.src); findCmd(f, tc.cmd) == nil {
				t.Errorf("no %s command\n%s", tc.cmd, dump(f))
			}
		})
	}
	if f := run(t, "printf '%s\\n' a.log b.log | parallel gzip"); findCmd(f, "a.log") != nil {
		t.Errorf("input lines of parallel with a command are arguments\n%s", dump(f))
	}
}

// TestCwdDoesNotLeaveSubshells: a cd inside ( … ), $( … ) or a pipeline
// stage does not move the shell that runs the next command.
func TestCwdDoesNotLeaveSubshells(t *testing.T) {
	for _, src := range []string{
		"(cd /etc && ls)\ncat shadow",
		"x=$(cd /etc; pwd)\ncat shadow",
		"cd /etc | true\ncat shadow",
	} {
		t.Run(src, func(t *testing.T) {
			if f := run(t, src); findFile(f, "read", "shadow") == nil {
				t.Errorf("the read is not in the workspace\n%s", dump(f))
			}
		})
	}
}

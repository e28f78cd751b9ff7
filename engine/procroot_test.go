package engine_test

import (
	"slices"
	"testing"
)

// TestProcRootOfAnyProcess holds RULES.md principle 6 (path resolution) for
// /proc/<pid>/root and /cwd where the pid is not a literal: an expansion
// ($$, $BASHPID, $PPID, $(pgrep …), a variable), a glob, or in Python a
// value built at run time (f-strings, %, +, os.path.join, pathlib). Whatever
// process it names, the link leads to this tree's root, so the secret path
// behind it is judged as itself.
func TestProcRootOfAnyProcess(t *testing.T) {
	scan := evalScanner(t)
	deny := []struct{ lang, content string }{
		{"bash", `cat /proc/$$/root/etc/shadow`},
		{"bash", `cat "/proc/$BASHPID/root/root/.ssh/id_rsa"`},
		{"bash", `cp /proc/${PPID}/root/home/u/.aws/credentials /tmp/c`},
		{"bash", `cat /proc/$(pgrep -o sshd)/root/etc/shadow`},
		{"bash", "p=$$\ncat /proc/$p/root/etc/shadow"},
		{"bash", `cat /proc/*/root/etc/shadow`},
		{"bash", `cat /proc/self/task/$TID/root/etc/shadow`},
		{"python", "import os\nopen(f'/proc/{os.getpid()}/root/etc/shadow').read()"},
		{"python", "import os\nopen('/proc/%d/root/etc/shadow' % os.getpid()).read()"},
		{"python", "import os\nopen('/proc/' + str(os.getppid()) + '/root/root/.ssh/id_rsa').read()"},
		{"python", "pid = input()\nopen('/proc/{}/root/etc/shadow'.format(pid)).read()"},
		{"python", "import os\nopen(os.path.join('/proc', str(os.getpid()), 'root', 'etc', 'shadow')).read()"},
		{"python", "import os\nfrom pathlib import Path\nprint((Path('/proc') / str(os.getpid()) / 'root/etc/shadow').read_text())"},
	}
	for _, c := range deny {
		if got, ids := scan(c.lang, c.content); got != "deny" || !slices.Contains(ids, "FILE_SECRET_PATH_ACCESS") {
			t.Errorf("%q: got %s %v, want deny with FILE_SECRET_PATH_ACCESS", c.content, got, ids)
		}
	}
	allow := []struct{ lang, content string }{
		{"bash", `cat /proc/$$/status`},
		{"bash", `cat /proc/$PPID/cmdline | tr '\0' ' '`},
		{"bash", `ls /proc/$$/fd`},
		{"python", "import os\nprint(open('/proc/%d/status' % os.getpid()).read())"},
		{"python", "import os\nprint(open(os.path.join('/proc', str(os.getpid()), 'stat')).read())"},
		{"python", "import os\nfrom pathlib import Path\nprint((Path('/proc') / str(os.getpid()) / 'root' / 'tmp' / 'out.txt').exists())"},
	}
	for _, c := range allow {
		if got, ids := scan(c.lang, c.content); got == "deny" || slices.Contains(ids, "FILE_SECRET_PATH_ACCESS") {
			t.Errorf("%q: got %s %v, want no FILE_SECRET_PATH_ACCESS and no deny", c.content, got, ids)
		}
	}
}

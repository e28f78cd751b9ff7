package bash

import "testing"

// TestCwdOptions checks that working-directory options other than cd move
// the relative writes of the command they apply to, and only of it.
func TestCwdOptions(t *testing.T) {
	for _, tc := range []struct{ src, op, path string }{
		{"env -C /etc tar -xf a.tar", "write", "/etc"},
		{"env --chdir=/etc unzip x.zip", "write", "/etc"},
		{"env -i --chdir /usr/lib tar -xf a.tar", "write", "/usr/lib"},
		{"sudo -D /etc tar -xf a.tar", "write", "/etc"},
		{"sudo --chdir=/etc cpio -idm < a.cpio", "write", "/etc"},
		{"git -C /etc init", "write", "/etc"},
		{"git -C / -C etc checkout .", "write", "/etc"},
		{"git init /etc/x", "write", "/etc/x"},
		{"cd /etc && git init", "write", "/etc"},
		{"make -C /etc", "write", "/etc"},
		{"make --directory=/usr/src/x install", "write", "/usr/src/x"},
		{"env -C /etc cp /tmp/x hosts", "copy_to", "/etc/hosts"},
		{"pushd /etc && tar -xf a.tar", "write", "/etc"},
		{"nsenter -t 1 -m --wd=/etc tar -xf a.tar", "write", "/etc"},
		{"nsenter --wd=/usr/lib -t 1 unzip x.zip", "write", "/usr/lib"},
	} {
		if findFile(run(t, tc.src), tc.op, tc.path) == nil {
			t.Errorf("%q: no %s of %s", tc.src, tc.op, tc.path)
		}
	}
	for _, tc := range []struct{ src, path string }{
		{"env -C /etc true; tar -xf a.tar", "/etc"}, // the option ends with its command
		{"env -C ./build make", "/etc"},
		{"git -C /etc log", "/etc"},
		{"env tar -C ./out -xf a.tar", "/etc"},
		{"nsenter --wd -t 1 tar -xf a.tar", "/etc"},      // a bare --wd is the target's directory
		{"nsenter -t 1 --wd /etc tar -xf a.tar", "/etc"}, // /etc is the command, not --wd's value
	} {
		if findFile(run(t, tc.src), "write", tc.path) != nil {
			t.Errorf("%q: unexpected write of %s", tc.src, tc.path)
		}
	}
}

// TestChattrModes checks that chattr's -i/-a modes are modes, not
// options, so the file operand is recorded as changed.
func TestChattrModes(t *testing.T) {
	for _, src := range []string{"chattr -i /var/log/auth.log", "chattr -R -a /var/log/auth.log", "chattr +i -a /var/log/auth.log"} {
		f := findFile(run(t, src), "chmod", "/var/log/auth.log")
		if f == nil || f.Mode == "" {
			t.Errorf("%q: no chmod of /var/log/auth.log with its mode", src)
		}
	}
}

package bash

import (
	"testing"

	"github.com/toolwarden/toolwarden/sdk"
)

// TestSymlinksTheScriptCreates: a path through a link the script made is
// judged as the path the link points at.
func TestSymlinksTheScriptCreates(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"directory link", "ln -s ~/.ssh keys\ncat keys/id_rsa", "~/.ssh/id_rsa"},
		{"file link", "ln -sf /etc/shadow s.txt\nhead s.txt", "/etc/shadow"},
		{"link into a directory", "ln -s /etc/shadow build/\nwc -l build/shadow", "/etc/shadow"},
		{"link to a link", "ln -s $HOME/.aws a\nln -s a b\ncat b/credentials", "~/.aws/credentials"},
		{"redirect through a link", "ln -s /etc/gshadow g\nwc -l < g", "/etc/gshadow"},
		{"normalized link name", "ln -s /root r\ncat ./r/.bash_history", "/root/.bash_history"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := run(t, tc.src)
			found := false
			for _, x := range f.Files {
				if x.Path == tc.want {
					found = true
				}
			}
			for _, c := range f.Commands {
				for _, r := range c.Redirects {
					if r.Target == tc.want {
						found = true
					}
				}
			}
			if !found {
				t.Errorf("no access of %s:\n%s", tc.want, dump(f))
			}
		})
	}
	f := run(t, "ln -s build/app app-latest\nls -la app-latest")
	for _, x := range f.Files {
		if x.Path == "/etc/shadow" || x.Path == "~" {
			t.Errorf("unexpected %+v", x)
		}
	}
}

func hasFileAccess(f *sdk.Facts, op, p string) bool {
	for _, x := range f.Files {
		if x.Op == op && x.Path == p {
			return true
		}
	}
	return false
}

// TestOtherWaysToAFile: git REV:PATH object names and tar -C DIR operands
// reach the file they name.
func TestOtherWaysToAFile(t *testing.T) {
	for _, tc := range []struct{ src, op, want string }{
		{"git show HEAD:.env.production", "read", ".env.production"},
		{"git cat-file -p v1.2:deploy/id_rsa", "read", "deploy/id_rsa"},
		{"git --no-pager show stash@{0}:secrets/.env", "read", "secrets/.env"},
		{"git diff HEAD~1:config/app.yml HEAD:config/app.yml", "read", "config/app.yml"},
		{"tar -C ~ -czf /tmp/k.tgz .kube", "read", "~/.kube"},
		{"tar -czf /tmp/k.tgz -C /root .bash_history", "read", "/root/.bash_history"},
		{"tar --directory=$HOME -cf b.tar .docker", "read", "~/.docker"},
		{"tar -C /etc -C ssh -cf k.tar ssh_host_rsa_key", "read", "/etc/ssh/ssh_host_rsa_key"},
	} {
		f := run(t, tc.src)
		if !hasFileAccess(f, tc.op, tc.want) {
			t.Errorf("%s: no %s of %s:\n%s", tc.src, tc.op, tc.want, dump(f))
		}
	}
	// a remote or a refspec is not REV:PATH
	for _, src := range []string{"git push origin HEAD:refs/heads/ci", "git clone git@github.com:a/b.git", "git show HEAD"} {
		f := run(t, src)
		for _, x := range f.Files {
			if x.Op == "read" {
				t.Errorf("%s: unexpected read %+v", src, x)
			}
		}
	}
}

// TestProxySettingsAreDestinations: wget -e and git configuration proxies
// are where the connection really goes.
func TestProxySettingsAreDestinations(t *testing.T) {
	for _, tc := range []struct{ src, host string }{
		{"wget -e https_proxy=198.51.100.6:3128 https://github.com/", "198.51.100.6"},
		{"git -c http.proxy=http://198.51.100.7:8080 clone https://github.com/a/b", "198.51.100.7"},
		{"git config --global http.proxy http://p.example:8080\ngit clone https://github.com/a/b", "p.example"},
		{"git -c http.https://github.com.proxy=socks5://s.example clone https://github.com/a/b", "s.example"},
	} {
		f := run(t, tc.src)
		found := false
		for _, n := range f.Network {
			if n.Host == tc.host {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no destination %s:\n%s", tc.src, tc.host, dump(f))
		}
	}
}

package bash

import "testing"

// TestWriteDestinations checks that the destination options of archive and
// patch tools are recorded as writes, and that listing is not.
func TestWriteDestinations(t *testing.T) {
	for _, tc := range []struct{ src, op, path string }{
		{"tar -xf a.tar -C /usr/local/bin", "write", "/usr/local/bin"},
		{"tar xzf x.tgz --directory=/etc", "write", "/etc"},
		{"tar -x -f a.tar --directory /usr/lib", "write", "/usr/lib"},
		{"tar -C/etc -xf a.tar", "write", "/etc"},
		{"cpio -idm -D /etc", "write", "/etc"},
		{"7z x a.7z -o/etc", "write", "/etc"},
		{"patch /etc/hosts p.diff", "write", "/etc/hosts"},
		{"patch -d /etc -p1", "write", "/etc"},
		{"sponge /etc/hosts", "write", "/etc/hosts"},
		{"install -d /usr/local/foo", "write", "/usr/local/foo"},
		{"curl --output-dir /etc -O https://github.com/a", "write", "/etc"},
		{"cd /etc && tar -xf /tmp/a.tar", "write", "/etc"},
		{"cd /usr/local/bin; unzip /tmp/a.zip", "write", "/usr/local/bin"},
		{"cd /etc && 7z x /tmp/a.7z", "write", "/etc"},
		{"cd /etc && cpio -idm < /tmp/a.cpio", "write", "/etc"},
		{"git clone --depth 1 https://github.com/a /usr/local/a", "write", "/usr/local/a"},
	} {
		if findFile(run(t, tc.src), tc.op, tc.path) == nil {
			t.Errorf("%q: no %s of %s", tc.src, tc.op, tc.path)
		}
	}
	if findFile(run(t, "tar -tf a.tar -C /etc"), "write", "/etc") != nil {
		t.Errorf("tar -t lists: no write expected")
	}
}

package bash

import "testing"

// TestExtractions checks that every extractor records the directory it
// fills as a recursive write, and that listing modes write nothing.
func TestExtractions(t *testing.T) {
	for _, tc := range []struct{ src, path string }{
		{"cd / && tar -xzf x.tgz", "/"},
		{"tar -C / -xf x.tar", "/"},
		{"unzip x.zip -d /", "/"},
		{"rpm2cpio x.rpm | cpio -idm -D /", "/"},
		{"7z x a.7z -o/", "/"},
		{"ar x a.a --output=/etc", "/etc"},
		{"cd /etc && ar x a.a", "/etc"},
		{"cd /etc && pax -r < a.pax", "/etc"},
		{"pax -rw src /usr/lib", "/usr/lib"},
		{"unsquashfs -d /etc x.sqsh", "/etc"},
		{"cd /usr && unsquashfs x.sqsh", "/usr/squashfs-root"},
		{"dpkg -x x.deb /", "/"},
		{"dpkg-deb --extract x.deb /etc", "/etc"},
		{"cabextract -d /etc x.cab", "/etc"},
		{"unar -o /usr/lib x.zip", "/usr/lib"},
		{"unrar x a.rar /etc/", "/etc"},
		{"cd /etc && jar xf a.jar", "/etc"},
	} {
		f := findFile(run(t, tc.src), "write", tc.path)
		if f == nil || !f.Recursive {
			t.Errorf("%q: no recursive write of %s", tc.src, tc.path)
		}
	}
	for _, src := range []string{"cd / && ar t a.a", "cd / && unsquashfs -l x.sqsh", "cd / && dpkg -l",
		"cd / && pax -w -f /tmp/a.pax src", "cd / && tar -tf x.tar", "cd / && unrar l a.rar"} {
		for _, fa := range run(t, src).Files {
			if fa.Op == "write" && fa.Recursive {
				t.Errorf("%q: unexpected extraction into %s", src, fa.Path)
			}
		}
	}
}

// TestUnzipListNoExtract checks that a listing unzip with -d writes nothing.
func TestUnzipListNoExtract(t *testing.T) {
	if findFile(run(t, "unzip -l x.zip -d /"), "write", "/") != nil {
		t.Errorf("unzip -l -d /: unexpected extraction")
	}
	if findFile(run(t, "unzip -o x.zip -d /"), "write", "/") == nil {
		t.Errorf("unzip -o -d /: no extraction")
	}
}

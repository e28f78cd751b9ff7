package bash

import "testing"

// TestDownloadedArchiveTree checks that a file run from the extraction
// directory of a downloaded archive is downloaded code, and that the same
// run after a local archive, or a listing of the tree, is not.
func TestDownloadedArchiveTree(t *testing.T) {
	downloadedRun := func(src string) bool {
		for _, d := range run(t, src).DynamicExec {
			if d.Downloaded {
				return true
			}
		}
		return false
	}
	for _, src := range []string{
		"curl -sL https://h/y.tar.gz | tar xz && ./y/install",
		"curl -sL https://h/y.tar.gz | tar -xzf - -C /opt/y && bash /opt/y/setup.sh",
		"curl -sLo y.zip https://h/y.zip; unzip y.zip -d y; sh y/install.sh",
		"wget -q https://h/y.tgz && tar xzf y.tgz && ./y/configure",
		"curl -sL https://h/y.tar.gz | gunzip | tar x; python3 y/setup.py",
		"curl -sL https://h/y.tar.gz | tar --extract --gzip --directory=tools && tools/bin/run",
	} {
		if !downloadedRun(src) {
			t.Errorf("%s: the run of an extracted file is not downloaded code\n%s", src, dump(run(t, src)))
		}
	}
	for _, src := range []string{
		"tar xzf local.tgz && ./y/install",
		"curl -sL https://h/y.tar.gz | tar xz && ls y",
		"curl -sL https://h/y.tar.gz | tar xz -C vendor && ./build.sh",
		"curl -sL https://h/y.tar.gz | tar tz && ./y/install",
	} {
		if downloadedRun(src) {
			t.Errorf("%s: judged as running downloaded code\n%s", src, dump(run(t, src)))
		}
	}
}

// TestFindNameFilterNarrowsDeletes checks that one -name filter makes
// find's deletes reach the start's entries of that name, for -delete,
// -exec and an xargs the find feeds, and that wide starts stay whole.
func TestFindNameFilterNarrowsDeletes(t *testing.T) {
	deletes := func(src string) []string {
		var out []string
		for _, fa := range run(t, src).Files {
			if fa.Op == "delete" {
				out = append(out, fa.Path)
			}
		}
		return out
	}
	for src, want := range map[string]string{
		"find /tmp -maxdepth 1 -name 'cache-*' -delete":    "/tmp/cache-*",
		"find /var/tmp -name 'build-*' -exec rm -rf {} +":  "/var/tmp/build-*",
		"find /tmp -name '*.log' -print0 | xargs -0 rm -f": "/tmp/*.log",
		"find ~ -name '*.pyc' -delete":                     "~",
		"find /tmp -name a -o -delete":                     "/tmp",
		"find /tmp -delete":                                "/tmp",
	} {
		got := deletes(src)
		if len(got) == 0 || got[0] != want {
			t.Errorf("%s: deletes %q, want %q", src, got, want)
		}
	}
}

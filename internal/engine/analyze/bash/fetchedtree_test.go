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

package bash

import (
	"strings"
	"testing"
)

// TestFilesToolsLoad checks that a git hook, a conftest.py, package.json
// scripts and an .envrc the script wrote are judged as code when the tool
// that loads them runs — and not when another command runs.
func TestFilesToolsLoad(t *testing.T) {
	hasNested(t, "printf '#!/bin/sh\\nshred -u k\\n' > .git/hooks/pre-commit\ngit commit -m x", "shred", "-u", "k")
	hasNested(t, "printf '#!/bin/sh\\nhalt\\n' > .git/hooks/pre-push\ngit -C . push origin main", "halt")
	// Python is analyzed by its own analyzer: here, the content handed to it
	ranPython := func(src, want string) {
		t.Helper()
		f := run(t, src)
		for _, d := range f.DynamicExec {
			if strings.Contains(d.Content, want) {
				return
			}
		}
		t.Errorf("%s: %q not judged as code: %s", src, want, dump(f))
	}
	ranPython("printf 'import os\\nos.system(\"shred k\")\\n' > conftest.py\npytest -q", `os.system("shred k")`)
	ranPython("printf 'import os\\nos.system(\"halt\")\\n' > tests/conftest.py\npython3 -m pytest", `os.system("halt")`)
	hasNested(t, `echo '{"scripts":{"test":"shred k"}}' > package.json; npm test`, "shred", "k")
	hasNested(t, `echo '{"scripts":{"postinstall":"halt"}}' > package.json; npm install`, "halt")
	hasNested(t, `echo '{"scripts":{"build":"shred k"}}' > package.json; yarn build`, "shred", "k")
	hasNested(t, `echo '{"scripts":{"lint":"shred k"}}' > package.json; npm run lint`, "shred", "k")
	hasNested(t, "echo 'shred k' > .envrc; direnv allow", "shred", "k")
	for _, src := range []string{
		"printf '#!/bin/sh\\nshred k\\n' > .git/hooks/pre-commit\ngit status",
		`echo '{"scripts":{"test":"shred k"}}' > package.json; npm run lint`,
		"echo 'shred k' > .envrc; direnv status",
	} {
		if f := run(t, src); findCmd(f, "shred", "k") != nil {
			t.Errorf("%s: a file the command does not load was judged as run: %s", src, dump(f))
		}
	}
}

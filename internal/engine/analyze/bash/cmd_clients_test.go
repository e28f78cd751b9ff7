package bash

import "testing"

// TestClientShellEscapes checks that what a client program's shell escape
// runs is judged as shell code, from every place the client reads its
// commands (options, positional arguments, heredocs and here-strings).
func TestClientShellEscapes(t *testing.T) {
	hasNested(t, `sqlite3 x.db ".shell shred -u k"`, "shred", "-u", "k")
	hasNested(t, `sqlite3 -cmd '.system halt -f' x.db`, "halt", "-f")
	hasNested(t, `sqlite3 x.db 'select 1; .shell halt'`, "halt")
	hasNested(t, `sqlite3 x.db ".once |shred k"`, "shred", "k")
	hasNested(t, "sqlite3 x.db <<'SQL'\nselect 1;\n.shell shred -u k\nSQL", "shred", "-u", "k")
	hasNested(t, `sqlite3 x.db <<< '.system halt'`, "halt")
	hasNested(t, `psql -c '\! shred k'`, "shred", "k")
	hasNested(t, `psql --command='\! halt'`, "halt")
	hasNested(t, `psql -d app -c '\o | shred k'`, "shred", "k")
	hasNested(t, `mysql -e 'system shred k'`, "shred", "k")
	hasNested(t, `mariadb --execute='\! halt'`, "halt")
	hasNested(t, `mysql -uroot -e 'pager shred k'`, "shred", "k")
	hasNested(t, `gdb -batch -ex 'shell shred k' ./a.out`, "shred", "k")
	hasNested(t, `gdb -batch -ex '!halt'`, "halt")
	hasNested(t, `lldb -o 'platform shell shred k'`, "shred", "k")
	hasNested(t, `expect -c 'spawn shred k'`, "shred", "k")
	hasNested(t, `lftp -c '!halt'`, "halt")
	hasNested(t, "ftp -n <<EOF\n!shred k\nEOF", "shred", "k")
	for _, src := range []string{
		`sqlite3 x.db "select * from t"`,
		`sqlite3 x.db ".tables"`,
		`sqlite3 -separator '!' x.db 'select 1'`,
		`psql -c 'select 1'`,
		`mysql -e 'show databases'`,
		`gdb -batch -ex bt ./a.out`,
		`lldb -o 'bt all' ./a.out`,
	} {
		if f := run(t, src); len(f.DynamicExec) > 0 {
			t.Errorf("%s: a client command without an escape ran shell code: %s", src, dump(f))
		}
	}
}

// TestClientPipedStdin checks that text piped into a client is read as its
// commands, and that decoded text run through an escape is marked encoded.
func TestClientPipedStdin(t *testing.T) {
	hasNested(t, `echo '.shell shred -u k' | sqlite3 x.db`, "shred", "-u", "k")
	hasNested(t, `printf 'select 1;\n.system halt\n' | sqlite3 x.db`, "halt")
	hasNested(t, `printf '\\! shred k\n' | psql`, "shred", "k")
	hasNested(t, `echo 'shell shred k' | gdb -batch`, "shred", "k")
	hasNested(t, `echo 'system halt' | mysql -uroot`, "halt")
	hasNested(t, `echo '!halt' | ftp -n`, "halt")
	f := run(t, `echo LnNoZWxsIGhhbHQ= | base64 -d | sqlite3 x.db`)
	enc := false
	for _, d := range f.DynamicExec {
		enc = enc || d.Encoded
	}
	if !enc {
		t.Errorf("decoded piped escape not marked encoded: %s", dump(f))
	}
	for _, src := range []string{`echo 'select 1' | sqlite3 x.db`, `cat q.sql | sqlite3 x.db`, `echo '\dt' | psql`} {
		if f := run(t, src); len(f.DynamicExec) > 0 {
			t.Errorf("%s: piped client commands without an escape ran shell code: %s", src, dump(f))
		}
	}
}

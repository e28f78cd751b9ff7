package bash

import "testing"

// TestClientScriptFiles: a file of client commands the script wrote, fed to
// the client (`sqlite3 x.db < f.sql`, `psql -f f.sql`, `gdb -x f`, an
// include command inside another such file), has its shell escapes judged.
func TestClientScriptFiles(t *testing.T) {
	runs := []string{
		"echo '.shell rm -rf /x' > f.sql\nsqlite3 x.db < f.sql",
		"echo '.shell rm -rf /x' > f.sql\nsqlite3 -init f.sql x.db .quit",
		"printf '\\\\! rm -rf /x\\n' > f.sql\npsql -f f.sql",
		"cat > f.sql <<'EOF'\nselect 1;\n\\! rm -rf /x\nEOF\npsql --file=f.sql db",
		"echo 'system rm -rf /x' > f.sql\nmysql db < f.sql",
		"echo 'system rm -rf /x' > in.sql\necho 'source in.sql;' > f.sql\nmysql -e 'source f.sql'",
		"echo '.shell rm -rf /x' > in.sql\necho '.read in.sql' > f.sql\nsqlite3 x.db < f.sql",
		"echo 'shell rm -rf /x' > f.gdb\ngdb -x f.gdb ./a.out",
	}
	for _, src := range runs {
		f := run(t, src)
		if findCmd(f, "rm", "-rf", "/x") == nil {
			t.Errorf("%q: the escape's rm -rf /x is not judged\n%s", src, dump(f))
		}
	}
	// Files whose text is not known, or plain SQL, run nothing.
	for _, src := range []string{"sqlite3 x.db < f.sql", "echo 'select 1;' > f.sql\npsql -f f.sql",
		"echo '.read f.sql' > f.sql\nsqlite3 x.db < f.sql"} {
		f := run(t, src)
		if x := findCmd(f, "rm"); x != nil {
			t.Errorf("%q: unexpected rm\n%s", src, dump(f))
		}
	}
}

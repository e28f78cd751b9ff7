package staged

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/internal/engine/analyze"
)

func refsOf(t *testing.T, content string) []Ref {
	t.Helper()
	f, err := analyze.Analyze("bash", content, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return Refs(f)
}

func TestRefs(t *testing.T) {
	cases := []struct {
		content string
		want    []string // kind:first candidate
	}{
		{"python3 x.py", []string{"script:x.py"}},
		{"python3 -u -W ignore -X dev x.py a b", []string{"script:x.py"}},
		{"python3 -c 'print(1)'", nil},
		{"python3 - < x.py", nil},
		{"python -m pkg.tool", []string{"module:pkg/__init__.py"}},
		{"bash -e x.sh", []string{"script:x.sh"}},
		{"bash -c 'echo hi'", nil},
		{"sh -o errexit -- run", []string{"script:run"}},
		{"source ./env.sh", []string{"source:./env.sh"}},
		{". env.sh", []string{"source:env.sh"}},
		{"make -C sub -f build.mk all", []string{"makefile:sub/build.mk"}},
		{"make", []string{"makefile:GNUmakefile"}},
		{"./run.sh --flag", []string{"exec:./run.sh"}},
		{"timeout 5 bin/tool", []string{"exec:bin/tool"}},
		{"ls -la /tmp", nil},
		{"$CMD x.py", nil},
	}
	for _, c := range cases {
		var got []string
		for _, r := range refsOf(t, c.content) {
			if r.Kind == KindStartup || r.Kind == KindListing || r.Kind == KindConftest {
				continue // TestStartupRefs
			}
			got = append(got, r.Kind+":"+r.Candidates[0])
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: refs %v, want %v", c.content, got, c.want)
		}
	}
}

// TestStartupRefs: any python or pip run loads the user site; git loads
// the global config, the repository config of the cwd or a parent, and its
// hooks; other commands load none of these.
func TestStartupRefs(t *testing.T) {
	cases := []struct {
		content string
		want    []string // kind:first candidate
	}{
		{"python3 -c 'print(1)'", []string{"listing:.local/lib/"}},
		{"pip install x", []string{"listing:.local/lib/"}},
		{"git status", []string{"startup:.gitconfig", "startup:.config/git/config", "startup:.git/config", "listing:.git/hooks/", "startup:.git"}},
		{"git -c a=b -C sub log", []string{"startup:.gitconfig", "startup:.config/git/config", "startup:sub/.git/config", "listing:sub/.git/hooks/", "startup:sub/.git"}},
		{".venv/bin/python3 app.py", []string{"listing:.local/lib/", "listing:.venv/lib/"}},
		{"pytest -q", []string{"listing:.local/lib/", "conftest:conftest.py"}},
		{"npm --prefix web run x", []string{"startup:web/package.json"}},
		{"git -C /ws/repo status", []string{"startup:.gitconfig", "startup:.config/git/config", "startup:/ws/repo/.git/config", "listing:/ws/repo/.git/hooks/", "startup:/ws/repo/.git"}},
		{"ls; echo git", nil},
	}
	for _, c := range cases {
		var got []string
		for _, r := range refsOf(t, c.content) {
			if r.Kind == KindStartup || r.Kind == KindListing || r.Kind == KindConftest {
				got = append(got, r.Kind+":"+r.Candidates[0])
			}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: startup refs %v, want %v", c.content, got, c.want)
		}
	}
	r := refsOf(t, "git status")[2]
	if len(r.Candidates) != maxRepoDepth || r.Candidates[1] != "../.git/config" {
		t.Errorf("repository config is searched in the parents: %v", r.Candidates[:2])
	}
	if e := sitePackages("x.pth"); !e.Load || e.Language != LangPth || sitePackages("x.py").Load || gitHooks("pre-commit.sample").Load || !gitHooks("pre-push").Load {
		t.Error("entry rules")
	}
}

func TestPthAndGitConfig(t *testing.T) {
	if got := PthToPython("/a/b\nimport os; os.system('x')\nimportant\n\timport y\n"); got != "\nimport os; os.system('x')\n\n\n" {
		t.Errorf("pth: %q", got)
	}
	src := "[core]\n\tpager = \"less -R\" # c\n\tbare = false\n[alias]\n\tst = !rm -rf /\n\tlg = log -p\n" +
		"[filter \"lfs\"]\n\tclean = sh -c x\n[include]\n\tpath = x.cfg\n[core]\n\thooksPath = h\n"
	g := GitConfigToShell(src, func(k string) bool { return k == "core.pager" || k == "filter.lfs.clean" })
	want := []string{"", "less -R", "", "", "rm -rf /", "git log -p", "", "sh -c x", "", "", "", "", ""}
	if got := strings.Split(g.Shell, "\n"); !reflect.DeepEqual(got, want) {
		t.Errorf("git config shell %q, want %q", got, want)
	}
	for k, want := range map[string]bool{"credential.helper": true, "credential.https://x.example.helper": true,
		"remote.origin.uploadpack": true, "core.pager": true, "core.bare": false, "user.name": false} {
		if got := GitCommandKey(k, func(k string) bool { return k == "core.pager" }); got != want {
			t.Errorf("GitCommandKey(%q) = %v", k, got)
		}
	}
	if !reflect.DeepEqual(g.Unscanned, []string{"include.path", "core.hookspath"}) {
		t.Errorf("unscanned keys %v", g.Unscanned)
	}
}

// TestListing: a listing is the sorted names, hashed; a name holding a
// newline (which would read as two) makes the directory unreadable.
func TestListing(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "d")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"b.pth", "a.pth"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := Dir{Root: root}
	r := src.ReadRel("d/", 1<<20)
	if r.State != StateListing || string(r.Content) != "a.pth\nb.pth" || r.Size != 2 {
		t.Fatalf("listing %+v %q", r.File, r.Content)
	}
	if rel, ok := src.Rel("d/"); !ok || rel != "d/" {
		t.Fatalf("Rel keeps the listing slash: %q %v", rel, ok)
	}
	if st := src.ReadRel("d/a.pth/", 0).State; st != StateAbsent {
		t.Fatalf("a file listed as a directory: %s", st)
	}
	if err := os.WriteFile(filepath.Join(dir, "x\nusercustomize.pth"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if st := src.ReadRel("d/", 1<<20).State; st != StateUnreadable {
		t.Fatalf("a name with a newline: %s", st)
	}
}

func TestPackageScripts(t *testing.T) {
	sh, ok := PackageScripts("{\n \"scripts\": {\n  \"test\": \"jest\",\n  \"pre\": \"a\\nb\"\n },\n \"x\": 1\n}")
	if want := "\n\njest\na; b\n\n\n"; !ok || sh != want {
		t.Errorf("scripts %q %v, want %q", sh, ok, want)
	}
	if _, ok := PackageScripts("[1"); ok {
		t.Error("broken JSON accepted")
	}
}

func TestImportRefs(t *testing.T) {
	refs := ImportRefs("import a.b\nfrom . import sib\nfrom c import d\n", "src", true)
	var got []string
	for _, r := range refs {
		if !r.Rooted || !r.All() {
			t.Errorf("import ref %+v must be rooted and load every candidate", r)
		}
		got = append(got, strings.Join(r.Candidates, ","))
	}
	want := []string{
		"src/a.py,src/a/__init__.py,src/a/b.py,src/a/b/__init__.py",
		"src/sib.py,src/sib/__init__.py",
		"src/c.py,src/c/__init__.py,src/c/d.py,src/c/d/__init__.py",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if refs := ImportRefs("from . import x\n", "", false); len(refs) != 0 {
		t.Errorf("relative import of inline code: %+v", refs)
	}
}

func TestMakeToShell(t *testing.T) {
	src := "RM := rm -rf\nOUT = build\nX != echo hi\nall: dep\n\t@$(RM) $(OUT) \\\n\t  /tmp/x\n\t-echo $$HOME $@ $(patsubst %.c,%.o,a.c)\n"
	got := strings.Split(MakeToShell(src), "\n")
	want := []string{`RM="rm -rf"`, `OUT="build"`, `X="$(echo hi)"`, "", "${RM} ${OUT}  /tmp/x", "",
		"echo $HOME $@ ${MAKE_FUNCTION_RESULT}", ""}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

func TestDirRel(t *testing.T) {
	d := Dir{Root: "/ws", Cwd: "/ws/sub"}
	for name, want := range map[string]string{"x.py": "sub/x.py", "../y.py": "y.py", "/ws/z": "z", "./a/../b": "sub/b"} {
		if got, ok := d.Rel(name); !ok || got != want {
			t.Errorf("Rel(%q) = %q %v, want %q", name, got, ok, want)
		}
	}
	for _, name := range []string{"../../etc/passwd", "/usr/bin/python3", "/wsx/a", "", "a\x00b"} {
		if got, ok := d.Rel(name); ok {
			t.Errorf("Rel(%q) = %q, want outside", name, got)
		}
	}
}

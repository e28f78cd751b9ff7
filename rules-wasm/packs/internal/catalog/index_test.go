package catalog

import (
	"slices"
	"testing"

	"github.com/toolwarden/toolwarden/sdk"
)

func feederNames(f *sdk.Facts, c *sdk.Command) []string {
	var out []string
	for s := range Feeders(f, c) {
		out = append(out, s.Name)
	}
	return out
}

func TestFeedersTransitiveNearestFirst(t *testing.T) {
	// curl | tee x | sh, with $(date) feeding tee's argument; 1 and 3 form
	// a cycle that must not loop.
	f := &sdk.Facts{Commands: []sdk.Command{
		{ID: 1, Name: "curl", StdinSources: []int{3}},
		{ID: 2, Name: "tee", StdinSources: []int{1}, ArgSources: []int{4}},
		{ID: 3, Name: "sh", StdinSources: []int{2}},
		{ID: 4, Name: "date"},
		{ID: 5, Name: "ls"},
	}}
	if got, want := feederNames(f, &f.Commands[2]), []string{"tee", "curl", "date"}; !slices.Equal(got, want) {
		t.Errorf("Feeders(sh) = %v, want %v", got, want)
	}
	if got := FeederList(f, &f.Commands[4]); got != nil {
		t.Errorf("a command nothing feeds has no feeders: %v", got)
	}
}

func TestFeedersSparseIDsAndLongChains(t *testing.T) {
	// IDs far apart take the map path; a chain longer than visited's
	// inline set takes its map path.
	f := &sdk.Facts{}
	for i := 0; i < 40; i++ {
		c := sdk.Command{ID: 1000000 + i, Name: "cat"}
		if i > 0 {
			c.StdinSources = []int{1000000 + i - 1, 1000000 + i - 1}
		}
		f.Commands = append(f.Commands, c)
	}
	f.Commands[0].Name = "curl"
	got := FeederList(f, &f.Commands[39])
	if len(got) != 39 || got[0].ID != 1000000+38 || got[38].Name != "curl" {
		t.Fatalf("long chain: %d feeders, want 39 ending in curl", len(got))
	}
	if x := indexOf(f); x.sparse == nil || x.dense != nil {
		t.Error("IDs far above the command count must use the sparse index")
	}
}

func TestIndexFollowsTheDocument(t *testing.T) {
	f := &sdk.Facts{Commands: []sdk.Command{{ID: 1, Name: "curl"}, {ID: 2, Name: "sh", StdinSources: []int{1}}}}
	if got := feederNames(f, &f.Commands[1]); !slices.Equal(got, []string{"curl"}) {
		t.Fatalf("Feeders = %v", got)
	}
	// Appending reallocates or grows the list: the cached index must not
	// answer for it.
	f.Commands = append(f.Commands, sdk.Command{ID: 3, Name: "bash", StdinSources: []int{2}})
	if got := feederNames(f, &f.Commands[2]); !slices.Equal(got, []string{"sh", "curl"}) {
		t.Errorf("after append Feeders = %v", got)
	}
	// An in-place edit is picked up by the next scan (NewEnv).
	f.Commands[0] = sdk.Command{ID: 1, Name: "wget"}
	if _, err := NewEnv(&sdk.ScanInput{Facts: f}); err != nil {
		t.Fatal(err)
	}
	if got := feederNames(f, &f.Commands[1]); !slices.Equal(got, []string{"wget"}) {
		t.Errorf("after in-place edit and NewEnv Feeders = %v", got)
	}
	// Another document gets its own index.
	g := &sdk.Facts{Commands: []sdk.Command{{ID: 1, Name: "base64"}, {ID: 2, Name: "sh", StdinSources: []int{1}}}}
	if got := feederNames(g, &g.Commands[1]); !slices.Equal(got, []string{"base64"}) {
		t.Errorf("second document Feeders = %v", got)
	}
	if got := feederNames(f, &f.Commands[1]); !slices.Equal(got, []string{"wget"}) {
		t.Errorf("back to the first document Feeders = %v", got)
	}
}

func TestFileSourcesCachedPerDocument(t *testing.T) {
	f := &sdk.Facts{Commands: []sdk.Command{
		{ID: 1, Name: "curl", Args: []string{"-o", "a.sh", "https://h/a.sh"}},
	}}
	a := FileSources(f)
	b := FileSources(f)
	if len(a["a.sh"]) != 1 || a["a.sh"][0].Name != "curl" {
		t.Fatalf("FileSources = %v", a)
	}
	if len(b) != len(a) || &b["a.sh"][0] != &a["a.sh"][0] {
		t.Error("the same document must reuse its file sources")
	}
	if _, err := NewEnv(&sdk.ScanInput{Facts: f}); err != nil {
		t.Fatal(err)
	}
	f.Commands[0].Args[1] = "b.sh"
	if c := FileSources(f); len(c["b.sh"]) != 1 || len(c["a.sh"]) != 0 {
		t.Errorf("a new scan must recompute file sources: %v", c)
	}
}

func TestNamesAndIs(t *testing.T) {
	cases := []sdk.Command{
		{Name: "rm"},
		{Name: "/bin/r?", Candidates: []string{"rm", "rmdir"}},
		{Name: "python3", Candidates: []string{"python3.12"}},
		{Name: ""},
		{Name: "[", Candidates: []string{"test"}},
	}
	for i := range cases {
		c := &cases[i]
		names := Names(c)
		for _, probe := range []string{"rm", "rmdir", "python3", "python3.12", "test", "[", "/bin/r?", ""} {
			if got, want := Is(c, "zz", probe), slices.Contains(names, probe); got != want {
				t.Errorf("Is(%+v, %q) = %v, Names = %v", *c, probe, got, names)
			}
		}
		for _, pre := range []string{"r", "py", "/bin", "t", "["} {
			want := slices.ContainsFunc(names, func(n string) bool { return len(n) >= len(pre) && n[:len(pre)] == pre })
			if got := NameHasPrefix(c, pre); got != want {
				t.Errorf("NameHasPrefix(%+v, %q) = %v", *c, pre, got)
			}
		}
	}
	if got := Names(&cases[1]); !slices.Equal(got, []string{"rm", "rmdir"}) {
		t.Errorf("glob word: Names = %v", got)
	}
	if got := Names(&cases[2]); !slices.Equal(got, []string{"python3", "python3.12"}) {
		t.Errorf("name with candidates: Names = %v", got)
	}
}

func TestNamesAndIsDoNotAllocate(t *testing.T) {
	c := &sdk.Command{Name: "curl"}
	n := testing.AllocsPerRun(100, func() {
		if !Is(c, "wget", "curl") || len(Names(c)) != 1 || Names(c)[0] != "curl" {
			t.Fatal("wrong answer")
		}
	})
	if n != 0 {
		t.Errorf("Is/Names allocate %.0f times per call for a plain name", n)
	}
}

func TestPacksOfOneScanShareTheIndex(t *testing.T) {
	f := &sdk.Facts{Commands: []sdk.Command{{ID: 1, Name: "curl"}, {ID: 2, Name: "sh", StdinSources: []int{1}}}}
	in := &sdk.ScanInput{Facts: f}
	Begin(in)
	if _, err := NewEnv(in); err != nil {
		t.Fatal(err)
	}
	x := indexOf(f)
	if _, err := NewEnv(in); err != nil {
		t.Fatal(err)
	}
	if indexOf(f) != x {
		t.Error("a second pack of the same scan must reuse the index")
	}
	// The guest kit decodes the next scan into the same ScanInput: same
	// pointers, new content. A new scan must never see the old index.
	f.Commands = f.Commands[:1]
	Begin(in)
	if _, err := NewEnv(in); err != nil {
		t.Fatal(err)
	}
	if indexOf(f) == x || indexOf(f).n != 1 {
		t.Error("a new scan of the same input pointer must index its facts afresh")
	}
	// Without Begin each pack indexes for itself.
	End()
	y := indexOf(f)
	if _, err := NewEnv(in); err != nil {
		t.Fatal(err)
	}
	if indexOf(f) == y {
		t.Error("an Init outside a Begin scan must index afresh")
	}
}

func TestIsInterpreterCoversInterpreters(t *testing.T) {
	for n := range Interpreters {
		if !IsInterpreter(n) {
			t.Errorf("IsInterpreter(%q) = false, but it is in Interpreters", n)
		}
	}
	for _, n := range []string{"python3.12", "pypy3.10", "pythonw"} {
		if !IsInterpreter(n) {
			t.Errorf("versioned %q must be an interpreter", n)
		}
	}
	for _, n := range []string{"", "ls", "shx", "bas", "nodes", "rubyx", "py", "curl", "Sh"} {
		if IsInterpreter(n) {
			t.Errorf("IsInterpreter(%q) = true", n)
		}
	}
}

func TestIsInAgreesWithIs(t *testing.T) {
	set := map[string]bool{"mkfs": true, "[": true, "rm": true}
	for _, c := range []sdk.Command{{Name: "mkfs"}, {Name: "["}, {Name: "/bin/r?", Candidates: []string{"rm"}},
		{Name: "ls"}, {Name: "*", Candidates: []string{"ls"}}} {
		if got, want := IsIn(&c, set), Is(&c, "mkfs", "[", "rm"); got != want {
			t.Errorf("IsIn(%+v) = %v, Is says %v", c, got, want)
		}
	}
	c := &sdk.Command{Name: "curl"}
	if n := testing.AllocsPerRun(50, func() { IsIn(c, Shells) }); n != 0 {
		t.Errorf("IsIn allocates %.0f times", n)
	}
}

package catalog

import (
	"slices"
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/sdk"
)

var (
	testKindDelete = NewKind(KindSpec{Names: []string{"rm", "rmdir", "shred"}, BaseNames: true})
	testKindMkfs   = NewKind(KindSpec{Prefixes: []string{"mkfs"}, Names: []string{"wipefs"}})
	testKindRunner = NewKind(KindSpec{Names: append(InterpreterNames(), "eval", "source", "."),
		Prefixes: InterpreterPrefixes, Dynamic: true})
	testKindFlags = NewKind(KindSpec{Encoded: true, Redirected: true, ScriptPath: true})
	testKindShell = NewKind(KindSpec{ShellFeature: true})
)

// TestCommandsOfKind checks that each kind selects exactly the commands its
// definition names, in document order, whatever way a command spells them
// (candidates of a glob word, a versioned interpreter, a path).
func TestCommandsOfKind(t *testing.T) {
	f := &sdk.Facts{Commands: []sdk.Command{
		{ID: 1, Name: "rm"},
		{ID: 2, Name: "/bin/r?", Path: "/bin/r?", Candidates: []string{"rmdir", "rev"}},
		{ID: 3, Name: "mkfs.ext4"},
		{ID: 4, Name: "python3.12"},
		{ID: 5, Dynamic: true, Path: "$CMD"},
		{ID: 6, Name: "ls", Redirects: []sdk.Redirect{{Op: "<<", Target: "EOF"}}},
		{ID: 7, Name: "x.sh", Path: "./x.sh"},
		{ID: 8, Name: "ls", Path: "/usr/bin/ls", Pos: sdk.Pos{Encoded: true}},
		{ID: 9, Name: "cat", Pipeline: 1, Stage: 1},
		{ID: 10, Name: "date", Reach: []string{"function", "substitution"}},
		{ID: 11, Name: "tools/shred"},
		{ID: 12, Name: ""},
		{ID: 13, Name: "ls", Redirects: []sdk.Redirect{{Op: ">", Target: "out"}}},
	}}
	in := &sdk.ScanInput{Facts: f}
	e, err := NewEnv(in)
	if err != nil {
		t.Fatal(err)
	}
	ids := func(k Kind) []int {
		var out []int
		for _, i := range e.Commands(k) {
			out = append(out, f.Commands[i].ID)
		}
		return out
	}
	for _, c := range []struct {
		k    Kind
		want []int
	}{
		{testKindDelete, []int{1, 2, 11}},
		{testKindMkfs, []int{3}},
		{testKindRunner, []int{4, 5, 12}},
		{testKindFlags, []int{6, 7, 8, 13}},
		{testKindShell, []int{9, 10, 13}},
	} {
		if got := ids(c.k); !slices.Equal(got, c.want) {
			t.Errorf("kind %d: commands %v, want %v", c.k, got, c.want)
		}
	}
	// A kind never holds less than Is selects.
	for i := range f.Commands {
		c := &f.Commands[i]
		in := slices.Contains(e.Commands(testKindDelete), int32(i))
		if Is(c, "rm", "rmdir", "shred") && !in {
			t.Errorf("command %d is a delete by Is but not of the kind", c.ID)
		}
		if NameHasPrefix(c, "mkfs") && !slices.Contains(e.Commands(testKindMkfs), int32(i)) {
			t.Errorf("command %d starts with mkfs but is not of the kind", c.ID)
		}
		for _, n := range Names(c) {
			if IsInterpreter(n) && !slices.Contains(e.Commands(testKindRunner), int32(i)) {
				t.Errorf("command %d runs interpreter %s but is not a runner", c.ID, n)
			}
		}
	}
}

func TestManyCommandsIndexed(t *testing.T) {
	f := &sdk.Facts{}
	for i := 0; i < 300; i++ {
		name := "ls"
		if i%3 == 0 {
			name = "rm"
		}
		f.Commands = append(f.Commands, sdk.Command{ID: i + 1, Name: name, Pipeline: 1, Stage: i % 2})
	}
	e, err := NewEnv(&sdk.ScanInput{Facts: f})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(e.Commands(testKindDelete)); got != 100 {
		t.Errorf("%d deletes, want 100", got)
	}
	if got := len(e.Commands(testKindShell)); got != 150 {
		t.Errorf("%d later pipeline stages, want 150", got)
	}
	if !slices.IsSorted(e.Commands(testKindShell)) {
		t.Error("commands of a kind must come in document order")
	}
}

func TestInitDoesNotAllocate(t *testing.T) {
	in := &sdk.ScanInput{Facts: &sdk.Facts{Language: "bash", Commands: []sdk.Command{{ID: 1, Name: "rm"}}},
		Policy: &sdk.Policy{DeniedPaths: []string{"~/.ssh"}}}
	var e Env
	Begin(in)
	defer End()
	if err := e.Init(in); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(50, func() {
		if err := e.Init(in); err != nil || len(e.Commands(testKindDelete)) != 1 {
			t.Fatal("wrong answer")
		}
	}); n != 0 {
		t.Errorf("Init for another pack of the same scan allocates %.0f times", n)
	}
	if !strings.EqualFold(e.Lang, "bash") {
		t.Errorf("Lang = %q", e.Lang)
	}
}

func TestFeedersWalkDoesNotAllocate(t *testing.T) {
	f := &sdk.Facts{Commands: []sdk.Command{
		{ID: 1, Name: "curl"}, {ID: 2, Name: "tee", StdinSources: []int{1}}, {ID: 3, Name: "sh", StdinSources: []int{2}},
	}}
	sh := &f.Commands[2]
	FeederList(f, sh) // builds the ID lookup once
	if n := testing.AllocsPerRun(50, func() {
		found := false
		for s := range Feeders(f, sh) {
			found = found || s.Name == "curl"
		}
		if !found {
			t.Fatal("curl feeds sh")
		}
	}); n != 0 {
		t.Errorf("walking the feeders allocates %.0f times", n)
	}
}

var testKindExact = NamesKind("curl", "wget", "git")

// TestOfIsIsForNameKinds checks the promise rules rely on when they ask Of
// instead of Is: for a kind of names alone the two agree on every command,
// whatever its word, candidates or path.
func TestOfIsIsForNameKinds(t *testing.T) {
	f := &sdk.Facts{Commands: []sdk.Command{
		{ID: 1, Name: "curl"}, {ID: 2, Name: "git", Path: "/usr/bin/git"}, {ID: 3, Name: "gi?", Candidates: []string{"git"}},
		{ID: 4, Name: "gi?", Candidates: []string{"gio"}}, {ID: 5, Name: "x/curl"}, {ID: 6, Name: "wge"},
		{ID: 7, Dynamic: true}, {ID: 8, Name: "", Candidates: []string{"wget", "ls"}}, {ID: 9, Name: "CURL"},
	}}
	e, err := NewEnv(&sdk.ScanInput{Facts: f})
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Commands {
		if got, want := e.Of(int32(i), testKindExact), Is(&f.Commands[i], "curl", "wget", "git"); got != want {
			t.Errorf("command %d: Of = %v, Is = %v", f.Commands[i].ID, got, want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a glob kind name must be refused")
		}
	}()
	NamesKind("r?")
}

var (
	testKindListed = NamesKind("zzlisted1")
	testKindPrefix = NewKind(KindSpec{Prefixes: []string{"zzlis"}})
	testKindLater  = NamesKind("zzlisted2")
)

// TestListedNamesKeepPrefixKinds checks that a name found in the table
// still gets the kinds of the prefixes it starts with, whether the prefix
// was registered after the name or before.
func TestListedNamesKeepPrefixKinds(t *testing.T) {
	f := &sdk.Facts{Commands: []sdk.Command{{ID: 1, Name: "zzlisted1"}, {ID: 2, Name: "zzlisted2"}, {ID: 3, Name: "zzlisx"}}}
	e, err := NewEnv(&sdk.ScanInput{Facts: f})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][3]bool{{true, true, false}, {false, true, true}, {false, true, false}} {
		got := [3]bool{e.Of(int32(i), testKindListed), e.Of(int32(i), testKindPrefix), e.Of(int32(i), testKindLater)}
		if got != want {
			t.Errorf("command %d: kinds %v, want %v", i+1, got, want)
		}
	}
}

package bash

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/internal/engine/facts"
	"github.com/toolwarden/toolwarden/sdk"
)

// run analyzes src with only the bash analyzer registered.
func run(t testing.TB, src string) *sdk.Facts {
	t.Helper()
	b := facts.NewBuilder("bash", map[string]facts.AnalyzeFunc{"bash": Analyze})
	Analyze(b, src, facts.Top)
	return b.Facts
}

// dump renders facts for failure messages.
func dump(f *sdk.Facts) string {
	out, _ := json.MarshalIndent(f, "", " ")
	return string(out)
}

// findCmd returns the first command named name whose args equal args (all
// args when args is nil).
func findCmd(f *sdk.Facts, name string, args ...string) *sdk.Command {
	for i := range f.Commands {
		c := &f.Commands[i]
		if c.Name != name {
			continue
		}
		if args == nil || slices.Equal(c.Args, args) {
			return c
		}
	}
	return nil
}

func findFile(f *sdk.Facts, op, path string) *sdk.FileAccess {
	for i := range f.Files {
		if f.Files[i].Op == op && f.Files[i].Path == path {
			return &f.Files[i]
		}
	}
	return nil
}

func findNet(f *sdk.Facts, via string) *sdk.NetworkUse {
	for i := range f.Network {
		if f.Network[i].Via == via {
			return &f.Network[i]
		}
	}
	return nil
}

func findDyn(f *sdk.Facts, kind string) *sdk.DynamicExec {
	for i := range f.DynamicExec {
		if f.DynamicExec[i].Kind == kind {
			return &f.DynamicExec[i]
		}
	}
	return nil
}

func featureKinds(f *sdk.Facts) []string {
	var out []string
	for _, x := range f.ShellFeatures {
		if x.Pos.Depth == 0 {
			out = append(out, x.Kind)
		}
	}
	return out
}

// checker accumulates assertion failures for one input.
type checker struct {
	t   *testing.T
	f   *sdk.Facts
	src string
	bad []string
}

func (c *checker) failf(format string, args ...any) {
	c.bad = append(c.bad, fmt.Sprintf(format, args...))
}

func (c *checker) done() {
	c.t.Helper()
	if len(c.bad) > 0 {
		c.t.Errorf("%q:\n  %s\nfacts: %s", c.src, strings.Join(c.bad, "\n  "), dump(c.f))
	}
}

func (c *checker) cmd(name string, args ...string) *sdk.Command {
	if args == nil {
		args = []string{}
	}
	x := findCmd(c.f, name, args...)
	if len(args) == 0 {
		x = findCmd(c.f, name)
	}
	if x == nil {
		c.failf("no command %s %q", name, args)
	}
	return x
}

func (c *checker) noCmd(name string) {
	if x := findCmd(c.f, name); x != nil {
		c.failf("unexpected command %s %q", name, x.Args)
	}
}

func (c *checker) file(op, path string) *sdk.FileAccess {
	x := findFile(c.f, op, path)
	if x == nil {
		c.failf("no file access %s %s", op, path)
	}
	return x
}

func (c *checker) noFile(path string) {
	for _, fa := range c.f.Files {
		if fa.Path == path {
			c.failf("unexpected file access %s %s", fa.Op, fa.Path)
		}
	}
}

func (c *checker) net(via string) *sdk.NetworkUse {
	x := findNet(c.f, via)
	if x == nil {
		c.failf("no network use via %s", via)
	}
	return x
}

func (c *checker) dyn(kind string) *sdk.DynamicExec {
	x := findDyn(c.f, kind)
	if x == nil {
		c.failf("no dynamic exec %s", kind)
	}
	return x
}

func (c *checker) expect(ok bool, format string, args ...any) {
	if !ok {
		c.failf(format, args...)
	}
}

func hasReach(c *sdk.Command, r string) bool { return slices.Contains(c.Reach, r) }

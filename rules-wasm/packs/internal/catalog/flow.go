package catalog

import (
	"iter"
	"path"
	"strings"

	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/match"
	"github.com/toolwarden/toolwarden/sdk"
)

// Feeders yields the commands whose output reaches c, transitively through
// pipes, redirections and substitutions (`curl … | tee x | sh` → tee, curl),
// nearest first. The lookup by ID is built once per facts document (see
// index), so walking the feeders of every command stays linear overall, and
// the walk itself allocates nothing for the few feeders a command usually
// has: rules call it for every command of their kind.
func Feeders(f *sdk.Facts, c *sdk.Command) iter.Seq[*sdk.Command] {
	return func(yield func(*sdk.Command) bool) { walkFeeders(f, c, yield) }
}

// FeederList returns Feeders as a slice, for callers that keep them.
func FeederList(f *sdk.Facts, c *sdk.Command) []*sdk.Command {
	var out []*sdk.Command
	walkFeeders(f, c, func(s *sdk.Command) bool {
		out = append(out, s)
		return true
	})
	return out
}

func walkFeeders(f *sdk.Facts, c *sdk.Command, yield func(*sdk.Command) bool) {
	if len(c.StdinSources) == 0 && len(c.ArgSources) == 0 {
		return
	}
	x := indexOf(f)
	var v smallSet[int]
	v.add(c.ID)
	var buf [16]int
	queue := append(append(buf[:0], c.StdinSources...), c.ArgSources...)
	for h := 0; h < len(queue); h++ {
		id := queue[h]
		if !v.add(id) {
			continue
		}
		if s := x.byID(id); s != nil {
			if !yield(s) {
				return
			}
			queue = append(append(queue, s.StdinSources...), s.ArgSources...)
		}
	}
}

// FileSources maps each file that content writes (a `>` redirection, or a
// downloader's output file) to the commands whose output lands in it: the
// writer and everything feeding it. It lets rules follow content through a
// temporary file (`base64 -d > x.sh; bash x.sh`, `curl -o i.sh …; sh i.sh`).
//
// The map is computed once per facts document and shared by every caller:
// it must be treated as read-only.
func FileSources(f *sdk.Facts) map[string][]*sdk.Command {
	x := indexOf(f)
	x.filesOnce.Do(func() { x.files = fileSources(f) })
	return x.files
}

func fileSources(f *sdk.Facts) map[string][]*sdk.Command {
	out := map[string][]*sdk.Command{}
	var files []string
	for i := range f.Commands {
		c := &f.Commands[i]
		files = files[:0]
		for _, r := range c.Redirects {
			if (r.Op == ">" || r.Op == ">>" || r.Op == "&>" || r.Op == ">|") && !r.Dynamic && r.Target != "" && !strings.HasPrefix(r.Target, "&") {
				files = append(files, r.Target)
			}
		}
		files = append(files, downloadTargets(c)...)
		if len(files) == 0 {
			continue
		}
		srcs := append([]*sdk.Command{c}, FeederList(f, c)...)
		for _, p := range files {
			k := match.CleanPath(p)
			out[k] = append(out[k], srcs...)
		}
	}
	return out
}

// downloadTargets returns the files curl or wget save to.
func downloadTargets(c *sdk.Command) []string {
	var out []string
	curl, wget := Is(c, "curl"), Is(c, "wget")
	if !curl && !wget {
		return nil
	}
	outOpt, remoteOpt := byte('o'), byte('O')
	long := "--output"
	if wget {
		outOpt, long = 'O', "--output-document"
	}
	remote := wget // wget saves under the URL's base name by default
	explicit := false
	for i := 0; i < len(c.Args); i++ {
		a := c.Args[i]
		switch {
		case a == long || (len(a) > 1 && a[0] == '-' && a[1] != '-' && a[len(a)-1] == outOpt):
			if i+1 < len(c.Args) && c.Args[i+1] != "-" {
				out = append(out, c.Args[i+1])
			}
			explicit = true
			i++
		case strings.HasPrefix(a, long+"="):
			if v := a[len(long)+1:]; v != "-" {
				out = append(out, v)
			}
			explicit = true
		case wget && strings.HasPrefix(a, "-O") && len(a) > 2:
			if v := a[2:]; v != "-" {
				out = append(out, v)
			}
			explicit = true
		case curl && (a == "--remote-name" || a == "--remote-name-all" || (len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a, remoteOpt) > 0)):
			remote = true
		}
	}
	if remote && !explicit {
		ops, _ := Operands(c)
		for _, o := range ops {
			if strings.Contains(o, "://") {
				u := o
				if i := strings.IndexAny(u, "?#"); i >= 0 {
					u = u[:i]
				}
				if b := path.Base(u); b != "" && b != "/" && !strings.Contains(b, ":") {
					out = append(out, b)
				}
			}
		}
	}
	return out
}

// ExecutedFile returns the script file a command runs, or "": the command
// word itself when it is a path ("./x.sh"), or the script operand of an
// interpreter or of source/. ("bash x.sh", "python3 tool.py").
func ExecutedFile(c *sdk.Command) string {
	if strings.Contains(c.Path, "/") && !strings.HasPrefix(c.Path, "/usr/") && !strings.HasPrefix(c.Path, "/bin/") {
		return match.CleanPath(c.Path)
	}
	for _, n := range Names(c) {
		if IsInterpreter(n) || n == "source" || n == "." {
			for i, a := range c.Args {
				if strings.HasPrefix(a, "-") {
					if a == "-c" || a == "-e" || a == "-m" {
						return "" // inline code or a module, not a file
					}
					continue
				}
				if ArgDynamic(c, i) {
					return ""
				}
				return match.CleanPath(a)
			}
		}
	}
	return ""
}

package python

import "strings"

// Import is one import statement's module reference, for callers that
// resolve imports against files (the staged-file scan): `import a.b` is
// {Module: "a.b"}, `from .m import x, y` is {Module: "m", Level: 1,
// Names: [x y]}.
type Import struct {
	// Module is the dotted module name without leading dots.
	Module string
	// Level is the number of leading dots of a relative import.
	Level int
	// Names are the names imported by `from … import`; "*" for a star.
	Names []string
	Line  int
}

// Imports lists the import statements of src at any nesting (function and
// class bodies, if/try/with blocks), in source order. Content that does not
// parse yields the imports of the statements before the error.
func Imports(src string) (out []Import) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	toks, _ := tokenize(src)
	stmts, _, _ := parseModule(toks, src)
	var walk func([]*stmt)
	walk = func(ss []*stmt) {
		for _, s := range ss {
			if s == nil {
				continue
			}
			switch s.kind {
			case sImport:
				for _, al := range s.names {
					out = append(out, Import{Module: al.name, Line: s.line})
				}
			case sFrom:
				mod := strings.TrimLeft(s.module, ".")
				im := Import{Module: mod, Level: len(s.module) - len(mod), Line: s.line}
				for _, al := range s.names {
					im.Names = append(im.Names, al.name)
				}
				out = append(out, im)
			}
			walk(s.body)
			walk(s.orelse)
			walk(s.final)
			for _, h := range s.handlers {
				walk(h.body)
			}
		}
	}
	walk(stmts)
	return out
}

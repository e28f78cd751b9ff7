package staged

import (
	"github.com/toolwarden/toolwarden/internal/engine/analyze"
)

// Present reports the first workspace path that content (in language)
// runs or loads and that exists in src now, for an executor that has no
// scanner: such content must not run unscanned. Imports of modules the
// workspace does not hold (the standard library) do not count.
func Present(language, content string, src Source) (string, bool) {
	facts, err := analyze.Analyze(language, content, analyze.Options{})
	if err != nil {
		return "", false
	}
	refs := Refs(facts)
	if facts.Language == LangPython {
		base, _ := src.Rel(".")
		refs = append(refs, ImportRefs(content, base, false)...)
	}
	bases, _ := CdBases(facts)
	refs = WithBases(refs, bases)
	for _, r := range refs {
		for _, c := range r.Candidates {
			rel := c
			if !r.Rooted {
				var ok bool
				if rel, ok = src.Rel(c); !ok {
					continue
				}
			}
			if st := src.ReadRel(rel, 0).State; st != StateAbsent && st != StateDir {
				return rel, true
			}
		}
	}
	return "", false
}

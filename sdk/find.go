package sdk

import "strings"

// find(1)'s reach is judged in one way by the host's analyzer and the
// guest's delete rules: what `find START … -delete` and `find START …
// -exec rm -rf {} +` reach.

// FindTargets returns what a find with start paths starts and expression
// expr (the arguments after the starts) reaches with -delete or -exec:
// the starts themselves, or — when one -name/-iname test decides the match
// alone and no start is wide (FindStartIsWide) — each start's entries of
// that name, START/PATTERN (`find /tmp -name 'build-*' -delete` deletes
// /tmp/build-*, not /tmp). dynamic reports whether expr[i] is not static;
// a dynamic pattern keeps the starts.
func FindTargets(starts, expr []string, dynamic func(i int) bool) []string {
	pat, ok := findNameFilter(expr, dynamic)
	if !ok {
		return starts
	}
	out := make([]string, 0, len(starts))
	for _, st := range starts {
		if FindStartIsWide(st) {
			return starts
		}
		out = append(out, strings.TrimSuffix(st, "/")+"/"+pat)
	}
	return out
}

// findNameFilter returns the pattern of the one -name/-iname test of a
// find expression when it decides the match alone: no -o/-or, -not/!,
// parentheses or ',' (which could widen it), a static pattern without '/'.
func findNameFilter(expr []string, dynamic func(i int) bool) (string, bool) {
	pat, n := "", 0
	for i := 0; i < len(expr); i++ {
		switch expr[i] {
		case "-o", "-or", "-not", "!", "(", ")", `\(`, `\)`, ",":
			return "", false
		case "-name", "-iname":
			if i+1 >= len(expr) || (dynamic != nil && dynamic(i+1)) || expr[i+1] == "" || strings.Contains(expr[i+1], "/") ||
				strings.ContainsAny(expr[i+1], "$`") {
				return "", false
			}
			pat = expr[i+1]
			if expr[i] == "-iname" {
				pat = strings.ToLower(pat)
			}
			n++
			i++
		case "-exec", "-execdir", "-ok", "-okdir":
			// the command's words are not tests
			for i+1 < len(expr) && expr[i+1] != ";" && expr[i+1] != "+" {
				i++
			}
		}
	}
	return pat, n == 1
}

// FindStartIsWide reports whether a find start reaches so much that
// entries of any name under it may be protected ones — the root, /home,
// /root and home directories, whose denied paths lie at any depth — or is
// not static. A name filter does not narrow such a start.
func FindStartIsWide(st string) bool {
	if strings.ContainsAny(st, "$`") {
		return true
	}
	p := NormalizePath(st)
	switch p {
	case "", "/", "~", "/home", "/root", AssumedHome:
		return true
	}
	return strings.HasPrefix(p, "~") && !strings.Contains(p, "/") || strings.HasPrefix(p, "/home/") && strings.Count(p, "/") == 2
}

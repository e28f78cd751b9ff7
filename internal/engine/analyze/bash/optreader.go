package bash

import "strings"

// The option reader: one reading of a command's arguments by a table of
// the options that take values, for every handler that must skip an
// option's value (so it is never taken for an operand or an inner
// command) or read it (a directory, a spec, a destination). Two option
// syntaxes are known: getopt's, where "-abV" is a cluster of short
// letters ending in an option with its value attached and "--long=V" or
// "--long V" a long option; and whole words (Go's flag package,
// unsquashfs, unar), where "-name" is one option and "-name=V" attaches
// its value. optWord reads a single option name the same way for the
// tables that name options one by one.

// dynPolicy is how an optReader takes a word whose text is not known
// statically and that starts with '-'.
type dynPolicy uint8

const (
	// dynLiteral reads the word by its known text, as any other.
	dynLiteral dynPolicy = iota
	// dynFlag takes the word as one option that takes no value.
	dynFlag
	// dynOperand takes the word as an operand.
	dynOperand
)

// optTable names the options of one command that take values.
type optTable struct {
	// short are the short option letters that take one value (-p V, -pV,
	// -abp V in a cluster).
	short string
	// long maps the long options that take values to how many words they
	// take (--bind SRC DEST is 2); "--opt=V" is always one word.
	long map[string]int
	// words: options are whole words, never clusters, and a single-dash
	// option is looked up in long as a long one is.
	words bool
	// dyn is how a dynamic word starting with '-' is read.
	dyn dynPolicy
}

// vals builds an optTable's long map of one-value options.
func vals(names ...string) map[string]int {
	m := make(map[string]int, len(names))
	for _, n := range names {
		m[n] = 1
	}
	return m
}

// optItem is one step of an optReader: an option (one letter of a short
// cluster is one option), an operand, or the end of options "--".
type optItem struct {
	// word is the argument the item was read from, idx its index.
	word field
	idx  int
	// name is the option ("-C", "--chdir", "-dest"); "" for an operand
	// and for "--".
	name string
	// end is set for the word "--".
	end bool
	// val is the option's value when hasVal: attached ("--x=V", "-xV")
	// when attached, else the first word the option took.
	val      field
	hasVal   bool
	attached bool
}

// operand reports whether the item is an operand.
func (it optItem) operand() bool { return it.name == "" && !it.end }

// optReader reads arguments by an optTable, an item at a time.
type optReader struct {
	t    *optTable
	args []field
	// i is the index of the word being read, j the next letter of a short
	// cluster in it (0 when not inside one).
	i, j int
}

// read returns a reader of args by the table.
func (t *optTable) read(args []field) optReader {
	return optReader{t: t, args: args}
}

// pos is the index of the first word not yet read (past the end when an
// option's values ran past the last word).
func (r *optReader) pos() int { return r.i }

// next reads the next item; false when the words are all read.
func (r *optReader) next() (optItem, bool) {
	if r.i >= len(r.args) {
		return optItem{}, false
	}
	w := r.args[r.i]
	it := optItem{word: w, idx: r.i}
	if r.j > 0 {
		return r.letter(it), true
	}
	switch {
	case w.s == "--":
		it.end = true
		r.i++
		return it, true
	case !strings.HasPrefix(w.s, "-") || w.s == "-",
		w.dyn && r.t.dyn == dynOperand:
		r.i++
		return it, true
	case w.dyn && r.t.dyn == dynFlag:
		it.name = w.s
		r.i++
		return it, true
	case r.t.words || strings.HasPrefix(w.s, "--"):
		opt, val, eq := strings.Cut(w.s, "=")
		it.name = opt
		r.i++
		if eq {
			it.val, it.hasVal, it.attached = field{s: val, dyn: w.dyn}, true, true
			return it, true
		}
		if n := r.t.long[opt]; n > 0 {
			if r.i < len(r.args) {
				it.val, it.hasVal = r.args[r.i], true
			}
			r.i += n
		}
		return it, true
	}
	r.j = 1
	return r.letter(it), true
}

// letter reads the short option at r.j of the cluster r.args[r.i].
func (r *optReader) letter(it optItem) optItem {
	w := it.word
	ch := w.s[r.j]
	it.name = "-" + w.s[r.j:r.j+1]
	r.j++
	if strings.IndexByte(r.t.short, ch) >= 0 {
		if r.j < len(w.s) {
			it.val, it.hasVal, it.attached = field{s: w.s[r.j:], dyn: w.dyn}, true, true
		} else if r.i+1 < len(r.args) {
			it.val, it.hasVal = r.args[r.i+1], true
			r.i++
		}
		r.i, r.j = r.i+1, 0
		return it
	}
	if r.j >= len(w.s) {
		r.i, r.j = r.i+1, 0
	}
	return it
}

// skipOpts returns the index of the first operand of args after the
// options t reads (a "--" ends them), plus extra operands that precede a
// command (a duration, a new root); -1 when an option of noRun is given
// (with it no command runs).
func skipOpts(args []field, t *optTable, noRun []string, extra int) int {
	r := t.read(args)
	for {
		it, ok := r.next()
		switch {
		case !ok || it.end:
			return r.pos() + extra
		case it.operand():
			return it.idx + extra
		case contains(noRun, it.name):
			return -1
		}
	}
}

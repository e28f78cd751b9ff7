package python

import (
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"compress/zlib"
	"encoding/ascii85"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/toolwarden/toolwarden/sdk"
)

// sym is what the analyzer knows about a value: a folded constant, a
// module or function by qualified name, an instance of a known class, or
// an unknown value with the taint it carries (environment variables, file
// contents, downloads, os.walk roots).
type sym struct {
	kind  string // sdk.Value kinds, plus "code" for compile() results
	s     string
	num   float64
	items []*sym
	keys  []*sym
	qual  string // module/function/class this value names
	inst  string // class of an instance ("socket.socket", "pathlib.Path", "file")
	src   string
	recv  *sym // receiver of a bound method
	path  *sym // path of a Path/file instance, URL of a request

	// data flow
	decoders []string
	env      []string // environment variables whose values flow here
	netIdx   []int    // NetworkUse facts of this connection
	fromFile string   // path whose contents this value carries
	walkRoot *sym     // os.walk/glob root this entry comes from
	prefix   string   // constant head of a partly dynamic string
	suffix   string   // constant tail of a partly dynamic string
	localFn  string   // a function defined in this content
	el       *sym     // what iterating over this value yields
	// boundKws are keyword arguments bound by functools.partial: calling
	// this value passes them unless the call names them itself.
	boundKws map[string]*sym
	// boundArgs are positional arguments bound by functools.partial:
	// calling this value passes them before its own.
	boundArgs []*sym
	// alts are the values this one may be (both branches of an if, the
	// elements of a list being iterated, either side of a conditional
	// expression): a call given it is analyzed once per alternative.
	alts []*sym

	cnst     bool
	encoded  bool
	chr      bool
	indirect bool
	upload   bool
	sock     bool // a socket (or its fileno)
	download bool
	glob     bool
	// envKey marks the name of an environment variable taken from the
	// environment itself (iterating os.environ or its keys): reading the
	// variable it names reads the whole environment, one value at a time.
	envKey bool
	// dlPath marks the path of a file holding downloaded bytes whose name
	// the analysis cannot know (urlretrieve's temporary file).
	dlPath bool
	// exc marks an exception instance; excArgs are the arguments it was
	// raised with (its .args, what str() of it shows).
	exc     bool
	excArgs []*sym
}

func (v *sym) elem() *sym { return v.el }

// maxAlts bounds the alternatives one value carries; past it the value is
// an unknown carrying their taint, as before alternatives were tracked.
const maxAlts = 8

// altsOf returns a value that may be any of vs: the one value when they
// are all the same, else a value whose alternatives are vs (nested
// alternatives flattened, duplicates dropped) and which carries the taint
// of each.
func altsOf(vs ...*sym) *sym {
	var out []*sym
	add := func(v *sym) {
		for _, o := range out {
			if o == v || (o.isStr() && v.isStr() && o.kind == v.kind && o.s == v.s) {
				return
			}
		}
		out = append(out, v)
	}
	for _, v := range vs {
		if v == nil {
			continue
		}
		if len(v.alts) > 0 {
			for _, x := range v.alts {
				add(x)
			}
			continue
		}
		add(v)
	}
	switch {
	case len(out) == 0:
		return &sym{kind: "expr"}
	case len(out) == 1:
		return out[0]
	case len(out) > maxAlts:
		return (&sym{kind: "expr"}).taint(out...)
	}
	return (&sym{kind: "expr", alts: out}).taint(out...)
}

// altList returns v's alternatives, or v alone.
func altList(v *sym) []*sym {
	if len(v.alts) > 0 {
		return v.alts
	}
	return []*sym{v}
}

// maxConst and maxItems bound folded strings and sequences, so content
// that doubles a string in every statement cannot exhaust memory; larger
// values are treated as unknown.
const (
	maxConst = 1 << 20
	maxItems = 4096
	// maxValueStr caps a Value's text in the facts (like DynamicExec.Content).
	maxValueStr = 4096
	// maxValueItems caps the elements listed for one Value.
	maxValueItems = 64
)

func strSym(s string) *sym { return &sym{kind: "str", cnst: true, s: s} }

func intSym(n int64) *sym {
	return &sym{kind: "int", cnst: true, s: strconv.FormatInt(n, 10), num: float64(n)}
}

func floatSym(f float64) *sym {
	return &sym{kind: "float", cnst: true, s: strconv.FormatFloat(f, 'g', -1, 64), num: f}
}

func (v *sym) isStr() bool { return v != nil && v.cnst && (v.kind == "str" || v.kind == "bytes") }

func (v *sym) isNum() bool {
	return v != nil && v.cnst && (v.kind == "int" || v.kind == "float" || v.kind == "bool")
}

func (v *sym) isSeq() bool { return v != nil && v.cnst && (v.kind == "list" || v.kind == "tuple") }

// strVal returns the constant text of a str, bytes or number.
func (v *sym) strVal() (string, bool) {
	if v == nil || !v.cnst {
		return "", false
	}
	switch v.kind {
	case "str", "bytes", "int", "float":
		return v.s, true
	}
	return "", false
}

// truthy reports whether a constant is true, and whether that is known.
func (v *sym) truthy() (bool, bool) {
	if v == nil || !v.cnst {
		return false, false
	}
	switch v.kind {
	case "str", "bytes":
		return v.s != "", true
	case "int", "float", "bool":
		return v.num != 0, true
	case "none":
		return false, true
	case "list", "tuple", "dict":
		return len(v.items) > 0, true
	}
	return false, false
}

// taint copies the data-flow marks of the operands onto v.
func (v *sym) taint(from ...*sym) *sym {
	for _, f := range from {
		if f == nil {
			continue
		}
		if len(f.env) > 0 {
			v.env = mergeNames(v.env, f.env)
		}
		if f.download {
			v.download = true
		}
		if f.fromFile != "" && v.fromFile == "" {
			v.fromFile = f.fromFile
		}
		if f.walkRoot != nil && v.walkRoot == nil {
			v.walkRoot = f.walkRoot
		}
		if f.encoded {
			v.encoded = true
			v.decoders = appendDecoders(v.decoders, f.decoders)
		}
		if f.chr {
			v.chr = true
		}
		if f.sock {
			v.sock = true
			v.netIdx = append(v.netIdx, f.netIdx...)
		}
		if f.glob {
			v.glob = true
		}
	}
	return v
}

func mergeNames(a, b []string) []string {
	for _, n := range b {
		found := false
		for _, m := range a {
			if m == n {
				found = true
				break
			}
		}
		if !found {
			a = append(a, n)
		}
	}
	return a
}

func appendDecoders(a, b []string) []string {
	for _, d := range b {
		if len(a) == 0 || a[len(a)-1] != d {
			a = append(a, d)
		}
	}
	return a
}

// decoded marks v as produced by decoder name.
func (v *sym) decoded(name string) *sym {
	v.encoded = true
	v.decoders = appendDecoders(v.decoders, []string{name})
	return v
}

// toValue converts a sym to the wire form.
func (v *sym) toValue() sdk.Value {
	if v == nil {
		return sdk.Value{Kind: "expr"}
	}
	val := sdk.Value{Kind: v.kind, Const: v.cnst, Encoded: v.encoded}
	switch {
	case v.inst == "pathlib.Path" && v.path != nil:
		val.Kind = "str"
		val.Const = v.path.cnst
		val.Str = v.path.s
		if !v.path.cnst {
			val.Str = v.src
		}
		return val
	case v.qual != "" || v.inst != "":
		val.Kind = "name"
		val.Const = false
		val.Str = v.src
		return val
	}
	switch v.kind {
	case "list", "tuple":
		// elements are listed even when some are not constant; each
		// says whether it is
		if len(v.items) > 0 {
			n := len(v.items)
			if n > maxValueItems {
				n = maxValueItems
			}
			val.Items = make([]sdk.Value, n)
			for i, it := range v.items[:n] {
				val.Items[i] = it.toValue()
			}
		}
		val.Str = v.src
		return val
	case "dict":
		val.Str = v.src
		return val
	case "code":
		val.Kind = "call"
		val.Const = false
		val.Str = v.src
		return val
	case "none":
		val.Str = "None"
		return val
	case "bool":
		if v.num != 0 {
			val.Str = "True"
		} else {
			val.Str = "False"
		}
		return val
	}
	if v.cnst {
		val.Str = v.s
		if len(val.Str) > maxValueStr {
			val.Str = val.Str[:maxValueStr]
		}
	} else {
		val.Str = v.src
		if val.Kind == "" {
			val.Kind = "expr"
		}
	}
	return val
}

// ---- folding ----

func binop(op string, a, b *sym) *sym {
	r := &sym{kind: "expr"}
	if op == "|" && a.kind == "dict" && b.kind == "dict" && len(a.keys)+len(b.keys) <= maxItems {
		// d1 | d2: the merged mapping, d2's values winning
		m := &sym{kind: "dict"}
		m.keys = append(append(m.keys, a.keys...), b.keys...)
		m.items = append(append(m.items, a.items...), b.items...)
		return m.taint(a, b)
	}
	if a.cnst && b.cnst {
		switch {
		case (a.kind == "str" || a.kind == "bytes") && a.kind == b.kind && op == "+" && len(a.s)+len(b.s) <= maxConst:
			r = &sym{kind: a.kind, cnst: true, s: a.s + b.s}
		case a.isStr() && b.kind == "int" && op == "*":
			r = &sym{kind: a.kind, cnst: true, s: strings.Repeat(a.s, clampRepeat(b.num, len(a.s)))}
		case a.kind == "int" && b.isStr() && op == "*":
			r = &sym{kind: b.kind, cnst: true, s: strings.Repeat(b.s, clampRepeat(a.num, len(b.s)))}
		case a.isSeq() && b.isSeq() && op == "+" && len(a.items)+len(b.items) <= maxItems:
			r = &sym{kind: a.kind, cnst: true, items: append(append([]*sym{}, a.items...), b.items...)}
		case a.isSeq() && b.kind == "int" && op == "*":
			n := clampRepeat(b.num, len(a.items))
			r = &sym{kind: a.kind, cnst: true}
			for i := 0; i < n; i++ {
				r.items = append(r.items, a.items...)
			}
		case a.isStr() && a.kind == "str" && op == "%":
			if s, ok := percentFormat(a.s, b); ok {
				r = strSym(s)
				if percentChars(a.s) {
					// `'%c%c' % (105, 100)` builds text from character
					// codes, like ''.join(chr(…)).
					r.decoded("chr")
				}
			}
			if !r.cnst {
				r.prefix, r.suffix = percentEnds(a.s)
			}
		case a.isNum() && b.isNum():
			if n, ok := arith(op, a, b); ok {
				r = n
			}
		}
	}
	if !r.cnst && op == "%" && a.isStr() && a.kind == "str" && !b.cnst {
		r.prefix, r.suffix = percentEnds(a.s)
	}
	if !r.cnst {
		// keep the constant head and tail of concatenations
		if op == "+" {
			r.prefix = headOf(a)
			r.suffix = tailOf(b)
		}
		if op == "/" && a.inst == "pathlib.Path" {
			return pathJoin(a, b)
		}
	}
	return r.taint(a, b)
}

// percentEnds returns the text before the first and after the last
// %-conversion of a format string.
func percentEnds(f string) (string, string) {
	i := strings.IndexByte(f, '%')
	if i < 0 {
		return f, ""
	}
	j := strings.LastIndexByte(f, '%')
	k := j + 1
	for k < len(f) && strings.IndexByte("-+ #0123456789.", f[k]) >= 0 {
		k++
	}
	if k < len(f) {
		k++
	}
	return f[:i], f[k:]
}

func headOf(v *sym) string {
	if v.isStr() {
		return v.s
	}
	return v.prefix
}

func tailOf(v *sym) string {
	if v.isStr() {
		return v.s
	}
	return v.suffix
}

func clampRepeat(n float64, unit int) int {
	if n <= 0 {
		return 0
	}
	if unit == 0 {
		return 0
	}
	max := (1 << 16) / unit
	if n > float64(max) {
		return max
	}
	if unit*int(n) > maxConst {
		return maxConst / unit
	}
	return int(n)
}

func arith(op string, a, b *sym) (*sym, bool) {
	x, y := a.num, b.num
	bothInt := (a.kind == "int" || a.kind == "bool") && (b.kind == "int" || b.kind == "bool")
	var r float64
	switch op {
	case "+":
		r = x + y
	case "-":
		r = x - y
	case "*":
		r = x * y
	case "/":
		if y == 0 {
			return nil, false
		}
		return floatSym(x / y), true
	case "//":
		if y == 0 {
			return nil, false
		}
		r = math.Floor(x / y)
	case "%":
		if y == 0 {
			return nil, false
		}
		r = x - y*math.Floor(x/y)
	case "**":
		if y > 64 {
			return nil, false
		}
		r = math.Pow(x, y)
		if y < 0 {
			bothInt = false
		}
	case "<<":
		if !bothInt || y < 0 || y > 62 {
			return nil, false
		}
		r = float64(int64(x) << uint(y))
	case ">>":
		if !bothInt || y < 0 {
			return nil, false
		}
		r = float64(int64(x) >> uint(y))
	case "|", "&", "^":
		if !bothInt {
			return nil, false
		}
		xi, yi := int64(x), int64(y)
		switch op {
		case "|":
			r = float64(xi | yi)
		case "&":
			r = float64(xi & yi)
		default:
			r = float64(xi ^ yi)
		}
	default:
		return nil, false
	}
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return nil, false
	}
	if bothInt && math.Abs(r) < 1<<53 {
		return intSym(int64(r)), true
	}
	return floatSym(r), true
}

// percentFormat applies old-style % formatting with %s/%d/%r/%c/%%.
func percentFormat(f string, arg *sym) (string, bool) {
	var args []*sym
	if arg.kind == "tuple" {
		args = arg.items
	} else {
		args = []*sym{arg}
	}
	var b strings.Builder
	k := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		i++
		if i >= len(f) {
			return "", false
		}
		if f[i] == '%' {
			b.WriteByte('%')
			continue
		}
		for i < len(f) && strings.IndexByte("-+ #0123456789.", f[i]) >= 0 {
			i++
		}
		if i >= len(f) || k >= len(args) {
			return "", false
		}
		if f[i] == 'c' {
			v := args[k]
			if v == nil || !v.cnst || v.kind != "int" || v.num < 0 || v.num > 0x10FFFF {
				if v != nil && v.cnst && v.kind == "str" && len([]rune(v.s)) == 1 {
					b.WriteString(v.s)
					k++
					continue
				}
				return "", false
			}
			b.WriteRune(rune(int(v.num)))
			k++
			continue
		}
		s, ok := formatArg(args[k], f[i] == 'r')
		if !ok {
			return "", false
		}
		b.WriteString(s)
		k++
		if b.Len() > maxConst {
			return "", false
		}
	}
	return b.String(), k == len(args)
}

// percentChars reports whether an old-style format has a %c conversion.
func percentChars(f string) bool {
	for i := 0; i+1 < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		j := i + 1
		if f[j] == '%' {
			i = j
			continue
		}
		for j < len(f) && strings.IndexByte("-+ #0123456789.", f[j]) >= 0 {
			j++
		}
		if j < len(f) && f[j] == 'c' {
			return true
		}
		i = j
	}
	return false
}

func formatArg(v *sym, repr bool) (string, bool) {
	if v == nil || !v.cnst {
		return "", false
	}
	switch v.kind {
	case "str":
		if repr {
			return "'" + v.s + "'", true
		}
		return v.s, true
	case "int", "float":
		return v.s, true
	case "bool", "none":
		return v.toValue().Str, true
	}
	return "", false
}

// strFormat applies str.format with positional and keyword arguments.
func strFormat(f string, args []*sym, kws map[string]*sym) (string, bool) {
	var b strings.Builder
	auto := 0
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c == '{' {
			if i+1 < len(f) && f[i+1] == '{' {
				b.WriteByte('{')
				i++
				continue
			}
			j := strings.IndexByte(f[i:], '}')
			if j < 0 {
				return "", false
			}
			field := f[i+1 : i+j]
			i += j
			if k := strings.IndexAny(field, "!:"); k >= 0 {
				field = field[:k]
			}
			var v *sym
			if field == "" {
				if auto >= len(args) {
					return "", false
				}
				v = args[auto]
				auto++
			} else if n, err := strconv.Atoi(field); err == nil {
				if n >= len(args) {
					return "", false
				}
				v = args[n]
			} else {
				v = kws[field]
			}
			s, ok := formatArg(v, false)
			if !ok {
				return "", false
			}
			b.WriteString(s)
			if b.Len() > maxConst {
				return "", false
			}
			continue
		}
		if c == '}' && i+1 < len(f) && f[i+1] == '}' {
			i++
		}
		b.WriteByte(c)
	}
	return b.String(), true
}

// index folds v[i] for constant sequences, strings and dicts.
func index(v, i *sym) *sym {
	if v.cnst && i.cnst {
		switch {
		case (v.kind == "str" || v.kind == "bytes") && i.kind == "int":
			rs := []rune(v.s)
			n := int(i.num)
			if v.kind == "bytes" {
				if n < 0 {
					n += len(v.s)
				}
				if n >= 0 && n < len(v.s) {
					return intSym(int64(v.s[n])).taint(v)
				}
				break
			}
			if n < 0 {
				n += len(rs)
			}
			if n >= 0 && n < len(rs) {
				return (&sym{kind: "str", cnst: true, s: string(rs[n])}).taint(v)
			}
		case v.isSeq() && i.kind == "int":
			n := int(i.num)
			if n < 0 {
				n += len(v.items)
			}
			if n >= 0 && n < len(v.items) {
				return v.items[n]
			}
		case v.kind == "dict":
			// a key given twice ({**base, **extra}) has its last value
			for k := len(v.keys) - 1; k >= 0; k-- {
				if key := v.keys[k]; key != nil && key.cnst && key.kind == i.kind && key.s == i.s {
					return v.items[k]
				}
			}
		}
	}
	if (v.kind == "list" || v.kind == "tuple") && !v.cnst && i.cnst && i.kind == "int" {
		n := int(i.num)
		if n < 0 {
			n += len(v.items)
		}
		if n >= 0 && n < len(v.items) {
			return v.items[n]
		}
	}
	if v.kind == "dict" && !v.cnst && i.cnst {
		for k := len(v.keys) - 1; k >= 0; k-- {
			if key := v.keys[k]; key != nil && key.cnst && key.s == i.s {
				return v.items[k]
			}
		}
	}
	return (&sym{kind: "expr"}).taint(v)
}

// slice folds v[lo:hi:step].
func slice(v, lo, hi, step *sym) *sym {
	get := func(x *sym, def int) (int, bool) {
		if x == nil || (x.cnst && x.kind == "none") {
			return def, true
		}
		if x.cnst && x.kind == "int" {
			return int(x.num), true
		}
		return 0, false
	}
	st, ok := get(step, 1)
	if !ok || st == 0 || !v.cnst {
		r := &sym{kind: "expr"}
		if v.prefix != "" && step == nil && lo == nil {
			r.prefix = v.prefix
		}
		return r.taint(v)
	}
	var n int
	var rs []rune
	switch {
	case v.kind == "str":
		rs = []rune(v.s)
		n = len(rs)
	case v.kind == "bytes":
		n = len(v.s)
	case v.isSeq():
		n = len(v.items)
	default:
		return (&sym{kind: "expr"}).taint(v)
	}
	var defLo, defHi int
	if st > 0 {
		defLo, defHi = 0, n
	} else {
		defLo, defHi = n-1, -n-1
	}
	a, ok1 := get(lo, defLo)
	b, ok2 := get(hi, defHi)
	if !ok1 || !ok2 {
		return (&sym{kind: "expr"}).taint(v)
	}
	norm := func(x int, neg bool) int {
		if x < 0 {
			x += n
			if x < 0 {
				if neg {
					return -1
				}
				return 0
			}
		}
		if x > n {
			if neg {
				return n - 1
			}
			return n
		}
		if neg && x >= n {
			return n - 1
		}
		return x
	}
	var idx []int
	if st > 0 {
		a, b = norm(a, false), norm(b, false)
		for i := a; i < b; i += st {
			idx = append(idx, i)
		}
	} else {
		if lo != nil && !(lo.cnst && lo.kind == "none") {
			a = norm(a, true)
		}
		if hi != nil && !(hi.cnst && hi.kind == "none") {
			b = norm(b, true)
		} else {
			b = -1
		}
		for i := a; i > b && i >= 0; i += st {
			idx = append(idx, i)
		}
	}
	r := &sym{kind: v.kind, cnst: true}
	switch {
	case v.kind == "str":
		out := make([]rune, len(idx))
		for k, i := range idx {
			out[k] = rs[i]
		}
		r.s = string(out)
	case v.kind == "bytes":
		out := make([]byte, len(idx))
		for k, i := range idx {
			out[k] = v.s[i]
		}
		r.s = string(out)
	default:
		for _, i := range idx {
			r.items = append(r.items, v.items[i])
		}
	}
	r.taint(v)
	if st < 0 {
		r.decoded("rev")
	} else if st > 1 {
		r.decoded("slice")
	}
	return r
}

// ---- decoders ----

func b64decode(s string, urlsafe bool) (string, bool) {
	s = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
			return -1
		}
		return r
	}, s)
	if urlsafe {
		s = strings.NewReplacer("-", "+", "_", "/").Replace(s)
	}
	s = strings.TrimRight(s, "=")
	out, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil {
		return "", false
	}
	return string(out), true
}

func b32decode(s string) (string, bool) {
	out, err := base32.StdEncoding.DecodeString(strings.ToUpper(strings.TrimSpace(s)))
	if err != nil {
		out, err = base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.TrimRight(strings.ToUpper(s), "="))
		if err != nil {
			return "", false
		}
	}
	return string(out), true
}

func hexdecode(s string) (string, bool) {
	s = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\t' {
			return -1
		}
		return r
	}, s)
	out, err := hex.DecodeString(s)
	if err != nil {
		return "", false
	}
	return string(out), true
}

func a85decode(s string) (string, bool) {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "<~"), "~>")
	out := make([]byte, len(s)*4/5+8)
	n, _, err := ascii85.Decode(out, []byte(s), true)
	if err != nil {
		return "", false
	}
	return string(out[:n]), true
}

const maxInflate = 1 << 20

func inflate(s string, kind string) (string, bool) {
	var r io.Reader
	var err error
	switch kind {
	case "zlib":
		r, err = zlib.NewReader(strings.NewReader(s))
	case "gzip":
		r, err = gzip.NewReader(strings.NewReader(s))
	case "bz2":
		r = bzip2.NewReader(strings.NewReader(s))
	}
	if err != nil {
		return "", false
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(r, maxInflate)); err != nil && buf.Len() == 0 {
		return "", false
	}
	return buf.String(), true
}

func rot13(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return 'a' + (r-'a'+13)%26
		case r >= 'A' && r <= 'Z':
			return 'A' + (r-'A'+13)%26
		}
		return r
	}, s)
}

// shellQuote joins argv into a shell command line.
func shellQuote(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quoteWord(a))
	}
	return b.String()
}

func quoteWord(a string) string {
	if a == "" {
		return "''"
	}
	safe := true
	for i := 0; i < len(a); i++ {
		c := a[i]
		if !(isIdentByte(c) || strings.IndexByte("-./,:=@%+^", c) >= 0) {
			safe = false
			break
		}
	}
	if safe {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

// fromText returns r, a str() result, folded to t when t is a constant
// string (the text a __str__ returned, an exception's one argument).
func (r *sym) fromText(t *sym) *sym {
	if t != nil && t.isStr() {
		r.cnst, r.s = true, t.s
	}
	return r
}

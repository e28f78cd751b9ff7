// Package layoutgen generates ABI v2's binary layout code and documentation
// from one description: the Go types of package sdk, walked by reflection.
// The host writer, the guest reader and the layout tables of sdk/ABI.md are
// all printed from the same walk, so a field is declared once (in facts.go,
// abi.go or report.go) and can never be written one way and read another.
//
// Run `go generate ./...` in sdk after changing a wire type; a test in sdk
// fails while the checked-in output is stale.
package layoutgen

import (
	"bytes"
	"fmt"
	"go/format"
	"hash/fnv"
	"reflect"
	"sort"
	"strings"

	"github.com/toolwarden/toolwarden/sdk"
)

// kind is how one Go field is laid out in a record.
type kind int

const (
	kString    kind = iota // 2 words: offset, length in the string blob
	kBool                  // 1 word: 0 or 1
	kInt                   // 1 word: int32
	kInt64                 // 2 words: low, high
	kFloat                 // 2 words: IEEE-754 bits, low, high
	kIntPtr                // 2 words: present, int32 value
	kStrings               // 2 words: first index, count in table String
	kInts                  // 2 words: first index, count in table Int
	kStructs               // 2 words: first index, count in the element's table
	kStructMap             // 2 words: first index, count in the map's entry table (sorted by key)
	kJSONMap               // 2 words: offset, length of the map's JSON in the string blob (length 0: nil)
	kInline                // the struct's fields, in place
	kStructPtr             // 1 word present, then the struct's fields in place
)

var kindWords = map[kind]int{kString: 2, kBool: 1, kInt: 1, kInt64: 2, kFloat: 2, kIntPtr: 2, kStrings: 2,
	kInts: 2, kStructs: 2, kStructMap: 2, kJSONMap: 2, kStructPtr: 1}

var kindDoc = map[kind]string{kString: "string (offset, length)", kBool: "bool", kInt: "int32",
	kInt64: "int64 (low, high)", kFloat: "float64 bits (low, high)", kIntPtr: "optional int32 (present, value)",
	kStrings: "[]string (first, count) in String", kInts: "[]int32 (first, count) in Int",
	kJSONMap: "JSON object (offset, length; 0 = none)", kStructPtr: "present flag"}

// field is one laid-out Go field; inline structs are flattened into their
// parent's record with a dotted path.
type field struct {
	path  string // Go expression below the record, e.g. "Pos.Line"
	doc   string // dotted JSON path for the docs, e.g. "pos.line"
	kind  kind
	word  int    // first word in the record
	table string // element table for kStructs / kStructMap
	elem  reflect.Type
	sel   string // selection hook: "" or the fact kind / content / context
	sub   []field
}

// table is one array of fixed-size records.
type table struct {
	name   string
	typ    reflect.Type // nil for String, Int
	key    bool         // entry table of a map: word 0–1 is the key
	fields []field
	words  int
}

// schema is the layout of one root type.
type schema struct {
	prefix string // identifier prefix of the generated code: "input", "output"
	root   reflect.Type
	tables []*table
	byName map[string]*table
}

func newSchema(prefix string, root reflect.Type) *schema {
	s := &schema{prefix: prefix, root: root, byName: map[string]*table{}}
	s.add(&table{name: root.Name(), typ: root})
	s.add(&table{name: "String", words: 2})
	s.add(&table{name: "Int", words: 1})
	for i := 0; i < len(s.tables); i++ {
		t := s.tables[i]
		if t.typ == nil {
			continue
		}
		w := 0
		if t.key {
			w = 2
		}
		t.fields, t.words = s.walk(t.typ, "", "", w, t.name == "Facts" || root.Name() == "ScanInput" && t.name == root.Name())
	}
	return s
}

func (s *schema) add(t *table) *table {
	if old, ok := s.byName[t.name]; ok {
		return old
	}
	s.tables = append(s.tables, t)
	s.byName[t.name] = t
	return t
}

func jsonName(f reflect.StructField) string {
	n, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if n == "" {
		n = f.Name
	}
	return n
}

// walk lays out the fields of struct type t from word w.
func (s *schema) walk(t reflect.Type, path, doc string, w int, selectable bool) ([]field, int) {
	var out []field
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.Tag.Get("layout") == "-" {
			continue
		}
		f := field{path: path + sf.Name, doc: doc + jsonName(sf), word: w}
		ft := sf.Type
		switch {
		case ft.Kind() == reflect.String:
			f.kind = kString
		case ft.Kind() == reflect.Bool:
			f.kind = kBool
		case ft.Kind() == reflect.Int:
			f.kind = kInt
		case ft.Kind() == reflect.Int64:
			f.kind = kInt64
		case ft.Kind() == reflect.Float64:
			f.kind = kFloat
		case ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Int:
			f.kind = kIntPtr
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.String:
			f.kind = kStrings
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Int:
			f.kind = kInts
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			f.kind, f.elem = kStructs, ft.Elem()
			f.table = s.add(&table{name: ft.Elem().Name(), typ: ft.Elem()}).name
		case ft.Kind() == reflect.Map && ft.Elem().Kind() == reflect.Struct:
			f.kind, f.elem = kStructMap, ft.Elem()
			f.table = s.add(&table{name: t.Name() + sf.Name + "Entry", typ: ft.Elem(), key: true}).name
		case ft.Kind() == reflect.Map && ft.Elem().Kind() == reflect.Interface:
			f.kind = kJSONMap
		case ft.Kind() == reflect.Struct:
			f.kind = kInline
			f.sub, w = s.walk(ft, f.path+".", f.doc+".", w, false)
			if path == "" && selectable {
				f.sel = sf.Name
			}
			out = append(out, f)
			continue
		case ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct:
			f.kind, f.elem = kStructPtr, ft.Elem()
			f.sub, w = s.walk(ft.Elem(), f.path+".", f.doc+".", w+1, ft.Elem().Name() == "Facts")
			out = append(out, f)
			continue
		default:
			panic(fmt.Sprintf("layoutgen: %s.%s: unsupported type %s", t.Name(), sf.Name, ft))
		}
		if selectable && (f.kind == kStructs || (path == "" && f.kind == kString && sf.Name == "Content")) {
			f.sel = sf.Name
		}
		w += kindWords[f.kind]
		out = append(out, f)
	}
	return out, w
}

// description is the canonical text hashed into the layout's identity.
func (s *schema) description() string {
	var b strings.Builder
	for _, t := range s.tables {
		fmt.Fprintf(&b, "%s/%d:", t.name, t.words)
		walkFields(t.fields, func(f field) { fmt.Fprintf(&b, "%s=%d@%d,", f.doc, f.kind, f.word) })
		b.WriteString(";")
	}
	return b.String()
}

func walkFields(fs []field, fn func(field)) {
	for _, f := range fs {
		fn(f)
		walkFields(f.sub, fn)
	}
}

func (s *schema) hash() uint32 {
	h := fnv.New32a()
	h.Write([]byte(s.description()))
	return h.Sum32()
}

// FactKinds are the JSON names of the Facts slices, the fact kinds a
// plugin may declare interest in, in layout order.
func FactKinds() []string {
	var out []string
	t := reflect.TypeOf(sdk.Facts{})
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Type.Kind() == reflect.Slice {
			out = append(out, jsonName(t.Field(i)))
		}
	}
	return out
}

// Generate returns the Go source of the layout code and the Markdown of
// its documentation.
func Generate() (code, doc []byte, err error) {
	in := newSchema("input", reflect.TypeOf(sdk.ScanInput{}))
	out := newSchema("output", reflect.TypeOf(sdk.ScanOutput{}))
	var g bytes.Buffer
	g.WriteString("// Code generated by sdk/internal/layoutgen from the sdk wire types; DO NOT EDIT.\n\npackage layout\n\n")
	g.WriteString("import (\n\t\"sort\"\n\n\t\"github.com/toolwarden/toolwarden/sdk\"\n)\n\nvar _ = sort.Strings\n\n")
	g.WriteString("// FactKind numbers the Facts slices for Selection (layout order).\ntype FactKind int\n\n// The fact kinds, one per Facts slice.\nconst (\n")
	for i, k := range FactKinds() {
		fmt.Fprintf(&g, "\tFactKind%s FactKind = %d\n", goIdent(k), i)
	}
	g.WriteString(")\n\n// factKindNames are the JSON names of the fact kinds, by FactKind.\nvar factKindNames = [...]string{")
	for _, k := range FactKinds() {
		fmt.Fprintf(&g, "%q, ", k)
	}
	g.WriteString("}\n\n")
	for _, s := range []*schema{in, out} {
		s.genCommon(&g)
		s.genWriter(&g)
		s.genReader(&g)
	}
	code, err = format.Source(g.Bytes())
	if err != nil {
		return g.Bytes(), nil, fmt.Errorf("layoutgen: gofmt generated code: %w", err)
	}
	var d bytes.Buffer
	d.WriteString("<!-- Generated by sdk/internal/layoutgen from the sdk wire types (go generate ./... in sdk); do not edit by hand. -->\n")
	for _, s := range []*schema{in, out} {
		s.genDoc(&d)
	}
	return code, d.Bytes(), nil
}

func goIdent(jsonName string) string {
	var b strings.Builder
	for _, p := range strings.Split(jsonName, "_") {
		b.WriteString(strings.ToUpper(p[:1]) + p[1:])
	}
	return b.String()
}

func (s *schema) tconst(name string) string { return s.prefix + "T" + name }

func (s *schema) genCommon(g *bytes.Buffer) {
	fmt.Fprintf(g, "// %sLayoutHash identifies the %s layout: writer and reader must agree on it.\nconst %sLayoutHash = 0x%08x\n\n", s.prefix, s.root.Name(), s.prefix, s.hash())
	g.WriteString("const (\n")
	for i, t := range s.tables {
		fmt.Fprintf(g, "\t%s = %d\n", s.tconst(t.name), i)
	}
	g.WriteString(")\n\n")
	fmt.Fprintf(g, "// %sTableWords are the record sizes, in 32-bit words, by table.\nvar %sTableWords = []int{", s.prefix, s.prefix)
	for _, t := range s.tables {
		fmt.Fprintf(g, "%d, ", t.words)
	}
	g.WriteString("}\n\n")
}

// genWriter prints put<Table>(j, x) for every struct table.
func (s *schema) genWriter(g *bytes.Buffer) {
	root := s.tables[0]
	fmt.Fprintf(g, "// append%sLayout appends the layout of x to dst.\nfunc (w *layoutWriter) append%sLayout(dst []byte, x *sdk.%s) ([]byte, error) {\n", title(s.prefix), title(s.prefix), root.name)
	fmt.Fprintf(g, "\tw.reset(%sTableWords)\n\tw.reserve(%s, 1)\n\tw.%sPut%s(0, x)\n\treturn w.finish(dst, %sLayoutHash)\n}\n\n", s.prefix, s.tconst(root.name), s.prefix, root.name, s.prefix)
	for _, t := range s.tables {
		if t.typ == nil {
			continue
		}
		if t.key {
			fmt.Fprintf(g, "func (w *layoutWriter) %sPut%s(j int, k string, x *sdk.%s) {\n\tb := j * %d\n\tw.putStr(%s, b, k)\n", s.prefix, t.name, t.typ.Name(), t.words, s.tconst(t.name))
		} else {
			fmt.Fprintf(g, "func (w *layoutWriter) %sPut%s(j int, x *sdk.%s) {\n\tb := j * %d\n", s.prefix, t.name, t.typ.Name(), t.words)
		}
		s.genPutFields(g, t, t.fields, "x.")
		g.WriteString("}\n\n")
	}
}

func title(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

func (s *schema) genPutFields(g *bytes.Buffer, t *table, fs []field, recv string) {
	tc := s.tconst(t.name)
	for _, f := range fs {
		v := recv + f.path[strings.LastIndex(f.path, ".")+1:]
		if strings.Contains(f.path, ".") {
			v = "x." + f.path
		}
		at := fmt.Sprintf("b+%d", f.word)
		if f.sel != "" {
			fmt.Fprintf(g, "\tif w.sel.has%s {\n", selHook(f.sel))
		}
		switch f.kind {
		case kString:
			fmt.Fprintf(g, "\tw.putStr(%s, %s, string(%s))\n", tc, at, v)
		case kBool:
			fmt.Fprintf(g, "\tw.putBool(%s, %s, %s)\n", tc, at, v)
		case kInt:
			fmt.Fprintf(g, "\tw.putInt(%s, %s, %s, %q)\n", tc, at, v, t.name+"."+f.path)
		case kInt64:
			fmt.Fprintf(g, "\tw.putI64(%s, %s, %s)\n", tc, at, v)
		case kFloat:
			fmt.Fprintf(g, "\tw.putF64(%s, %s, %s)\n", tc, at, v)
		case kIntPtr:
			fmt.Fprintf(g, "\tw.putIntPtr(%s, %s, %s, %q)\n", tc, at, v, t.name+"."+f.path)
		case kStrings:
			fmt.Fprintf(g, "\tw.putStrs(%s, %s, %sTString, %s)\n", tc, at, s.prefix, v)
		case kInts:
			fmt.Fprintf(g, "\tw.putInts(%s, %s, %sTInt, %s, %q)\n", tc, at, s.prefix, v, t.name+"."+f.path)
		case kJSONMap:
			fmt.Fprintf(g, "\tw.putJSON(%s, %s, %s, %q)\n", tc, at, v, t.name+"."+f.path)
		case kStructs:
			et := s.tconst(f.table)
			if f.sel == "Commands" {
				fmt.Fprintf(g, "\t{\n\t\tn := 0\n\t\tfor i := range %s {\n\t\t\tif w.sel.command(&%s[i]) {\n\t\t\t\tn++\n\t\t\t}\n\t\t}\n", v, v)
				fmt.Fprintf(g, "\t\tfirst := w.reserve(%s, n)\n\t\tw.putRef(%s, %s, first, n)\n\t\tk := first\n", et, tc, at)
				fmt.Fprintf(g, "\t\tfor i := range %s {\n\t\t\tif w.sel.command(&%s[i]) {\n\t\t\t\tw.%sPut%s(k, &%s[i])\n\t\t\t\tk++\n\t\t\t}\n\t\t}\n\t}\n", v, v, s.prefix, f.table, v)
				break
			}
			fmt.Fprintf(g, "\t{\n\t\tfirst := w.reserve(%s, len(%s))\n\t\tw.putRef(%s, %s, first, len(%s))\n", et, v, tc, at, v)
			fmt.Fprintf(g, "\t\tfor i := range %s {\n\t\t\tw.%sPut%s(first+i, &%s[i])\n\t\t}\n\t}\n", v, s.prefix, f.table, v)
		case kStructMap:
			et := s.tconst(f.table)
			fmt.Fprintf(g, "\t{\n\t\tkeys := make([]string, 0, len(%s))\n\t\tfor k := range %s {\n\t\t\tkeys = append(keys, k)\n\t\t}\n\t\tsort.Strings(keys)\n", v, v)
			fmt.Fprintf(g, "\t\tfirst := w.reserve(%s, len(keys))\n\t\tw.putRef(%s, %s, first, len(keys))\n", et, tc, at)
			fmt.Fprintf(g, "\t\tfor i, k := range keys {\n\t\t\tv := %s[k]\n\t\t\tw.%sPut%s(first+i, k, &v)\n\t\t}\n\t}\n", v, s.prefix, f.table)
		case kInline:
			s.genPutFields(g, t, f.sub, recv)
		case kStructPtr:
			fmt.Fprintf(g, "\tif %s != nil {\n\tw.putBool(%s, %s, true)\n", v, tc, at)
			s.genPutFields(g, t, f.sub, recv)
			g.WriteString("\t}\n")
		}
		if f.sel != "" {
			g.WriteString("\t}\n")
		}
	}
}

func selHook(sel string) string {
	switch sel {
	case "Content", "Context":
		return sel + "()"
	}
	return "Kind(FactKind" + goIdent(jsonNameOfFactsField(sel)) + ")"
}

func jsonNameOfFactsField(goName string) string {
	f, ok := reflect.TypeOf(sdk.Facts{}).FieldByName(goName)
	if !ok {
		panic("layoutgen: no Facts field " + goName)
	}
	return jsonName(f)
}

// genReader prints the arena type and its read method.
func (s *schema) genReader(g *bytes.Buffer) {
	root := s.tables[0]
	arena := s.prefix + "Arena"
	fmt.Fprintf(g, "// %s holds the decoded records of one %s layout, reused from read to read.\ntype %s struct {\n", arena, root.name, arena)
	for _, t := range s.tables {
		switch {
		case t.name == "String":
			g.WriteString("\ttString []string\n")
		case t.name == "Int":
			g.WriteString("\ttInt []int\n")
		case t.key:
			fmt.Fprintf(g, "\tt%s []sdk.%s\n\tk%s []string\n", t.name, t.typ.Name(), t.name)
		default:
			fmt.Fprintf(g, "\tt%s []sdk.%s\n", t.name, t.typ.Name())
		}
		walkFields(t.fields, func(f field) {
			switch f.kind {
			case kIntPtr:
				fmt.Fprintf(g, "\tp%s%s []int\n", t.name, strings.ReplaceAll(f.path, ".", ""))
			case kStructPtr:
				fmt.Fprintf(g, "\tp%s%s []sdk.%s\n", t.name, strings.ReplaceAll(f.path, ".", ""), f.elem.Name())
			case kStructMap:
				fmt.Fprintf(g, "\tm%s%s []map[string]sdk.%s\n", t.name, strings.ReplaceAll(f.path, ".", ""), f.elem.Name())
			}
		})
	}
	g.WriteString("}\n\n")
	fmt.Fprintf(g, "// read decodes v into the arena; strings share v's memory.\nfunc (r *%s) read(v *layoutView) (*sdk.%s, error) {\n", arena, root.name)
	for _, t := range s.tables {
		tc := s.tconst(t.name)
		fmt.Fprintf(g, "\tgrow(&r.t%s, v.count(%s))\n", t.name, tc)
		if t.key {
			fmt.Fprintf(g, "\tgrow(&r.k%s, v.count(%s))\n", t.name, tc)
		}
		walkFields(t.fields, func(f field) {
			n := t.name + strings.ReplaceAll(f.path, ".", "")
			switch f.kind {
			case kIntPtr, kStructPtr:
				fmt.Fprintf(g, "\tgrow(&r.p%s, v.count(%s))\n", n, tc)
			case kStructMap:
				fmt.Fprintf(g, "\tgrow(&r.m%s, v.count(%s))\n", n, tc)
			}
		})
	}
	for _, t := range s.tables {
		tc := s.tconst(t.name)
		switch t.name {
		case "String":
			fmt.Fprintf(g, "\tfor j := range r.tString {\n\t\tr.tString[j] = v.str(v.rec(%s, j))\n\t}\n", tc)
			continue
		case "Int":
			fmt.Fprintf(g, "\tfor j := range r.tInt {\n\t\tr.tInt[j] = int(int32(v.word(v.rec(%s, j))))\n\t}\n", tc)
			continue
		}
		fmt.Fprintf(g, "\tfor j := range r.t%s {\n\t\to := v.rec(%s, j)\n\t\tx := &r.t%s[j]\n\t\t_ = o\n", t.name, tc, t.name)
		if t.key {
			fmt.Fprintf(g, "\t\tr.k%s[j] = v.str(o)\n", t.name)
		}
		if t.name == root.name {
			fmt.Fprintf(g, "\t\t*x = sdk.%s{}\n", root.name)
		}
		s.genReadFields(g, t, t.fields)
		g.WriteString("\t}\n")
	}
	s.genMapPass(g)
	fmt.Fprintf(g, "\tif len(r.t%s) != 1 {\n\t\treturn nil, errLayoutRoot\n\t}\n\treturn &r.t%s[0], nil\n}\n\n", root.name, root.name)
}

func (s *schema) genReadFields(g *bytes.Buffer, t *table, fs []field) {
	for _, f := range fs {
		v := "x." + f.path
		o := fmt.Sprintf("o+%d", 4*f.word)
		n := t.name + strings.ReplaceAll(f.path, ".", "")
		switch f.kind {
		case kString:
			ty := "string"
			if st := fieldType(t.typ, f.path); st.Name() != "string" {
				ty = st.Name()
			}
			if ty == "string" {
				fmt.Fprintf(g, "\t\t%s = v.str(%s)\n", v, o)
			} else {
				fmt.Fprintf(g, "\t\t%s = sdk.%s(v.str(%s))\n", v, ty, o)
			}
		case kBool:
			fmt.Fprintf(g, "\t\t%s = v.word(%s) != 0\n", v, o)
		case kInt:
			fmt.Fprintf(g, "\t\t%s = int(int32(v.word(%s)))\n", v, o)
		case kInt64:
			fmt.Fprintf(g, "\t\t%s = v.i64(%s)\n", v, o)
		case kFloat:
			fmt.Fprintf(g, "\t\t%s = v.f64(%s)\n", v, o)
		case kIntPtr:
			fmt.Fprintf(g, "\t\t%s = nil\n\t\tif v.word(%s) != 0 {\n\t\t\tr.p%s[j] = int(int32(v.word(%s+4)))\n\t\t\t%s = &r.p%s[j]\n\t\t}\n", v, o, n, o, v, n)
		case kStrings:
			fmt.Fprintf(g, "\t\t%s = sub(r.tString, v.word(%s), v.word(%s+4))\n", v, o, o)
		case kInts:
			fmt.Fprintf(g, "\t\t%s = sub(r.tInt, v.word(%s), v.word(%s+4))\n", v, o, o)
		case kStructs:
			fmt.Fprintf(g, "\t\t%s = sub(r.t%s, v.word(%s), v.word(%s+4))\n", v, f.table, o, o)
		case kStructMap:
			// Filled in a last pass (genMapPass): a map copies its
			// values, which must be read first.
		case kJSONMap:
			fmt.Fprintf(g, "\t\tif m, err := v.json(%s); err != nil {\n\t\t\treturn nil, fieldErr(%q, err)\n\t\t} else {\n\t\t\t%s = m\n\t\t}\n", o, t.name+"."+f.path, v)
		case kInline:
			s.genReadFields(g, t, f.sub)
		case kStructPtr:
			fmt.Fprintf(g, "\t\t%s = nil\n\t\tif v.word(%s) != 0 {\n\t\t\t%s = &r.p%s[j]\n", v, o, v, n)
			s.genReadFields(g, t, f.sub)
			g.WriteString("\t\t}\n")
		}
	}
}

func fieldType(t reflect.Type, path string) reflect.Type {
	for _, p := range strings.Split(path, ".") {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		sf, _ := t.FieldByName(p)
		t = sf.Type
	}
	return t
}

func (s *schema) genDoc(d *bytes.Buffer) {
	fmt.Fprintf(d, "\n#### %s layout (hash `0x%08x`)\n\n", s.root.Name(), s.hash())
	d.WriteString("| table | index | words per record |\n|---|---|---|\n")
	for i, t := range s.tables {
		fmt.Fprintf(d, "| %s | %d | %d |\n", t.name, i, t.words)
	}
	names := make([]string, 0, len(s.tables))
	for _, t := range s.tables {
		names = append(names, t.name)
	}
	_ = sort.Strings
	for _, t := range s.tables {
		fmt.Fprintf(d, "\n**%s** (%d words", t.name, t.words)
		switch {
		case t.name == "String":
			d.WriteString("): word 0 offset, word 1 length of a string in the blob\n")
			continue
		case t.name == "Int":
			d.WriteString("): word 0 an int32\n")
			continue
		case t.key:
			d.WriteString("; words 0–1: the map key, a string")
		}
		d.WriteString(")\n\n| word | field | encoding |\n|---|---|---|\n")
		walkFields(t.fields, func(f field) {
			if f.kind == kInline {
				return
			}
			enc := kindDoc[f.kind]
			switch f.kind {
			case kStructs:
				enc = fmt.Sprintf("[]%s (first, count) in %s", f.elem.Name(), f.table)
			case kStructMap:
				enc = fmt.Sprintf("map (first, count) in %s, sorted by key", f.table)
			case kStructPtr:
				enc = "present flag (1: the fields below are set)"
			}
			sel := ""
			if f.sel != "" {
				sel = " · selectable"
			}
			fmt.Fprintf(d, "| %d | `%s` | %s%s |\n", f.word, f.doc, enc, sel)
		})
	}
}

// Markers delimit the generated section of ABI.md.
const (
	BeginMarker = "<!-- layout:begin -->"
	EndMarker   = "<!-- layout:end -->"
)

// Splice replaces the text between the markers of abi with doc.
func Splice(abi, doc []byte) ([]byte, error) {
	i := bytes.Index(abi, []byte(BeginMarker))
	j := bytes.Index(abi, []byte(EndMarker))
	if i < 0 || j < i {
		return nil, fmt.Errorf("layoutgen: ABI.md lacks the %s … %s markers", BeginMarker, EndMarker)
	}
	var out bytes.Buffer
	out.Write(abi[:i+len(BeginMarker)])
	out.WriteByte('\n')
	out.Write(doc)
	out.Write(abi[j:])
	return out.Bytes(), nil
}

// genMapPass prints the loops that build the map fields once every table
// has been read.
func (s *schema) genMapPass(g *bytes.Buffer) {
	for _, t := range s.tables {
		var maps []field
		walkFields(t.fields, func(f field) {
			if f.kind == kStructMap {
				maps = append(maps, f)
			}
		})
		if len(maps) == 0 {
			continue
		}
		fmt.Fprintf(g, "\tfor j := range r.t%s {\n\t\to := v.rec(%s, j)\n\t\tx := &r.t%s[j]\n", t.name, s.tconst(t.name), t.name)
		for _, f := range maps {
			v := "x." + f.path
			o := fmt.Sprintf("o+%d", 4*f.word)
			n := t.name + strings.ReplaceAll(f.path, ".", "")
			fmt.Fprintf(g, "\t\t%s = nil\n\t\tif c := v.word(%s+4); c > 0 {\n", v, o)
			fmt.Fprintf(g, "\t\t\tks, es := sub(r.k%s, v.word(%s), c), sub(r.t%s, v.word(%s), c)\n", f.table, o, f.table, o)
			fmt.Fprintf(g, "\t\t\tm := r.m%s[j]\n\t\t\tif m == nil {\n\t\t\t\tm = make(map[string]sdk.%s, len(ks))\n\t\t\t\tr.m%s[j] = m\n\t\t\t}\n\t\t\tclear(m)\n", n, f.elem.Name(), n)
			fmt.Fprintf(g, "\t\t\tfor i, k := range ks {\n\t\t\t\tm[k] = es[i]\n\t\t\t}\n\t\t\t%s = m\n\t\t}\n", v)
		}
		g.WriteString("\t}\n")
	}
}

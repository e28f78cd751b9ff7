package builtin

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// forbiddenFunctions may not be linked into the built-in module: the engine
// speaks ABI v2 to it, so ABI v1's JSON decoding of the facts (package
// sdk's Decoder and the kit's v1 handler, left out by the rule_v2only build
// tag of `go tool task rules`) would be dead weight that every cold start
// compiles and every instance initializes.
var forbiddenFunctions = []string{
	"github.com/toolwarden/toolwarden/sdk.(*Decoder).",
	"github.com/toolwarden/toolwarden/sdk/rule.handleInto",
	"github.com/toolwarden/toolwarden/sdk/rule.scan",
}

// heavyPackages are the packages whose code the test reports, so a change
// that pulls one in, or takes one out, shows in the test log.
var heavyPackages = []string{"encoding/json", "fmt", "reflect", "regexp", "regexp/syntax", "net/url", "strconv"}

// TestModuleLinksNoHeavyPackages reads the function names of each built-in
// module (its name section) and fails if one of forbiddenFunctions is
// linked (an entry ending in "." names every method of a type) or the
// module still exports v1's scan.
func TestModuleLinksNoHeavyPackages(t *testing.T) {
	packs, err := Packs()
	if errors.Is(err, ErrNotBuilt) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range packs {
		m, err := parseModule(p.Wasm)
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		if len(m.names) == 0 {
			t.Fatalf("%s: no function names (name section missing): cannot check what is linked", p.Name)
		}
		if m.exports["scan"] {
			t.Errorf("%s exports v1's scan: build it with -tags rule_v2only", p.Name)
		}
		if !m.exports["scan_v2"] {
			t.Errorf("%s does not export scan_v2", p.Name)
		}
		for _, name := range m.names {
			for _, f := range forbiddenFunctions {
				if linkerName(f) == name || strings.HasSuffix(f, ".") && strings.HasPrefix(name, linkerName(f)) {
					t.Errorf("%s links %s", p.Name, name)
				}
			}
		}
		total := 0
		size := map[string]int{}
		for idx, n := range m.codeSize {
			total += n
			for _, pkg := range heavyPackages {
				if strings.HasPrefix(m.names[idx], linkerName(pkg)+".") {
					size[pkg] += n
				}
			}
		}
		var report []string
		for _, pkg := range heavyPackages {
			report = append(report, fmt.Sprintf("%s %d", pkg, size[pkg]))
		}
		t.Logf("%s: %d bytes, %d functions, %d bytes of code; code of %s", p.Name, len(p.Wasm), len(m.codeSize), total, strings.Join(report, ", "))
	}
}

func TestLinkerName(t *testing.T) {
	for name, want := range map[string]string{
		"fmt.Sprintf":                   "fmt.Sprintf",
		"regexp/syntax.(*parser).push":  "regexp_syntax.__parser_.push",
		"github.com/a/b.(*Decoder).Dec": "github.com_a_b.__Decoder_.Dec",
	} {
		if got := linkerName(name); got != want {
			t.Errorf("linkerName(%q) = %q, want %q", name, got, want)
		}
	}
}

// linkerName is a Go function's name as the wasm linker writes it in the
// name section: '/', '(', '*' and ')' become '_'.
func linkerName(name string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '/', '(', '*', ')':
			return '_'
		}
		return r
	}, name)
}

// module is what the test reads of a Wasm binary: function names by
// index, the code size of each defined function by index, and the names of
// the exported functions.
type module struct {
	names    map[int]string
	codeSize map[int]int
	exports  map[string]bool
}

// parseModule reads the import, export, code and name sections.
func parseModule(b []byte) (*module, error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return nil, errors.New("not a wasm module")
	}
	m := &module{names: map[int]string{}, codeSize: map[int]int{}, exports: map[string]bool{}}
	imported := 0
	r := reader{b: b[8:]}
	for !r.done() {
		id := r.byte()
		body := reader{b: r.bytes(int(r.uleb()))}
		switch id {
		case 2: // imports
			for n := r2(&body); n > 0; n-- {
				body.name()
				body.name()
				switch kind := body.byte(); kind {
				case 0:
					body.uleb()
					imported++
				case 1:
					body.byte()
					body.limits()
				case 2:
					body.limits()
				case 3:
					body.byte()
					body.byte()
				default:
					return nil, fmt.Errorf("import kind %d", kind)
				}
			}
		case 7: // exports
			for n := r2(&body); n > 0; n-- {
				name := body.name()
				kind := body.byte()
				body.uleb()
				if kind == 0 {
					m.exports[name] = true
				}
			}
		case 10: // code
			for i, n := 0, r2(&body); i < n; i++ {
				size := int(body.uleb())
				body.bytes(size)
				m.codeSize[imported+i] = size
			}
		case 0: // custom
			if body.name() != "name" {
				continue
			}
			for !body.done() {
				sub := body.byte()
				data := reader{b: body.bytes(int(body.uleb()))}
				if sub != 1 {
					continue
				}
				for n := r2(&data); n > 0; n-- {
					idx := int(data.uleb())
					m.names[idx] = data.name()
				}
				if data.err != nil {
					return nil, data.err
				}
			}
		}
		if body.err != nil {
			return nil, fmt.Errorf("section %d: %w", id, body.err)
		}
	}
	return m, r.err
}

// r2 reads a vector's length.
func r2(r *reader) int { return int(r.uleb()) }

// reader reads a Wasm binary; the first error sticks and yields zeros.
type reader struct {
	b   []byte
	err error
}

func (r *reader) done() bool { return r.err != nil || len(r.b) == 0 }

func (r *reader) fail() {
	if r.err == nil {
		r.err = errors.New("truncated")
	}
	r.b = nil
}

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) bytes(n int) []byte {
	if n < 0 || n > len(r.b) {
		r.fail()
		return nil
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}

func (r *reader) uleb() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) name() string { return string(r.bytes(int(r.uleb()))) }

func (r *reader) limits() {
	hasMax := r.byte()&1 != 0
	r.uleb()
	if hasMax {
		r.uleb()
	}
}

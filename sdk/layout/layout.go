// Package layout is ABI v2's binary encoding of scan inputs and outputs
// (ABI.md, "Version 2"): fixed-size records in one table per record type,
// strings in one blob, references as (first, count) pairs. The host writes
// it, the guest reads it in place, without parsing. The code that writes
// and reads each field is generated (layout_gen.go) from the sdk wire
// types by sdk/internal/layoutgen, as is the layout section of ABI.md, so
// the three can never disagree.
package layout

//go:generate go run ../internal/layoutgen/cmd

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/toolwarden/toolwarden/sdk"
)

// layoutMagic opens every layout message ("TWL2" little-endian).
const layoutMagic = 0x324c5754

// layoutHeaderWords is the fixed part of the header: magic, layout hash,
// total length, table count, blob offset, blob length.
const layoutHeaderWords = 6

var errLayoutRoot = errors.New("layout: the root table must hold exactly one record")

func fieldErr(field string, err error) error { return fmt.Errorf("layout field %s: %w", field, err) }

// Selection is what a plugin declared interest in (PluginInfo.Interests),
// compiled for the layout writer: the fact kinds it judges, the command
// names it wants (nil: every command) and whether it reads the raw
// content and the request context. A nil *Selection selects everything.
type Selection struct {
	kinds    uint64
	commands map[string]bool
	content  bool
	context  bool
}

// NewSelection compiles interests; nil interests select everything (nil is
// returned). An unknown fact kind is an error naming it.
func NewSelection(in *sdk.Interests) (*Selection, error) {
	if in == nil {
		return nil, nil
	}
	s := &Selection{content: in.Content, context: in.Context}
	for _, k := range in.Facts {
		i := factKindIndex(k)
		if i < 0 {
			return nil, fmt.Errorf("interests: unknown fact kind %q (known: %v)", k, factKindNames)
		}
		s.kinds |= 1 << i
	}
	if len(in.Commands) > 0 {
		s.kinds |= 1 << FactKindCommands
		s.commands = make(map[string]bool, len(in.Commands))
		for _, c := range in.Commands {
			s.commands[c] = true
		}
	}
	return s, nil
}

func factKindIndex(name string) int {
	for i, n := range factKindNames {
		if n == name {
			return i
		}
	}
	return -1
}

func (s *Selection) hasKind(k FactKind) bool { return s == nil || s.kinds&(1<<k) != 0 }
func (s *Selection) hasContent() bool        { return s == nil || s.content }
func (s *Selection) hasContext() bool        { return s == nil || s.context }

// command reports whether c is sent: every command without a name filter;
// with one, a command named in it, one whose glob could expand to a name
// in it, and every command whose name is dynamic (it could be any).
func (s *Selection) command(c *sdk.Command) bool {
	if s == nil || s.commands == nil || c.Dynamic || s.commands[c.Name] {
		return true
	}
	for _, n := range c.Candidates {
		if s.commands[n] {
			return true
		}
	}
	return false
}

// Empty reports whether facts hold nothing the selection asks for, so the
// host can skip the plugin: no wanted fact of any wanted kind, and neither
// content nor context wanted.
func (s *Selection) Empty(f *sdk.Facts) bool {
	if s == nil || s.content || s.context {
		return false
	}
	if f == nil {
		return false // fail closed: the plugin reports the missing facts
	}
	n := [...]int{len(f.Commands), len(f.Files), len(f.Network), len(f.DynamicExec), len(f.Calls), len(f.Loops),
		len(f.Sleeps), len(f.ShellFeatures), len(f.Functions), len(f.Assignments), len(f.EnvReads), len(f.Outputs),
		len(f.Secrets), len(f.ParseErrors)}
	for k, c := range n {
		if c == 0 || !s.hasKind(FactKind(k)) {
			continue
		}
		if FactKind(k) != FactKindCommands || s.commands == nil {
			return false
		}
		for i := range f.Commands {
			if s.command(&f.Commands[i]) {
				return false
			}
		}
	}
	return true
}

// layoutWriter builds one layout message: fixed-size records in one word
// array per table, strings in one blob. It is reused from message to
// message (zero value ready).
type layoutWriter struct {
	tabs  [][]uint32
	words []int
	blob  []byte
	tmp   []byte
	sel   *Selection
	err   error
}

func (w *layoutWriter) reset(words []int) {
	if cap(w.tabs) < len(words) {
		w.tabs = make([][]uint32, len(words))
	}
	w.tabs = w.tabs[:len(words)]
	for i := range w.tabs {
		w.tabs[i] = w.tabs[i][:0]
	}
	w.words = words
	w.blob = w.blob[:0]
	w.err = nil
}

// reserve appends n zeroed records to table t and returns the first's index.
func (w *layoutWriter) reserve(t, n int) int {
	first := len(w.tabs[t]) / w.words[t]
	w.tabs[t] = append(w.tabs[t], make([]uint32, n*w.words[t])...)
	return first
}

func (w *layoutWriter) putRef(t, at, first, n int) {
	w.tabs[t][at], w.tabs[t][at+1] = uint32(first), uint32(n)
}

func (w *layoutWriter) putStr(t, at int, s string) {
	if len(s) == 0 {
		return
	}
	if uint64(len(w.blob))+uint64(len(s)) > math.MaxUint32 {
		w.fail(errors.New("layout: strings exceed 4 GiB"))
		return
	}
	w.tabs[t][at], w.tabs[t][at+1] = uint32(len(w.blob)), uint32(len(s))
	w.blob = append(w.blob, s...)
}

func (w *layoutWriter) putBool(t, at int, b bool) {
	if b {
		w.tabs[t][at] = 1
	}
}

func (w *layoutWriter) putInt(t, at, v int, field string) {
	if v < math.MinInt32 || v > math.MaxInt32 {
		w.fail(fieldErr(field, fmt.Errorf("value %d does not fit 32 bits", v)))
		return
	}
	w.tabs[t][at] = uint32(int32(v))
}

func (w *layoutWriter) putIntPtr(t, at int, v *int, field string) {
	if v != nil {
		w.tabs[t][at] = 1
		w.putInt(t, at+1, *v, field)
	}
}

func (w *layoutWriter) putI64(t, at int, v int64) {
	w.tabs[t][at], w.tabs[t][at+1] = uint32(uint64(v)), uint32(uint64(v)>>32)
}

func (w *layoutWriter) putF64(t, at int, f float64) { w.putI64(t, at, int64(math.Float64bits(f))) }

func (w *layoutWriter) putStrs(t, at, st int, ss []string) {
	first := w.reserve(st, len(ss))
	w.putRef(t, at, first, len(ss))
	for i, s := range ss {
		w.putStr(st, (first+i)*2, s)
	}
}

func (w *layoutWriter) putInts(t, at, it int, ns []int, field string) {
	first := w.reserve(it, len(ns))
	w.putRef(t, at, first, len(ns))
	for i, n := range ns {
		w.putInt(it, first+i, n, field)
	}
}

// putJSON stores a JSON object's text in the blob; nil stays (0, 0).
func (w *layoutWriter) putJSON(t, at int, m map[string]any, field string) {
	if m == nil {
		return
	}
	var err error
	w.tmp, err = sdk.AppendJSONObject(w.tmp[:0], m)
	if err != nil {
		w.fail(fieldErr(field, err))
		return
	}
	// putStr copies the bytes into the blob before w.tmp is written again,
	// so a view of them does (no string copy: one allocation fewer per
	// finding with metadata).
	w.putStr(t, at, unsafe.String(unsafe.SliceData(w.tmp), len(w.tmp)))
}

func (w *layoutWriter) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// finish appends header, tables and blob to dst.
func (w *layoutWriter) finish(dst []byte, hash uint32) ([]byte, error) {
	if w.err != nil {
		return dst, w.err
	}
	n := len(w.tabs)
	size := 4 * (layoutHeaderWords + 2*n)
	for _, t := range w.tabs {
		size += 4 * len(t)
	}
	blobOff := size
	size += len(w.blob)
	if uint64(size) > math.MaxUint32 {
		return dst, fmt.Errorf("layout: message of %d bytes exceeds 4 GiB", size)
	}
	start := len(dst)
	dst = append(dst, make([]byte, blobOff)...)
	b := dst[start:]
	le := binary.LittleEndian
	for i, v := range []uint32{layoutMagic, hash, uint32(size), uint32(n), uint32(blobOff), uint32(len(w.blob))} {
		le.PutUint32(b[4*i:], v)
	}
	off := 4 * (layoutHeaderWords + 2*n)
	for i, t := range w.tabs {
		le.PutUint32(b[4*(layoutHeaderWords+2*i):], uint32(off))
		le.PutUint32(b[4*(layoutHeaderWords+2*i)+4:], uint32(len(t)/w.words[i]))
		if littleEndian {
			// The table's words are already in the message's byte order:
			// one copy instead of a store (and bounds check) per word.
			off += copy(b[off:], unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(t))), 4*len(t)))
			continue
		}
		for _, v := range t {
			le.PutUint32(b[off:], v)
			off += 4
		}
	}
	return append(dst, w.blob...), nil
}

// layoutView reads a layout message in place.
type layoutView struct {
	b      []byte
	blob   string
	off    []uint32
	cnt    []uint32
	words  []int
	offBuf [32]uint32
	cntBuf [32]uint32
}

// open checks the header and the table directory of b against the
// expected layout.
func (v *layoutView) open(b []byte, hash uint32, words []int) error {
	le := binary.LittleEndian
	if len(b) < 4*layoutHeaderWords {
		return fmt.Errorf("layout: message of %d bytes is shorter than its header", len(b))
	}
	if m := le.Uint32(b); m != layoutMagic {
		return fmt.Errorf("layout: bad magic %#x", m)
	}
	if h := le.Uint32(b[4:]); h != hash {
		return fmt.Errorf("layout: hash %#x, this side speaks %#x (host and plugin built against different sdk wire types)", h, hash)
	}
	total, n, blobOff, blobLen := le.Uint32(b[8:]), le.Uint32(b[12:]), le.Uint32(b[16:]), le.Uint32(b[20:])
	if uint64(total) != uint64(len(b)) || int(n) != len(words) || uint64(blobOff)+uint64(blobLen) != uint64(total) ||
		uint64(blobOff) < uint64(4*(layoutHeaderWords+2*len(words))) {
		return fmt.Errorf("layout: inconsistent header (total %d of %d bytes, %d tables of %d, blob %d+%d)", total, len(b), n, len(words), blobOff, blobLen)
	}
	v.b, v.words = b, words
	v.off, v.cnt = v.offBuf[:0], v.cntBuf[:0]
	for i := range words {
		o, c := le.Uint32(b[4*(layoutHeaderWords+2*i):]), le.Uint32(b[4*(layoutHeaderWords+2*i)+4:])
		if uint64(o)+uint64(c)*uint64(words[i])*4 > uint64(blobOff) {
			return fmt.Errorf("layout: table %d (%d records at %d) overruns the tables", i, c, o)
		}
		v.off, v.cnt = append(v.off, o), append(v.cnt, c)
	}
	if blobLen > 0 {
		v.blob = unsafe.String(&b[blobOff], blobLen)
	} else {
		v.blob = ""
	}
	return nil
}

func (v *layoutView) count(t int) int  { return int(v.cnt[t]) }
func (v *layoutView) rec(t, j int) int { return int(v.off[t]) + 4*j*v.words[t] }

// word, i64 and f64 read a field at byte offset o of a record. The
// readers only pass offsets of records inside the tables open checked
// (rec with j below count, a field offset below the record's size), so on
// a little-endian machine they load without a bounds check per field:
// inside Wasm each check is a compare and a branch, and decoding is loads.
func (v *layoutView) word(o int) uint32 {
	if littleEndian {
		return *(*uint32)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(v.b)), o))
	}
	return binary.LittleEndian.Uint32(v.b[o:])
}
func (v *layoutView) i64(o int) int64 {
	if littleEndian {
		return *(*int64)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(v.b)), o))
	}
	return int64(binary.LittleEndian.Uint64(v.b[o:]))
}
func (v *layoutView) f64(o int) float64 { return math.Float64frombits(uint64(v.i64(o))) }
func (v *layoutView) str(o int) string {
	off, n := v.word(o), v.word(o+4)
	if n == 0 {
		return ""
	}
	return v.blob[off : uint64(off)+uint64(n)]
}

func (v *layoutView) json(o int) (map[string]any, error) {
	s := v.str(o)
	if s == "" {
		return nil, nil
	}
	return decodeJSONObject(s)
}

// grow sets *s to n elements, reusing its memory when it is large enough.
// Elements are overwritten by the reader, so they are not cleared.
func grow[T any](s *[]T, n int) {
	if cap(*s) < n {
		*s = make([]T, n, n+n/4)
	}
	*s = (*s)[:n]
}

// sub is a[first:first+n] with its capacity cut, nil when n is 0; an
// out-of-range reference panics (the readers recover it into an error).
func sub[T any](a []T, first, n uint32) []T {
	if n == 0 {
		return nil
	}
	e := uint64(first) + uint64(n)
	return a[first:e:e]
}

// Encoder writes ABI v2 scan inputs. The zero value is ready; it must
// not be used concurrently.
type Encoder struct{ w layoutWriter }

// AppendScanInput appends the layout of in (facts, content, language,
// context; never policy or config, which go through configure) to dst,
// sending only what sel selects (nil: everything).
func (e *Encoder) AppendScanInput(dst []byte, in *sdk.ScanInput, sel *Selection) ([]byte, error) {
	e.w.sel = sel
	return e.w.appendInputLayout(dst, in)
}

// AppendScanOutput appends the layout of out to dst (the guest's findings).
func (e *Encoder) AppendScanOutput(dst []byte, out *sdk.ScanOutput) ([]byte, error) {
	e.w.sel = nil
	return e.w.appendOutputLayout(dst, out)
}

// Decoder reads ABI v2 messages into memory it reuses: the result of
// a Decode call, and every string and slice reachable from it, is valid
// until the next call and shares the message's bytes (strings are not
// copied), so the message must stay unchanged while the result is used.
// The zero value is ready; it must not be used concurrently.
type Decoder struct {
	view layoutView
	in   inputArena
	out  outputArena
}

// DecodeScanInput reads an ABI v2 scan input in place.
func (d *Decoder) DecodeScanInput(b []byte) (in *sdk.ScanInput, err error) {
	defer recoverLayout(&err)
	if err := d.view.open(b, inputLayoutHash, inputTableWords); err != nil {
		return nil, err
	}
	return d.in.read(&d.view)
}

// DecodeScanOutput reads an ABI v2 scan output in place.
func (d *Decoder) DecodeScanOutput(b []byte) (out *sdk.ScanOutput, err error) {
	defer recoverLayout(&err)
	if err := d.view.open(b, outputLayoutHash, outputTableWords); err != nil {
		return nil, err
	}
	return d.out.read(&d.view)
}

// recoverLayout turns an out-of-range reference inside a message (a slice
// bound the Go runtime checked) into an error.
func recoverLayout(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("layout: malformed message: %v", r)
	}
}

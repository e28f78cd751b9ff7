package reduction

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func newTestWriter(t *testing.T, maxLen int) (*Writer, string) {
	t.Helper()
	root := t.TempDir()
	w, err := NewWriter(Config{MaxLength: maxLen, Root: root, ConversationID: "conv-1", ExecutionID: "exec-1"})
	if err != nil {
		t.Fatalf("NewWriter: %v", err)
	}
	return w, root
}

// parsedBlock is a <persisted-output> block taken apart along its format.
type parsedBlock struct {
	total      int64
	path       string
	head, tail string
	k1, k2     int
}

// parseBlock checks every fixed line of the block and returns its parts.
func parseBlock(t *testing.T, s string) parsedBlock {
	t.Helper()
	const (
		open  = "<persisted-output>\n"
		close = "\n\n</persisted-output>"
		use   = "Use read_file with offset/limit to read parts of the file.\n"
	)
	if !strings.HasPrefix(s, open) || !strings.HasSuffix(s, close) {
		t.Fatalf("block does not open/close as expected:\n%.200q ... %.200q", s, s[max(0, len(s)-200):])
	}
	body := strings.TrimSuffix(strings.TrimPrefix(s, open), close)
	line1, rest, _ := strings.Cut(body, "\n")
	var p parsedBlock
	const pre = "Output too large ("
	if !strings.HasPrefix(line1, pre) {
		t.Fatalf("line 2 = %q", line1)
	}
	num, after, ok := strings.Cut(strings.TrimPrefix(line1, pre), "). Full output saved to: ")
	if !ok {
		t.Fatalf("line 2 = %q", line1)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		t.Fatalf("line 2 size %q: %v", num, err)
	}
	p.total, p.path = n, after
	if !strings.HasPrefix(rest, use) {
		t.Fatalf("line 3 = %.80q", rest)
	}
	rest = strings.TrimPrefix(rest, use)
	line4, rest, _ := strings.Cut(rest, "\n")
	if _, err := fmt.Sscanf(line4, "Preview (first %d):", &p.k1); err != nil || line4 != fmt.Sprintf("Preview (first %d):", p.k1) {
		t.Fatalf("line 4 = %q (%v)", line4, err)
	}
	if len(rest) < p.k1 {
		t.Fatalf("head preview shorter than announced %d", p.k1)
	}
	p.head, rest = rest[:p.k1], rest[p.k1:]
	lastHdr, tail, ok := strings.Cut(strings.TrimPrefix(rest, "\n\n"), "\n")
	if !strings.HasPrefix(rest, "\n\n") || !ok {
		t.Fatalf("no blank line + last preview header after head: %.80q", rest)
	}
	if _, err := fmt.Sscanf(lastHdr, "Preview (last %d):", &p.k2); err != nil || lastHdr != fmt.Sprintf("Preview (last %d):", p.k2) {
		t.Fatalf("last header = %q (%v)", lastHdr, err)
	}
	if len(tail) != p.k2 {
		t.Fatalf("tail preview is %d bytes, announced %d", len(tail), p.k2)
	}
	p.tail = tail
	return p
}

func TestSmallOutputUnchanged(t *testing.T) {
	w, root := newTestWriter(t, 1024)
	in := "hello\n" + strings.Repeat("é", 200) + "\nbye"
	for _, part := range []string{in[:3], in[3:100], in[100:]} {
		if n, err := w.Write([]byte(part)); err != nil || n != len(part) {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	got, err := w.Result()
	if err != nil || got != in {
		t.Fatalf("Result = %q, %v; want the input unchanged", got, err)
	}
	if w.SpillPath() != "" || w.Truncated() {
		t.Fatalf("small output spilled: %q truncated=%v", w.SpillPath(), w.Truncated())
	}
	if _, err := os.Stat(filepath.Join(root, "conversations")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("small output touched the disk: %v", err)
	}
}

func TestExactlyCapIsUnchangedOneMoreSpills(t *testing.T) {
	const limit = 2000
	w, _ := newTestWriter(t, limit)
	in := bytes.Repeat([]byte("x"), limit)
	w.Write(in)
	if got, _ := w.Result(); got != string(in) {
		t.Fatalf("output of exactly the cap was changed (%d bytes)", len(got))
	}
	w.Write([]byte("y"))
	w.Close()
	got, err := w.Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > limit {
		t.Fatalf("result %d bytes > cap %d", len(got), limit)
	}
	p := parseBlock(t, got)
	if p.total != limit+1 || !strings.HasSuffix(p.tail, "xy") {
		t.Fatalf("total %d tail %q", p.total, p.tail[max(0, len(p.tail)-5):])
	}
	data, err := os.ReadFile(p.path)
	if err != nil || string(data) != string(in)+"y" {
		t.Fatalf("spill file differs (%d bytes, %v)", len(data), err)
	}
}

func TestLargeOutputBlockFormatAndSpill(t *testing.T) {
	w, root := newTestWriter(t, DefaultMaxLength)
	var full bytes.Buffer
	for i := 0; full.Len() < 200000; i++ {
		line := fmt.Sprintf("line %06d %s\n", i, strings.Repeat("abc", i%17))
		full.WriteString(line)
		w.Write([]byte(line))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := w.Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > DefaultMaxLength {
		t.Fatalf("result is %d bytes, cap %d", len(got), DefaultMaxLength)
	}
	// The previews should use the budget, not leave it mostly empty.
	if len(got) < DefaultMaxLength-16 {
		t.Fatalf("result is only %d bytes of a %d budget", len(got), DefaultMaxLength)
	}
	p := parseBlock(t, got)
	if p.total != int64(full.Len()) {
		t.Fatalf("announced total %d, wrote %d", p.total, full.Len())
	}
	want, _ := SpillPath(root, "conv-1", "exec-1")
	if p.path != want || w.SpillPath() != want || !filepath.IsAbs(p.path) {
		t.Fatalf("path %q, SpillPath %q, want %q", p.path, w.SpillPath(), want)
	}
	if !strings.HasPrefix(full.String(), p.head) || !strings.HasSuffix(full.String(), p.tail) {
		t.Fatal("previews are not the head and tail of the output")
	}
	if d := p.k1 - p.k2; d < -1 || d > 1 {
		t.Fatalf("head %d and tail %d previews are not balanced", p.k1, p.k2)
	}
	data, err := os.ReadFile(p.path)
	if err != nil || !bytes.Equal(data, full.Bytes()) {
		t.Fatalf("spill file differs from output (%d vs %d bytes, %v)", len(data), full.Len(), err)
	}
	st, _ := os.Stat(p.path)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("spill file mode %v", st.Mode().Perm())
	}
	for _, d := range []string{filepath.Dir(p.path), filepath.Dir(filepath.Dir(p.path)), filepath.Join(root, "conversations")} {
		st, _ := os.Stat(d)
		if st.Mode().Perm() != 0o700 {
			t.Fatalf("dir %s mode %v", d, st.Mode().Perm())
		}
	}
}

// TestUTF8CutsNeverSplitARune moves every cut position across every byte
// of 2-, 3- and 4-byte runes by varying the cap and an ASCII prefix.
func TestUTF8CutsNeverSplitARune(t *testing.T) {
	for _, r := range []string{"é", "€", "😀"} {
		for shift := 0; shift < 4; shift++ {
			for limit := MinMaxLength; limit < MinMaxLength+8; limit++ {
				in := strings.Repeat("a", shift) + strings.Repeat(r, 3*limit/len(r)) + strings.Repeat("b", shift)
				got, err := Reduce(Config{MaxLength: limit, Root: t.TempDir(), ExecutionID: "e"}, []byte(in))
				if err != nil {
					t.Fatal(err)
				}
				if len(got) > limit {
					t.Fatalf("%q shift %d cap %d: %d bytes", r, shift, limit, len(got))
				}
				if !utf8.ValidString(got) {
					t.Fatalf("%q shift %d cap %d: result is not valid UTF-8", r, shift, limit)
				}
				p := parseBlock(t, got)
				if !strings.HasPrefix(in, p.head) || !strings.HasSuffix(in, p.tail) {
					t.Fatalf("%q shift %d cap %d: previews are not head/tail", r, shift, limit)
				}
				// A cut loses less than one rune of budget on each side.
				if len(got) < limit-2*len(r)-2 {
					t.Fatalf("%q shift %d cap %d: block only %d bytes", r, shift, limit, len(got))
				}
			}
		}
	}
}

func TestCutHelpers(t *testing.T) {
	s := []byte("a€b") // 61 E2 82 AC 62
	for n, want := range []string{"", "a", "a", "a", "a€", "a€b"} {
		if got := string(cutHead(s, n)); got != want {
			t.Errorf("cutHead(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range []string{"", "b", "b", "b", "€b", "a€b"} {
		if got := string(cutTail(s, n)); got != want {
			t.Errorf("cutTail(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestHugeOutputBoundedMemory writes 200 MB and checks the heap does not
// grow with it, and that the spill file is byte-identical.
func TestHugeOutputBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 200 MB")
	}
	w, _ := newTestWriter(t, DefaultMaxLength)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak uint64

	h := sha256.New()
	chunk := make([]byte, 32<<10)
	const total = 200_000_000
	for written, i := 0, 0; written < total; i++ {
		n := min(len(chunk), total-written)
		for j := 0; j < n; j += 64 {
			copy(chunk[j:min(j+64, n)], fmt.Sprintf("%016x:%046d\n", written+j, i))
		}
		h.Write(chunk[:n])
		if _, err := w.Write(chunk[:n]); err != nil {
			t.Fatal(err)
		}
		written += n
		if i%256 == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&ms)
	peak = max(peak, ms.HeapInuse)
	if growth := int64(peak) - int64(base); growth > 64<<20 {
		t.Fatalf("heap grew by %d MiB while writing 200 MB", growth>>20)
	}
	res, err := w.Result()
	if err != nil || len(res) > DefaultMaxLength {
		t.Fatalf("result %d bytes, %v", len(res), err)
	}
	if w.TotalBytes() != total {
		t.Fatalf("TotalBytes = %d", w.TotalBytes())
	}
	f, err := os.Open(w.SpillPath())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h2 := sha256.New()
	if n, err := io.Copy(h2, f); err != nil || n != total {
		t.Fatalf("spill file: %d bytes, %v", n, err)
	}
	if !bytes.Equal(h.Sum(nil), h2.Sum(nil)) {
		t.Fatal("spill file is not byte-identical to the output")
	}
}

func TestSpillFailureIsReportedNotHidden(t *testing.T) {
	root := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(root, []byte("not a dir"), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := NewWriter(Config{MaxLength: MinMaxLength, Root: root, ExecutionID: "e"})
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("z"), 10*MinMaxLength)
	if n, err := w.Write(big); n != len(big) || err != nil {
		t.Fatalf("Write = %d, %v: capture must go on when the disk fails", n, err)
	}
	if err := w.Close(); err == nil {
		t.Fatal("Close hid the spill failure")
	}
	res, err := w.Result()
	if err == nil {
		t.Fatal("Result hid the spill failure")
	}
	if len(res) > MinMaxLength || strings.Contains(res, "saved to:") || !strings.Contains(res, "could not be saved") {
		t.Fatalf("result on failure: %d bytes %.200q", len(res), res)
	}
	if w.SpillPath() != "" {
		t.Fatalf("SpillPath names a file that was not written: %q", w.SpillPath())
	}
}

func TestConfigValidation(t *testing.T) {
	if _, err := NewWriter(Config{Root: t.TempDir()}); err == nil {
		t.Error("missing execution id accepted")
	}
	if _, err := NewWriter(Config{MaxLength: 100, Root: t.TempDir(), ExecutionID: "e"}); err == nil {
		t.Error("cap below the minimum accepted")
	}
	if _, err := Reduce(Config{MaxLength: 10}, nil); err == nil {
		t.Error("Reduce accepted an invalid config")
	}
}

func TestSafeComponent(t *testing.T) {
	seen := map[string]string{}
	for _, id := range []string{"abc-1_2.x", "../../etc/passwd", "..", ".", "", "a/b", "a_b", "a\x00b", strings.Repeat("z", 300), "中文"} {
		got := SafeComponent(id)
		if got == "" || got == "." || got == ".." || strings.ContainsAny(got, "/\\\x00") || len(got) > maxComponent+13 {
			t.Errorf("SafeComponent(%q) = %q", id, got)
		}
		if prev, dup := seen[got]; dup {
			t.Errorf("%q and %q both map to %q", prev, id, got)
		}
		seen[got] = id
	}
	if SafeComponent("abc-1_2.x") != "abc-1_2.x" {
		t.Error("a safe id was changed")
	}
	p, _ := SpillPath("/r", "../../x", "../y")
	if !strings.HasPrefix(p, "/r/conversations/") || strings.Contains(p, "..") {
		t.Errorf("SpillPath escaped: %s", p)
	}
}

func TestPartialIsBoundedTailAndConcurrentSafe(t *testing.T) {
	w, _ := newTestWriter(t, DefaultMaxLength)
	p := w.Partial(0)
	if p.Text != "" || p.TotalBytes != 0 || p.Truncated || p.UpdatedAt.IsZero() {
		t.Fatalf("empty partial = %+v", p)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				w.Write([]byte("ab€\n"))
				if i%100 == 0 {
					pp := w.Partial(1000)
					if len(pp.Text) > 1000 || !utf8.ValidString(pp.Text) {
						t.Errorf("partial %d bytes valid=%v", len(pp.Text), utf8.ValidString(pp.Text))
					}
				}
			}
		}()
	}
	wg.Wait()
	p = w.Partial(0)
	if p.TotalBytes != 4*2000*6 || !p.Truncated || len(p.Text) > DefaultPartialBytes || len(p.Text) < DefaultPartialBytes-3 {
		t.Fatalf("partial = total %d truncated %v len %d", p.TotalBytes, p.Truncated, len(p.Text))
	}
	if !strings.HasSuffix(p.Text, "ab€\n") || !utf8.ValidString(p.Text) {
		t.Fatalf("partial tail %q", p.Text[len(p.Text)-10:])
	}
	for i := 0; i < 20000; i++ {
		w.Write([]byte("ab€\n"))
	}
	if got := len(w.Partial(1 << 30).Text); got > MaxPartialBytes || got < MaxPartialBytes-3 {
		t.Fatalf("partial not clamped to %d: %d", MaxPartialBytes, got)
	}
	if ClampPartial(-1) != DefaultPartialBytes || ClampPartial(10) != 10 || ClampPartial(1<<20) != MaxPartialBytes {
		t.Fatal("ClampPartial")
	}
	w2, _ := newTestWriter(t, DefaultMaxLength)
	w2.Write([]byte("short"))
	if p := w2.Partial(100); p.Text != "short" || p.Truncated || p.TotalBytes != 5 {
		t.Fatalf("short partial = %+v", p)
	}
}

func TestWriteAfterCloseFails(t *testing.T) {
	w, _ := newTestWriter(t, MinMaxLength)
	w.Close()
	if _, err := w.Write([]byte("x")); err == nil {
		t.Fatal("write after close accepted")
	}
}

// TestSpillIsBounded: an output past MaxSpillBytes is not kept on disk —
// the spill file is removed and the result says the output was not saved —
// so one run cannot fill the host's disk through its output.
func TestSpillIsBounded(t *testing.T) {
	root := t.TempDir()
	const bound = 64 << 10
	w, err := NewWriter(Config{MaxLength: MinMaxLength, Root: root, ExecutionID: "e", MaxSpillBytes: bound})
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("x"), 4096)
	for i := 0; i < 64; i++ { // 256 KiB, four times the bound
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err == nil {
		t.Error("Close: no error for an output past the spill bound")
	}
	res, err := w.Result()
	if err == nil || !strings.Contains(res, "not saved") || !strings.Contains(res, "262144") {
		t.Errorf("result %q, err %v: want it to say the 262144-byte output was not saved", res, err)
	}
	if w.SpillPath() != "" {
		t.Errorf("SpillPath %q for an unsaved output", w.SpillPath())
	}
	var kept int64
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if st, err := os.Stat(p); err == nil {
				kept += st.Size()
			}
		}
		return nil
	})
	if kept != 0 {
		t.Errorf("%d bytes of spill left on disk, want none", kept)
	}
	if w.TotalBytes() != 64*4096 {
		t.Errorf("TotalBytes %d, want %d", w.TotalBytes(), 64*4096)
	}

	// Under the bound the spill is whole, as before.
	w, err = NewWriter(Config{MaxLength: MinMaxLength, Root: root, ExecutionID: "f", MaxSpillBytes: bound})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(bytes.Repeat([]byte("y"), bound))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(w.SpillPath()); err != nil || len(data) != bound {
		t.Errorf("spill at the bound: %d bytes, %v", len(data), err)
	}
}

package scanlog

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/sdk"
)

// Secrets planted in test requests; none may appear in a stored byte.
const (
	ghToken  = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	envValue = "envvalue-Zq8wX3pL9vT2"
	dbPass   = "hunter2-Xk9Pq7Lm"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newClock() *clock { return &clock{t: time.Now().UTC().Truncate(time.Second)} }

func entry(id string, at time.Time, owner, tool string, d sdk.Decision, rules ...string) Entry {
	rep := &sdk.SafetyReport{ScanID: id, Decision: d, RiskLevel: sdk.RiskLow, ToolName: tool, Language: "bash",
		Timestamp: at.Format(time.RFC3339Nano)}
	for _, r := range rules {
		rep.Findings = append(rep.Findings, sdk.Finding{RuleID: r, Evidence: "x"})
	}
	return FromReport(owner, engine.Request{ToolName: tool, Language: "bash", Content: "echo " + id}, rep)
}

func secretEntry(id string, at time.Time) Entry {
	e := entry(id, at, "k1", "bash", sdk.Deny, "secret.rule")
	e.Request.Content = "curl -H 'Authorization: token " + ghToken + "' https://api.github.com\nexport DB_PASSWORD=" + dbPass + "\n"
	e.Request.Env = map[string]string{"API_TOKEN": envValue}
	e.Request.CommandArgs = []string{"--token", ghToken}
	e.Request.Metadata = map[string]any{"note": "password=" + dbPass, "nested": []any{ghToken}}
	e.Report.Findings[0].Evidence = "token " + ghToken
	return e
}

// store is one implementation under test with a way to read every byte it
// wrote.
type store struct {
	Log
	raw func() []byte
}

func sqliteStore(t *testing.T, cfg Config, c *clock) store {
	t.Helper()
	dir := t.TempDir()
	s, err := OpenSQLite(dir, cfg, c.now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return store{s, func() []byte {
		var all []byte
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			b, err := os.ReadFile(filepath.Join(dir, DBFile+suffix))
			if err == nil {
				all = append(all, b...)
			}
		}
		return all
	}}
}

// redisClient connects to the test Redis (TOOLWARDEN_TEST_REDIS, default
// 127.0.0.1:6379); skipped without one unless CI=true.
func redisClient(t *testing.T) *redis.Client {
	t.Helper()
	addr := os.Getenv("TOOLWARDEN_TEST_REDIS")
	if addr == "" {
		addr = "127.0.0.1:6379"
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Redis at %s is required in CI: %v", addr, err)
		}
		t.Skipf("no Redis at %s (%v); set TOOLWARDEN_TEST_REDIS", addr, err)
	}
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

func redisStore(t *testing.T, cfg Config, c *clock) store {
	t.Helper()
	rdb := redisClient(t)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	prefix := "toolwarden-test-" + hex.EncodeToString(b) + ":scans:"
	r := NewRedis(rdb, prefix, cfg, c.now)
	t.Cleanup(func() {
		keys, _ := r.Keys(context.Background())
		if len(keys) > 0 {
			rdb.Del(context.Background(), keys...)
		}
	})
	return store{r, func() []byte {
		ctx := context.Background()
		keys, err := r.Keys(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var all []byte
		for _, k := range keys {
			all = append(all, k...)
			switch rdb.Type(ctx, k).Val() {
			case "string":
				all = append(all, rdb.Get(ctx, k).Val()...)
			case "zset":
				for _, m := range rdb.ZRange(ctx, k, 0, -1).Val() {
					all = append(all, m...)
				}
			}
		}
		return all
	}}
}

func forEachStore(t *testing.T, cfg Config, f func(t *testing.T, s store, c *clock)) {
	t.Run("sqlite", func(t *testing.T) { c := newClock(); f(t, sqliteStore(t, cfg, c), c) })
	t.Run("redis", func(t *testing.T) { c := newClock(); f(t, redisStore(t, cfg, c), c) })
}

// TestSecretsNeverStored: a token, a password and an env value in the
// request never land in the SQLite file or in Redis; what is read back is
// redacted and keeps the env names.
func TestSecretsNeverStored(t *testing.T) {
	forEachStore(t, DefaultConfig(), func(t *testing.T, s store, c *clock) {
		ctx := context.Background()
		if err := s.Append(ctx, secretEntry("s1", c.now())); err != nil {
			t.Fatal(err)
		}
		raw := s.raw()
		if !bytes.Contains(raw, []byte("API_TOKEN")) {
			t.Fatalf("the stored bytes do not hold the entry at all (env name missing); the grep below would prove nothing")
		}
		for _, secret := range []string{ghToken, envValue, dbPass} {
			if bytes.Contains(raw, []byte(secret)) {
				t.Errorf("secret %q found in the stored bytes", secret)
			}
		}
		got, err := s.Get(ctx, "s1")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(got.Request.Content, "[REDACTED:github_token]") {
			t.Errorf("content not redacted as expected: %q", got.Request.Content)
		}
		if v, ok := got.Request.Env["API_TOKEN"]; !ok || v != "" {
			t.Errorf("env: want the name with no value, got %#v", got.Request.Env)
		}
		if got.Decision != sdk.Deny || len(got.RuleIDs) != 1 || got.RuleIDs[0] != "secret.rule" {
			t.Errorf("entry fields lost: %+v", got)
		}
	})
}

// TestContentBounded: content over max_content_bytes is cut (and marked),
// and a secret straddling the cut is not stored in part.
func TestContentBounded(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxContentBytes = 1024
	forEachStore(t, cfg, func(t *testing.T, s store, c *clock) {
		e := entry("big", c.now(), "k1", "bash", sdk.Allow)
		e.Request.Content = strings.Repeat("a", 1000) + " " + ghToken + " " + strings.Repeat("b", 100000)
		if err := s.Append(context.Background(), e); err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(context.Background(), "big")
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Request.Content) > 1024+len(truncatedMarker)+len("[REDACTED:github_token]") {
			t.Errorf("stored content is %d bytes, bound 1024", len(got.Request.Content))
		}
		if !strings.HasSuffix(got.Request.Content, truncatedMarker) {
			t.Errorf("cut content is not marked: ...%q", got.Request.Content[len(got.Request.Content)-40:])
		}
		if bytes.Contains(s.raw(), []byte(ghToken[:20])) {
			t.Error("part of the token survived the cut")
		}
	})
}

// TestBoundAndRetention: at most max_entries are kept (the newest), and
// entries older than retention are neither returned nor kept.
func TestBoundAndRetention(t *testing.T) {
	cfg := Config{Enabled: true, MaxEntries: 5, Retention: time.Hour}
	forEachStore(t, cfg, func(t *testing.T, s store, c *clock) {
		ctx := context.Background()
		for i := range 8 {
			if err := s.Append(ctx, entry(fmt.Sprintf("e%d", i), c.now(), "k1", "bash", sdk.Allow)); err != nil {
				t.Fatal(err)
			}
			c.add(time.Minute)
		}
		got, err := s.Recent(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		if ids := idsOf(got); strings.Join(ids, ",") != "e7,e6,e5,e4,e3" {
			t.Fatalf("after 8 appends with max 5: got %v", ids)
		}
		if _, err := s.Get(ctx, "e0"); !errors.Is(err, ErrNotFound) {
			t.Errorf("e0 beyond the bound: want ErrNotFound, got %v", err)
		}
		if bytes.Contains(s.raw(), []byte("echo e0")) {
			t.Error("e0's content is still stored after it was dropped")
		}
		// Now e7 is exactly one retention old: it is kept, e6 is not.
		c.add(time.Hour - time.Minute)
		got, err = s.Recent(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		if ids := idsOf(got); strings.Join(ids, ",") != "e7" {
			t.Fatalf("past retention: got %v, want [e7]", ids)
		}
		if _, err := s.Get(ctx, "e3"); !errors.Is(err, ErrNotFound) {
			t.Errorf("e3 past retention: want ErrNotFound, got %v", err)
		}
		// The next append prunes what expired.
		if err := s.Append(ctx, entry("e8", c.now(), "k1", "bash", sdk.Allow)); err != nil {
			t.Fatal(err)
		}
		if raw := s.raw(); bytes.Contains(raw, []byte("echo e3")) && !isRedis(s) {
			t.Error("e3's content is still in the file after pruning")
		}
	})
}

func isRedis(s store) bool { _, ok := s.Log.(*Redis); return ok }

func idsOf(es []Entry) []string {
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.ScanID
	}
	return ids
}

// TestQueryFilters: each filter selects what it names, and pages with the
// cursor cover all matches once, newest first.
func TestQueryFilters(t *testing.T) {
	forEachStore(t, DefaultConfig(), func(t *testing.T, s store, c *clock) {
		ctx := context.Background()
		base := c.now().Add(-time.Hour)
		add := func(e Entry) {
			if err := s.Append(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		add(entry("a", base.Add(1*time.Minute), "k1", "bash", sdk.Allow))
		add(entry("b", base.Add(2*time.Minute), "k2", "python", sdk.Deny, "fs.rm_root", "net.curl_pipe"))
		add(entry("c", base.Add(3*time.Minute), "k1", "bash", sdk.NeedsHumanReview, "net.curl_pipe"))
		add(entry("d", base.Add(4*time.Minute), "k2", "bash", sdk.Deny, "fs.rm_root"))
		// Two entries in the same microsecond: the cursor must still
		// separate them.
		add(entry("e1", base.Add(5*time.Minute), "k1", "bash", sdk.Allow))
		add(entry("e2", base.Add(5*time.Minute), "k1", "bash", sdk.Allow))
		cases := []struct {
			name string
			f    Filter
			want string
		}{
			{"all", Filter{}, "e2,e1,d,c,b,a"},
			{"decision", Filter{Decision: "deny"}, "d,b"},
			{"rule", Filter{RuleID: "net.curl_pipe"}, "c,b"},
			{"rule is exact", Filter{RuleID: "net.curl"}, ""},
			{"tool", Filter{ToolName: "python"}, "b"},
			{"owner", Filter{OwnerKeyID: "k1"}, "e2,e1,c,a"},
			{"since", Filter{Since: base.Add(3 * time.Minute)}, "e2,e1,d,c"},
			{"until", Filter{Until: base.Add(3 * time.Minute)}, "b,a"},
			{"combined", Filter{Decision: "deny", OwnerKeyID: "k2", RuleID: "fs.rm_root", Until: base.Add(4 * time.Minute)}, "b"},
		}
		for _, tc := range cases {
			got, next, err := s.Query(ctx, tc.f)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if ids := strings.Join(idsOf(got), ","); ids != tc.want || next != "" {
				t.Errorf("%s: got %q (next %q), want %q", tc.name, ids, next, tc.want)
			}
		}
		// Pages of 2 through everything, then of 1 through k1's.
		for _, pc := range []struct {
			f    Filter
			want string
		}{{Filter{Limit: 2}, "e2,e1,d,c,b,a"}, {Filter{Limit: 1, OwnerKeyID: "k1"}, "e2,e1,c,a"}} {
			var all []string
			f := pc.f
			for range 10 {
				got, next, err := s.Query(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) > f.Limit {
					t.Fatalf("page of %d entries, limit %d", len(got), f.Limit)
				}
				all = append(all, idsOf(got)...)
				if next == "" {
					break
				}
				f.Cursor = next
			}
			if strings.Join(all, ",") != pc.want {
				t.Errorf("paged %+v: got %v, want %s", pc.f, all, pc.want)
			}
		}
		if _, _, err := s.Query(ctx, Filter{Cursor: "not-a-cursor!"}); !errors.Is(err, ErrBadCursor) {
			t.Errorf("bad cursor: want ErrBadCursor, got %v", err)
		}
	})
}

// blockingLog blocks every Append until released; failingLog fails them.
type blockingLog struct {
	Log
	release chan struct{}
	mu      sync.Mutex
	got     []string
}

func (b *blockingLog) Append(ctx context.Context, e Entry) error {
	<-b.release
	b.mu.Lock()
	b.got = append(b.got, e.Request.Content)
	b.mu.Unlock()
	return nil
}

type failingLog struct{ Log }

func (failingLog) Append(context.Context, Entry) error { return errors.New("disk full") }

// TestRecordNeverBlocks: with a store that does not answer, Record returns
// for every entry (drops beyond the queue are counted), and what was queued
// is stored once the store answers; a failing store is counted, not raised.
func TestRecordNeverBlocks(t *testing.T) {
	bl := &blockingLog{release: make(chan struct{})}
	r := NewRecorder(bl, DefaultConfig(), 4, nil)
	done := make(chan struct{})
	go func() {
		for i := range 100 {
			e := secretEntry(fmt.Sprintf("r%d", i), time.Now())
			r.Record(e)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Record blocked on a store that does not answer")
	}
	close(bl.release)
	if err := r.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	appended, dropped, failed := r.Stats()
	if appended+dropped != 100 || failed != 0 {
		t.Fatalf("appended %d + dropped %d != 100 (failed %d)", appended, dropped, failed)
	}
	if appended != 4 || dropped != 96 {
		t.Errorf("a queue of 4 holds 4 entries, queued or being stored: appended %d, dropped %d", appended, dropped)
	}
	for _, c := range bl.got {
		if strings.Contains(c, ghToken) {
			t.Error("the Recorder handed unredacted content to the store")
		}
	}
	r.Close()

	fr := NewRecorder(failingLog{}, DefaultConfig(), 4, nil)
	fr.Record(entry("f1", time.Now(), "k", "bash", sdk.Allow))
	if err := fr.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, _, failed := fr.Stats(); failed != 1 {
		t.Errorf("a failing store: failed = %d, want 1", failed)
	}
	fr.Close()
	fr.Record(entry("after-close", time.Now(), "k", "bash", sdk.Allow)) // must not panic or block
}

// TestSQLiteFilePrivate: the database file is 0600 whatever the umask.
func TestSQLiteFilePrivate(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenSQLite(dir, DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Append(context.Background(), entry("p", time.Now(), "k", "bash", sdk.Allow)); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{"", "-wal"} {
		fi, err := os.Stat(filepath.Join(dir, DBFile+suffix))
		if err != nil {
			continue
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s%s mode %v, want 0600", DBFile, suffix, fi.Mode().Perm())
		}
	}
}

// TestAppendBatch: a batch is bounded and redacted like single appends
// (the newest max_entries kept, secrets never stored), in both stores.
func TestAppendBatch(t *testing.T) {
	cfg := Config{Enabled: true, MaxEntries: 5, Retention: time.Hour}
	forEachStore(t, cfg, func(t *testing.T, s store, c *clock) {
		ctx := context.Background()
		ba, ok := s.Log.(BatchAppender)
		if !ok {
			t.Fatalf("%T is not a BatchAppender", s.Log)
		}
		var es []Entry
		for i := range 7 {
			es = append(es, entry(fmt.Sprintf("e%d", i), c.now().Add(time.Duration(i)*time.Second), "k1", "bash", sdk.Allow))
		}
		es = append(es, secretEntry("e7", c.now().Add(7*time.Second)))
		if err := ba.AppendBatch(ctx, es); err != nil {
			t.Fatal(err)
		}
		got, err := s.Recent(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		if ids := idsOf(got); strings.Join(ids, ",") != "e7,e6,e5,e4,e3" {
			t.Fatalf("a batch of 8 with max 5: got %v", ids)
		}
		raw := s.raw()
		if !bytes.Contains(raw, []byte("API_TOKEN")) {
			t.Fatal("the secret entry is not in the stored bytes at all; the check below would prove nothing")
		}
		if bytes.Contains(raw, []byte(ghToken)) || bytes.Contains(raw, []byte(dbPass)) {
			t.Error("a batch stored a secret")
		}
		if err := ba.AppendBatch(ctx, []Entry{entry("ok", c.now(), "k1", "bash", sdk.Allow), {}}); err == nil {
			t.Error("a batch with an entry without scan_id was accepted")
		}
	})
}

// batchLog records the size of every batch; its first call waits for
// release, so entries queue up behind it. fail makes every call fail.
type batchLog struct {
	Log
	release chan struct{}
	fail    bool
	mu      sync.Mutex
	sizes   []int
	ids     []string
}

func (b *batchLog) Append(ctx context.Context, e Entry) error {
	return b.AppendBatch(ctx, []Entry{e})
}

func (b *batchLog) AppendBatch(_ context.Context, es []Entry) error {
	<-b.release
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sizes = append(b.sizes, len(es))
	if b.fail {
		return errors.New("disk full")
	}
	for _, e := range es {
		b.ids = append(b.ids, e.ScanID)
	}
	return nil
}

// TestRecorderBatches: entries that queued while the store was busy reach
// it in batches, all of them and in order; a failed batch counts every
// entry it held.
func TestRecorderBatches(t *testing.T) {
	for _, fail := range []bool{false, true} {
		bl := &batchLog{release: make(chan struct{}), fail: fail}
		r := NewRecorder(bl, DefaultConfig(), 256, nil)
		var want []string
		for i := range 200 {
			id := fmt.Sprintf("b%03d", i)
			want = append(want, id)
			r.Record(entry(id, time.Now(), "k", "bash", sdk.Allow))
		}
		close(bl.release)
		if err := r.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		r.Close()
		appended, dropped, failed := r.Stats()
		bl.mu.Lock()
		sizes, ids := bl.sizes, bl.ids
		bl.mu.Unlock()
		if dropped != 0 {
			t.Fatalf("fail=%v: %d dropped with a queue of 256", fail, dropped)
		}
		if len(sizes) < 2 || len(sizes) > 1+(200+maxBatch-1)/maxBatch {
			t.Errorf("fail=%v: 200 queued entries reached the store in %d calls %v", fail, len(sizes), sizes)
		}
		if fail {
			if failed != 200 || appended != 0 {
				t.Errorf("failing store: appended %d, failed %d, want 0 and 200", appended, failed)
			}
			continue
		}
		if appended != 200 || failed != 0 || strings.Join(ids, ",") != strings.Join(want, ",") {
			t.Errorf("appended %d failed %d; stored in order: %v", appended, failed, strings.Join(ids, ",") == strings.Join(want, ","))
		}
	}
}

// TestResanitize: what the Recorder's store does with an entry Record has
// sanitized (resanitize) is exactly what sanitizing it a second time does,
// for bounds below, at and above the content's length, so skipping the
// second Sanitize changes nothing stored.
func TestResanitize(t *testing.T) {
	at := time.Now().UTC()
	long := entry("long", at, "k1", "bash", sdk.Allow)
	long.Request.Content = strings.Repeat("a", 1000) + " " + ghToken + " password=" + dbPass + " " + strings.Repeat("b", 3000)
	for _, e := range []Entry{secretEntry("s", at), entry("plain", at, "k1", "bash", sdk.Allow), long} {
		for _, first := range []int{0, 100, 1010, 1024, 4096} {
			once := Sanitize(e, first)
			for _, second := range []int{0, 50, 100, 1010, 1024, 1024 + len(truncatedMarker), 4096} {
				want, err := json.Marshal(Sanitize(once, second))
				if err != nil {
					t.Fatal(err)
				}
				got, err := json.Marshal(resanitize(once, second))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s, bounds %d then %d: resanitize differs from a second Sanitize:\n got %s\nwant %s",
						e.ScanID, first, second, got, want)
				}
			}
		}
	}
}

// TestSQLiteCountExact: the SQLite store's kept count follows re-logged
// scan ids (replaced, not added) and survives a reopen, so pruning by the
// bound keeps exactly the newest max_entries — never fewer.
func TestSQLiteCountExact(t *testing.T) {
	cfg := Config{Enabled: true, MaxEntries: 4, Retention: time.Hour}
	c := newClock()
	dir := t.TempDir()
	ctx := context.Background()
	s, err := OpenSQLite(dir, cfg, c.now)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b", "a", "c", "b"} {
		if err := s.Append(ctx, entry(id, c.now(), "k1", "bash", sdk.Allow)); err != nil {
			t.Fatal(err)
		}
		c.add(time.Minute)
	}
	s.Close()
	if s, err = OpenSQLite(dir, cfg, c.now); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Append(ctx, entry("d", c.now(), "k1", "bash", sdk.Allow)); err != nil {
		t.Fatal(err)
	}
	got, err := s.Recent(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	// Four distinct ids under a bound of four: nothing pruned, the
	// re-logged a and b at their newer times.
	if ids := strings.Join(idsOf(got), ","); ids != "d,b,c,a" {
		t.Fatalf("after re-logged ids and a reopen: got %v, want d,b,c,a", ids)
	}
	if err := s.Append(ctx, entry("e", c.now().Add(time.Second), "k1", "bash", sdk.Allow)); err != nil {
		t.Fatal(err)
	}
	got, err = s.Recent(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	if ids := strings.Join(idsOf(got), ","); ids != "e,d,b,c" {
		t.Fatalf("one past the bound: got %v, want e,d,b,c", ids)
	}
}

// TestRecorderLingers: entries that arrive while the appender lingers reach
// the store in one call; Flush ends the linger at once (with a linger of an
// hour, Flush returning at all proves it), and so does Close, which stores
// them all.
func TestRecorderLingers(t *testing.T) {
	for _, end := range []string{"flush", "close"} {
		bl := &batchLog{release: make(chan struct{})}
		close(bl.release)
		r := newRecorder(bl, DefaultConfig(), 64, time.Hour, nil)
		for i := range 5 {
			r.Record(entry(fmt.Sprintf("l%d", i), time.Now(), "k", "bash", sdk.Allow))
			time.Sleep(2 * time.Millisecond) // the appender has taken the first one and lingers
		}
		if a, _, _ := r.Stats(); a != 0 {
			t.Fatalf("%s: %d entries stored during a linger of an hour", end, a)
		}
		if end == "flush" {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			if err := r.Flush(ctx); err != nil {
				t.Fatalf("Flush did not end the linger: %v", err)
			}
			cancel()
		}
		r.Close()
		appended, dropped, failed := r.Stats()
		bl.mu.Lock()
		sizes, ids := bl.sizes, strings.Join(bl.ids, ",")
		bl.mu.Unlock()
		if appended != 5 || dropped != 0 || failed != 0 || ids != "l0,l1,l2,l3,l4" {
			t.Errorf("%s: appended %d dropped %d failed %d, stored %s", end, appended, dropped, failed, ids)
		}
		if len(sizes) != 1 {
			t.Errorf("%s: 5 entries within one linger reached the store in %d calls %v, want 1", end, len(sizes), sizes)
		}
	}
}

// TestRecorderCloseLosesNothing: with Records racing Close, every entry is
// either stored or counted as dropped — none vanishes uncounted — and the
// entries recorded before Close began are all stored.
func TestRecorderCloseLosesNothing(t *testing.T) {
	bl := &batchLog{release: make(chan struct{})}
	close(bl.release)
	r := NewRecorder(bl, DefaultConfig(), 4096, nil)
	for i := range 100 {
		r.Record(entry(fmt.Sprintf("pre%03d", i), time.Now(), "k", "bash", sdk.Allow))
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				r.Record(entry(fmt.Sprintf("g%d-%03d", g, i), time.Now(), "k", "bash", sdk.Allow))
			}
		}()
	}
	r.Close()
	wg.Wait()
	appended, dropped, failed := r.Stats()
	if appended+dropped != 900 || failed != 0 {
		t.Fatalf("appended %d + dropped %d != 900 recorded (failed %d)", appended, dropped, failed)
	}
	bl.mu.Lock()
	defer bl.mu.Unlock()
	if len(bl.ids) != int(appended) {
		t.Fatalf("the store holds %d entries, the Recorder counted %d appended", len(bl.ids), appended)
	}
	for i, id := range bl.ids[:100] {
		if id != fmt.Sprintf("pre%03d", i) {
			t.Fatalf("entry %d recorded before Close is %s in the store", i, id)
		}
	}
}

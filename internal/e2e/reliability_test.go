package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestServeSIGKILLRestartOrphansRun kills `serve` (embedded store and
// executor) while a run is going, then starts it again on the same data
// dir: the run's record is orphaned, and no process of the run is left.
func TestServeSIGKILLRestartOrphansRun(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test: skipped with -short")
	}
	s := startServer(t, serverOpts{})
	marker := "sleep 1234." + randDigits(6)
	r := s.api.mustSubmit(t, marker, 1)
	if r.Status != "running" {
		t.Fatalf("status %q, want running", r.Status)
	}
	if pids, ok := awaitProcesses(marker, true, 30*time.Second); !ok {
		t.Fatalf("no %q process while running (pids %v)", marker, pids)
	}

	s.kill(t)
	s2 := s.restart(t)

	got := s2.api.awaitStatus(t, r.ExecutionID, "orphaned", 60*time.Second)
	if !got.IsError || got.Error == "" {
		t.Errorf("orphaned record: is_error %v error %q; want an error that says why", got.IsError, got.Error)
	}
	if pids, ok := awaitProcesses(marker, false, 30*time.Second); !ok {
		t.Fatalf("processes %v of the killed server's run are still alive after restart", pids)
	}
	// The orphan is final: the restarted executor does not run it again.
	time.Sleep(2 * time.Second)
	if pids := processesWith(marker); len(pids) != 0 {
		t.Fatalf("the orphaned run was started again: pids %v", pids)
	}
	if again := s2.api.mustGet(t, r.ExecutionID); again.Status != "orphaned" {
		t.Fatalf("status changed to %q after being orphaned", again.Status)
	}
	// And the restarted service works.
	ok := s2.api.mustSubmit(t, "echo after-restart", 60)
	if ok = settle(t, s2.api, ok); ok.Status != "completed" || ok.Result != "after-restart\n" {
		t.Fatalf("run after restart: status %q result %q", ok.Status, ok.Result)
	}
}

// TestConcurrentScanAndRun1000 posts 1000 `echo N` scan-and-run requests with
// 64 in flight: every one completes with its own output, ids are unique, and
// the store lists exactly those executions.
func TestConcurrentScanAndRun1000(t *testing.T) {
	if testing.Short() {
		t.Skip("load test: skipped with -short")
	}
	t.Run("embedded", func(t *testing.T) {
		s := startServer(t, serverOpts{Config: "executor_concurrency: 16\n"})
		concurrentEchoes(t, s.api, 1000, 64)
	})
	t.Run("redis", func(t *testing.T) {
		url, prefix := needRedis(t)
		s := startServer(t, serverOpts{RedisURL: url, RedisPrefix: prefix, Config: "executor_concurrency: 16\n"})
		concurrentEchoes(t, s.api, 1000, 64)
	})
}

// concurrentEchoes runs n `echo <conv>-<i>` requests with inFlight at once in
// one fresh conversation and checks each result and the stored set.
func concurrentEchoes(t *testing.T, c *client, n, inFlight int) {
	conv := "load-" + randHex(6)
	type outcome struct {
		id     string
		status string
		result string
		err    string
	}
	out := make([]outcome, n)
	sem := make(chan struct{}, inFlight)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			cmd := fmt.Sprintf("echo %s-%d", conv, i)
			code, body, err := c.do(context.Background(), http.MethodPost, "/v1/executions",
				submitReq{Command: cmd, WaitSeconds: seconds(120), ConversationID: conv})
			if err != nil || (code != http.StatusOK && code != http.StatusAccepted) {
				out[i].err = fmt.Sprintf("submit: HTTP %d %v: %.300s", code, err, body)
				return
			}
			var r record
			if err := json.Unmarshal(body, &r); err != nil {
				out[i].err = fmt.Sprintf("decode: %v", err)
				return
			}
			for tries := 0; !terminal(r.Status) && tries < 30; tries++ {
				code, w, body, err := c.wait(context.Background(), r.ExecutionID, 10)
				if err != nil || code != http.StatusOK {
					out[i].err = fmt.Sprintf("wait: HTTP %d %v: %.300s", code, err, body)
					return
				}
				r = w
			}
			out[i] = outcome{id: r.ExecutionID, status: r.Status, result: r.Result}
		}(i)
	}
	wg.Wait()

	seen := make(map[string]int, n)
	failed := 0
	for i, o := range out {
		want := fmt.Sprintf("%s-%d\n", conv, i)
		switch {
		case o.err != "":
			t.Errorf("request %d: %s", i, o.err)
		case o.status != "completed" || o.result != want:
			t.Errorf("request %d (%s): status %q result %q, want completed %q", i, o.id, o.status, o.result, want)
		case o.id == "":
			t.Errorf("request %d: no execution_id", i)
		}
		if o.err != "" || o.status != "completed" {
			failed++
		}
		if o.id != "" {
			if j, dup := seen[o.id]; dup {
				t.Errorf("requests %d and %d got the same execution_id %s", j, i, o.id)
			}
			seen[o.id] = i
		}
		if failed > 20 {
			t.Fatalf("stopping after %d failed requests", failed)
		}
	}

	// The store holds exactly these executions, each once, each completed.
	listed := listConversation(t, c, conv)
	if len(listed) != n {
		t.Errorf("the store lists %d executions of the conversation, want %d", len(listed), n)
	}
	for id, st := range listed {
		if _, ok := seen[id]; !ok {
			t.Errorf("the store lists %s (%s), which no request was given", id, st)
		}
		if st != "completed" {
			t.Errorf("stored %s is %s, want completed", id, st)
		}
	}
}

// listConversation pages through GET /v1/executions?conversation_id= and
// returns id → status, failing on a duplicate id across pages.
func listConversation(t *testing.T, c *client, conv string) map[string]string {
	t.Helper()
	got := map[string]string{}
	cursor := ""
	for page := 0; page < 100; page++ {
		path := "/v1/executions?limit=200&conversation_id=" + conv
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		code, body, err := c.do(context.Background(), http.MethodGet, path, nil)
		if err != nil || code != http.StatusOK {
			t.Fatalf("list: HTTP %d %v: %.300s", code, err, body)
		}
		var resp struct {
			Executions []record `json:"executions"`
			NextCursor string   `json:"next_cursor"`
		}
		if err := json.Unmarshal(body, &resp); err != nil {
			t.Fatalf("decode list: %v", err)
		}
		for _, r := range resp.Executions {
			if _, dup := got[r.ExecutionID]; dup {
				t.Errorf("list returned %s twice", r.ExecutionID)
			}
			got[r.ExecutionID] = r.Status
		}
		if resp.NextCursor == "" {
			return got
		}
		cursor = resp.NextCursor
	}
	t.Fatalf("list of %s did not end after 100 pages", conv)
	return nil
}

// settle waits for r to finish when the bounded wait returned it running.
func settle(t *testing.T, c *client, r record) record {
	t.Helper()
	if terminal(r.Status) {
		return r
	}
	return c.awaitTerminal(t, r.ExecutionID, 2*time.Minute)
}

// TestRedisRestartUnderLoad stops a private Redis (SIGKILL) while clients
// keep posting scan-and-run requests, then starts it again. During the
// outage requests fail with a clear 503 JSON error; after it they succeed;
// and every request that was acknowledged (HTTP 200/202 with an
// execution_id) is still readable and ends in a terminal state.
//
// The private Redis runs with appendonly yes and appendfsync always, so a
// write Redis acknowledged is on disk before the server answers the client,
// and a SIGKILL loses none of it. (With persistence off a restarted Redis is
// empty: that deployment trades durability for speed and is not what this
// test asserts.) What is not guaranteed is the outcome of a run that was
// going during the outage: its executor may fail to record the result, in
// which case reconciliation orphans it once its lease expires — so an
// acknowledged record ends completed (with its own output) or orphaned or
// failed, but it is never lost and never holds another request's output.
func TestRedisRestartUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("outage test: skipped with -short")
	}
	rs := startRedisServer(t)
	s := startServer(t, serverOpts{RedisURL: rs.url, RedisPrefix: "twe2e:" + randHex(4) + ":",
		Config: "executor_concurrency: 8\n"})

	type ack struct {
		id, want string
	}
	var (
		mu       sync.Mutex
		acks     []ack
		unavail  int
		badCodes []string
		phase    atomic.Int32 // 0 before the outage, 1 during, 2 after restart
		afterOK  atomic.Int32 // successes after the restart
		seq      atomic.Int64
	)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				n := seq.Add(1)
				cmd := fmt.Sprintf("echo load-%d", n)
				rctx, cancel := context.WithTimeout(ctx, 90*time.Second)
				code, body, err := s.api.do(rctx, http.MethodPost, "/v1/executions", submitReq{Command: cmd, WaitSeconds: seconds(5)})
				cancel()
				if ctx.Err() != nil {
					return
				}
				mu.Lock()
				switch {
				case err != nil:
					badCodes = append(badCodes, fmt.Sprintf("%s: %v", cmd, err))
				case code == http.StatusOK || code == http.StatusAccepted:
					var r record
					if jerr := json.Unmarshal(body, &r); jerr != nil || r.ExecutionID == "" {
						badCodes = append(badCodes, fmt.Sprintf("%s: HTTP %d without a record: %.200s", cmd, code, body))
						break
					}
					if r.Status == "completed" && r.Result != fmt.Sprintf("load-%d\n", n) {
						badCodes = append(badCodes, fmt.Sprintf("%s: completed with %q", cmd, r.Result))
					}
					acks = append(acks, ack{r.ExecutionID, fmt.Sprintf("load-%d\n", n)})
					if phase.Load() == 2 {
						afterOK.Add(1)
					}
				case code == http.StatusServiceUnavailable:
					var e apiError
					if jerr := json.Unmarshal(body, &e); jerr != nil || e.Error.Code != "store_unavailable" || e.Error.Message == "" {
						badCodes = append(badCodes, fmt.Sprintf("%s: 503 without the JSON error store_unavailable: %.200s", cmd, body))
					}
					unavail++
				default:
					badCodes = append(badCodes, fmt.Sprintf("%s: HTTP %d: %.200s", cmd, code, body))
				}
				mu.Unlock()
				if code == http.StatusServiceUnavailable {
					time.Sleep(50 * time.Millisecond)
				}
			}
		}()
	}

	waitFor := func(what string, d time.Duration, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(d)
		for !cond() {
			if time.Now().After(deadline) {
				stop()
				wg.Wait()
				t.Fatalf("timed out after %s waiting for %s", d, what)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	countAcks := func() int { mu.Lock(); defer mu.Unlock(); return len(acks) }
	countUnavail := func() int { mu.Lock(); defer mu.Unlock(); return unavail }

	waitFor("20 acknowledged requests before the outage", 2*time.Minute, func() bool { return countAcks() >= 20 })
	phase.Store(1)
	rs.kill(t)
	waitFor("503 responses during the outage", time.Minute, func() bool { return countUnavail() >= 3 })
	// Reads fail the same clear way while Redis is down.
	mu.Lock()
	first := acks[0].id
	mu.Unlock()
	if code, _, body, err := s.api.get(context.Background(), first); err != nil || code != http.StatusServiceUnavailable ||
		!strings.Contains(string(body), `"store_unavailable"`) {
		t.Errorf("GET %s during the outage: HTTP %d %v %.200s; want 503 store_unavailable", first, code, err, body)
	}
	rs.restart(t)
	phase.Store(2)
	waitFor("20 acknowledged requests after Redis restarted", 3*time.Minute, func() bool { return afterOK.Load() >= 20 })
	stop()
	wg.Wait()

	if len(badCodes) > 0 {
		t.Errorf("%d responses were neither acknowledged nor a JSON 503; first: %s", len(badCodes),
			strings.Join(badCodes[:min(5, len(badCodes))], "\n"))
	}
	t.Logf("%d acknowledged, %d answered 503 during the outage", len(acks), unavail)

	// Nothing acknowledged is lost.
	statuses := map[string]int{}
	for _, a := range acks {
		r := s.api.awaitTerminal(t, a.id, 3*time.Minute)
		statuses[r.Status]++
		switch r.Status {
		case "completed":
			if r.Result != a.want {
				t.Errorf("%s completed with %q, want %q", a.id, r.Result, a.want)
			}
		case "orphaned", "failed":
		default:
			t.Errorf("%s ended %s (%s): want completed, or orphaned/failed for a run the outage interrupted", a.id, r.Status, r.Error)
		}
	}
	t.Logf("final states of acknowledged executions: %v", statuses)
	if statuses["completed"] == 0 {
		t.Errorf("no acknowledged execution completed")
	}
}

// TestExecutorSIGKILLOrphansRun runs `serve --no-executor` and two remote
// `executor` daemons on one Redis, SIGKILLs the executor that holds a run,
// and checks that the other executor's reconciliation marks the record
// orphaned once the dead executor's lease expires: the record is never
// lost, never runs again, and never completes. The executors run with a
// 5 s lease (--lease), so the orphaning comes within seconds.
func TestExecutorSIGKILLOrphansRun(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test: skipped with -short")
	}
	needExecutorCommand(t)
	url, prefix := needRedis(t)
	s := startServer(t, serverOpts{RedisURL: url, RedisPrefix: prefix, NoExecutor: true})
	// A short lease keeps the test short: the dead executor's run is
	// orphaned about one lease plus one reconcile interval (= the lease)
	// after its last heartbeat.
	lease := []string{"--concurrency", "2", "--lease", "5s"}
	execs := []*proc{
		startExecutor(t, url, prefix, lease...),
		startExecutor(t, url, prefix, lease...),
	}

	marker := "sleep 1234." + randDigits(6)
	r := s.api.mustSubmit(t, marker, 1)
	if r.Status == "queued" {
		// The server queued it under prefix; an executor that reads another
		// prefix never claims it.
		code, w, body, err := s.api.wait(context.Background(), r.ExecutionID, 30)
		if err != nil || code != http.StatusOK {
			t.Fatalf("wait: HTTP %d %v: %.300s", code, err, body)
		}
		if w.Status == "queued" {
			t.Fatalf("no executor claimed the execution in 30 s: does `toolwarden executor` use the key prefix "+
				"TOOLWARDEN_REDIS_PREFIX=%q like `serve`?", prefix)
		}
	}
	s.api.awaitStatus(t, r.ExecutionID, "running", time.Minute)
	pids, ok := awaitProcesses(marker, true, 30*time.Second)
	if !ok {
		t.Fatalf("no %q process while running", marker)
	}
	var victim, survivor *proc
	for i, e := range execs {
		if descendsFrom(pids[0], e.cmd.Process.Pid) {
			victim, survivor = e, execs[1-i]
		}
	}
	if victim == nil {
		t.Fatalf("process %d of the run descends from neither executor (%d, %d)", pids[0],
			execs[0].cmd.Process.Pid, execs[1].cmd.Process.Pid)
	}

	victim.kill(t)
	got := s.api.awaitStatus(t, r.ExecutionID, "orphaned", 2*time.Minute)
	if !got.IsError || got.Error == "" {
		t.Errorf("orphaned record: is_error %v error %q; want an error that says why", got.IsError, got.Error)
	}
	if pids, ok := awaitProcesses(marker, false, 30*time.Second); !ok {
		t.Errorf("processes %v of the killed executor's run are still alive", pids)
	}
	// Never redelivered: the survivor does not start the run again, and the
	// record stays orphaned.
	time.Sleep(3 * time.Second)
	if pids := processesWith(marker); len(pids) != 0 {
		t.Fatalf("the orphaned run was started again: pids %v", pids)
	}
	if again := s.api.mustGet(t, r.ExecutionID); again.Status != "orphaned" || again.Attempt > 1 {
		t.Fatalf("after orphaning: status %q attempt %d; want orphaned, attempt 1", again.Status, again.Attempt)
	}
	if survivor.exited() {
		t.Fatalf("the surviving executor exited: %v", survivor.err)
	}
	after := settle(t, s.api, s.api.mustSubmit(t, "echo survivor", 60))
	if after.Status != "completed" || after.Result != "survivor\n" {
		t.Fatalf("run on the surviving executor: status %q result %q", after.Status, after.Result)
	}
}

// TestTwoServersShareOneRedis runs two API servers on one Redis — one with
// an embedded executor, one without — with the same admin key: work
// submitted to either runs, a bounded wait on one server sees a result
// written through the other, and a cancel sent to one server stops a run
// submitted to the other.
func TestTwoServersShareOneRedis(t *testing.T) {
	url, prefix := needRedis(t)
	key := "tw_e2e_" + randHex(16)
	a := startServer(t, serverOpts{RedisURL: url, RedisPrefix: prefix, Key: key})
	b := startServer(t, serverOpts{RedisURL: url, RedisPrefix: prefix, Key: key, NoExecutor: true})

	r := settle(t, b.api, b.api.mustSubmit(t, "echo via-b", 60))
	if r.Status != "completed" || r.Result != "via-b\n" {
		t.Fatalf("submitted to the server without executor: status %q result %q", r.Status, r.Result)
	}
	if got := a.api.mustGet(t, r.ExecutionID); got.Result != r.Result || got.Status != "completed" {
		t.Fatalf("the other server reads %s as %q %q", r.ExecutionID, got.Status, got.Result)
	}

	marker := "sleep 1234." + randDigits(6)
	long := b.api.mustSubmit(t, marker, 1)
	a.api.awaitStatus(t, long.ExecutionID, "running", time.Minute)
	if _, ok := awaitProcesses(marker, true, 30*time.Second); !ok {
		t.Fatalf("no %q process while running", marker)
	}
	code, body, err := a.api.do(context.Background(), http.MethodPost, "/v1/executions/"+long.ExecutionID+"/cancel",
		map[string]string{"reason": "e2e: cancel through the other server"})
	if err != nil || code != http.StatusOK {
		t.Fatalf("cancel via the other server: HTTP %d %v: %s", code, err, body)
	}
	if final := b.api.awaitTerminal(t, long.ExecutionID, time.Minute); final.Status != "cancelled" {
		t.Fatalf("after a cancel through the other server: status %q", final.Status)
	}
	if pids, ok := awaitProcesses(marker, false, 30*time.Second); !ok {
		t.Fatalf("cancelled run left processes %v", pids)
	}
}

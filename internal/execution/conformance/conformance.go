// Package conformance is the one test suite every execution.Backend must
// pass, so the embedded and Redis backends keep the same semantics.
package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/sdk"
)

// Run runs the whole suite as subtests of t.
//
// open must return a ready backend on an empty store and register its Close
// with t.Cleanup (Close must tolerate being called twice). When open is
// called a second time with the same *testing.T, after the first backend was
// closed, it must return a backend on the same store — that is how the suite
// checks restart durability (embedded: reopen the directory; Redis: a new
// client on the same key prefix).
func Run(t *testing.T, open func(t *testing.T) execution.Backend) {
	tests := []struct {
		name string
		fn   func(*testing.T, func(*testing.T) execution.Backend)
	}{
		{"CreateGet", testCreateGet},
		{"ListCursor", testListCursor},
		{"ClaimOrder", testClaimOrder},
		{"ClaimBlocksUntilEnqueue", testClaimBlocks},
		{"ConcurrentClaimersNeverShare", testConcurrentClaimers},
		{"FinishExactlyOnce", testFinishOnce},
		{"FinishAfterLeaseLossRejected", testFinishAfterLeaseLoss},
		{"UpdateRules", testUpdateRules},
		{"Cancel", testCancel},
		{"CancelConversation", testCancelConversation},
		{"WatchSeesTransitions", testWatch},
		{"BoundedWait", testBoundedWait},
		{"Reconcile", testReconcile},
		{"RestartDurability", testDurability},
		{"ThousandRecordsEightProducersFourWorkers", testMany},
		{"EnvHeldUntilClaim", testEnvHeldUntilClaim},
		{"EnvMissingFailsClaim", testEnvMissingFailsClaim},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open) })
	}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func newRecord(conv, tool string) *execution.Record {
	return &execution.Record{
		Status: execution.StatusQueued, ToolName: tool, ConversationID: conv,
		Language: "bash", Content: "echo hi", Cwd: "/tmp",
		TimeoutMS: 60000, OwnerKeyID: "key-1",
	}
}

func mustCreate(t *testing.T, b execution.Backend, r *execution.Record) *execution.Record {
	t.Helper()
	if err := b.Create(ctxT(t), r); err != nil {
		t.Fatalf("Create: %v", err)
	}
	return r
}

func mustClaim(t *testing.T, b execution.Backend, worker string) *execution.Record {
	t.Helper()
	r, err := b.Claim(ctxT(t), worker, 0)
	if err != nil {
		t.Fatalf("Claim(%s): %v", worker, err)
	}
	return r
}

func jsonOf(t *testing.T, r *execution.Record) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: got error %v, want %v", what, err, target)
	}
}

func testCreateGet(t *testing.T, open func(*testing.T) execution.Backend) {
	b := open(t)
	ctx := ctxT(t)
	col := 3
	r := newRecord("conv-a", "exec")
	r.SafetyReport = &sdk.SafetyReport{ScanID: "scan-1", Decision: sdk.Allow, RiskLevel: sdk.RiskNone,
		Findings: []sdk.Finding{{RuleID: "X", Column: &col, Metadata: map[string]any{"k": "v"}}}}
	mustCreate(t, b, r)
	if r.ExecutionID == "" || r.CreatedAt.IsZero() || r.Revision == 0 {
		t.Fatalf("Create did not fill id/created_at/revision: %+v", r)
	}
	got, err := b.Get(ctx, r.ExecutionID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if jsonOf(t, got) != jsonOf(t, r) {
		t.Fatalf("Get differs from created:\n got %s\nwant %s", jsonOf(t, got), jsonOf(t, r))
	}
	got.Content = "mutated"
	again, _ := b.Get(ctx, r.ExecutionID)
	if again.Content != "echo hi" {
		t.Fatalf("Get returned a shared pointer: content %q", again.Content)
	}

	dup := newRecord("conv-a", "exec")
	dup.ExecutionID = r.ExecutionID
	wantErr(t, "duplicate Create", b.Create(ctx, dup), execution.ErrExists)

	_, err = b.Get(ctx, "exe_missing")
	wantErr(t, "Get missing", err, execution.ErrNotFound)

	bad := newRecord("conv-a", "exec")
	bad.Status = execution.StatusRunning
	wantErr(t, "Create running", b.Create(ctx, bad), execution.ErrInvalidRecord)

	blocked := newRecord("conv-a", "exec")
	blocked.Status = execution.StatusBlocked
	mustCreate(t, b, blocked)
	if blocked.EndedAt == nil {
		t.Fatalf("blocked record has no ended_at")
	}
	if _, err := b.Claim(ctx, "w", 0); err != nil {
		t.Fatalf("queued record not claimable: %v", err)
	}
	_, err = b.Claim(ctx, "w", 0)
	wantErr(t, "Claim after the only queued record", err, execution.ErrNoWork)
}

func testListCursor(t *testing.T, open func(*testing.T) execution.Backend) {
	b := open(t)
	ctx := ctxT(t)
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var all []*execution.Record
	for i := 0; i < 23; i++ {
		conv := "conv-x"
		if i%3 == 0 {
			conv = "conv-y"
		}
		r := newRecord(conv, "exec")
		r.ExecutionID = fmt.Sprintf("exe_%02d", i)
		// Pairs share a timestamp so the id tie-break is exercised.
		r.CreatedAt = base.Add(time.Duration(i/2) * time.Millisecond)
		if i%4 == 0 {
			r.Status = execution.StatusPendingReview
		}
		if i%5 == 0 {
			r.OwnerKeyID = "key-2"
		}
		all = append(all, mustCreate(t, b, r))
	}
	sort.Slice(all, func(i, j int) bool {
		ui, ii := execution.SortKey(all[i])
		uj, ij := execution.SortKey(all[j])
		return execution.After(uj, ij, ui, ii)
	})
	check := func(f execution.Filter, want []*execution.Record) {
		t.Helper()
		var got []string
		cursor := ""
		pages := 0
		for {
			f.Cursor = cursor
			page, next, err := b.List(ctx, f)
			if err != nil {
				t.Fatalf("List(%+v): %v", f, err)
			}
			if len(page) > f.EffectiveLimit() {
				t.Fatalf("page of %d exceeds limit %d", len(page), f.EffectiveLimit())
			}
			for _, r := range page {
				got = append(got, r.ExecutionID)
			}
			pages++
			if next == "" {
				break
			}
			if pages > 100 {
				t.Fatalf("List never ends")
			}
			cursor = next
		}
		var wantIDs []string
		for _, r := range want {
			if f.Matches(r) {
				wantIDs = append(wantIDs, r.ExecutionID)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(wantIDs) {
			t.Fatalf("List(%+v):\n got %v\nwant %v", f, got, wantIDs)
		}
	}
	check(execution.Filter{Limit: 7}, all)
	check(execution.Filter{Limit: 1}, all)
	check(execution.Filter{}, all)
	check(execution.Filter{ConversationID: "conv-y", Limit: 2}, all)
	check(execution.Filter{Status: execution.StatusPendingReview, Limit: 3}, all)
	check(execution.Filter{Owner: "key-2", ConversationID: "conv-x", Limit: 2}, all)
	check(execution.Filter{ConversationID: "conv-none"}, all)

	_, _, err := b.List(ctx, execution.Filter{Cursor: "%%%not-a-cursor"})
	wantErr(t, "List with a bad cursor", err, execution.ErrInvalidRecord)
}

func testClaimOrder(t *testing.T, open func(*testing.T) execution.Backend) {
	b := open(t)
	ctx := ctxT(t)
	held := newRecord("c", "exec")
	held.Status = execution.StatusPendingReview
	mustCreate(t, b, held)
	var ids []string
	for i := 0; i < 5; i++ {
		ids = append(ids, mustCreate(t, b, newRecord("c", fmt.Sprint("tool", i))).ExecutionID)
	}
	for i, want := range ids {
		r := mustClaim(t, b, "w1")
		if r.ExecutionID != want {
			t.Fatalf("claim %d: got %s, want %s (FIFO)", i, r.ExecutionID, want)
		}
		if r.Status != execution.StatusRunning || r.WorkerID != "w1" || r.StartedAt == nil ||
			r.LeaseExpiresAt == nil || r.Attempt != 1 {
			t.Fatalf("claimed record not running under w1 with a lease: %+v", r)
		}
		stored, _ := b.Get(ctx, want)
		if stored.Status != execution.StatusRunning || stored.WorkerID != "w1" {
			t.Fatalf("claim not stored: %+v", stored)
		}
	}
	_, err := b.Claim(ctx, "w1", 0)
	wantErr(t, "Claim of an empty queue (pending_review is not queued)", err, execution.ErrNoWork)

	// Approving the held record enqueues it.
	if err := b.Update(ctx, held.ExecutionID, func(r *execution.Record) error {
		r.Status = execution.StatusQueued
		return nil
	}); err != nil {
		t.Fatalf("approve: %v", err)
	}
	if r := mustClaim(t, b, "w2"); r.ExecutionID != held.ExecutionID {
		t.Fatalf("approved record not claimed: got %s", r.ExecutionID)
	}
	_, err = b.Claim(ctx, "", 0)
	wantErr(t, "Claim with no worker id", err, execution.ErrInvalidRecord)
}

func testClaimBlocks(t *testing.T, open func(*testing.T) execution.Backend) {
	b := open(t)
	ctx := ctxT(t)
	_, err := b.Claim(ctx, "w", 20*time.Millisecond)
	wantErr(t, "Claim on an empty queue with a short wait", err, execution.ErrNoWork)

	type res struct {
		r   *execution.Record
		err error
	}
	ch := make(chan res, 1)
	started := make(chan struct{})
	go func() {
		close(started)
		r, err := b.Claim(ctx, "w", time.Minute)
		ch <- res{r, err}
	}()
	<-started
	r := mustCreate(t, b, newRecord("c", "exec"))
	got := <-ch
	if got.err != nil || got.r.ExecutionID != r.ExecutionID {
		t.Fatalf("blocked Claim: %v %v, want %s", got.r, got.err, r.ExecutionID)
	}

	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(10 * time.Millisecond); cancel() }()
	_, err = b.Claim(cctx, "w", time.Minute)
	if err == nil || errors.Is(err, execution.ErrNoWork) {
		t.Fatalf("Claim with a cancelled context: got %v, want the context error", err)
	}
}

func testConcurrentClaimers(t *testing.T, open func(*testing.T) execution.Backend) {
	b := open(t)
	const n = 60
	for i := 0; i < n; i++ {
		mustCreate(t, b, newRecord("c", "exec"))
	}
	seen := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(worker string) {
			defer wg.Done()
			for {
				r, err := b.Claim(context.Background(), worker, 0)
				if errors.Is(err, execution.ErrNoWork) {
					return
				}
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				if prev, dup := seen[r.ExecutionID]; dup {
					errs <- fmt.Errorf("%s claimed by %s and %s", r.ExecutionID, prev, worker)
				}
				seen[r.ExecutionID] = worker
				mu.Unlock()
			}
		}(fmt.Sprint("w", w))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(seen) != n {
		t.Fatalf("claimed %d distinct records, want %d", len(seen), n)
	}
}

func testFinishOnce(t *testing.T, open func(*testing.T) execution.Backend) {
	b := open(t)
	ctx := ctxT(t)
	r := mustCreate(t, b, newRecord("c", "exec"))
	claimed := mustClaim(t, b, "w1")
	if err := b.Heartbeat(ctx, "w1", r.ExecutionID); err != nil {
		t.Fatalf("Heartbeat: %v", err)
	}
	after, _ := b.Get(ctx, r.ExecutionID)
	if after.LeaseExpiresAt.Before(*claimed.LeaseExpiresAt) || after.Revision <= claimed.Revision {
		t.Fatalf("Heartbeat did not extend the lease: %v → %v", claimed.LeaseExpiresAt, after.LeaseExpiresAt)
	}
	wantErr(t, "Heartbeat by another worker", b.Heartbeat(ctx, "w2", r.ExecutionID), execution.ErrLeaseLost)

	// Partial output while running.
	if err := b.Update(ctx, r.ExecutionID, func(x *execution.Record) error {
		now := time.Now()
		x.PartialOutput, x.PartialOutputBytes, x.PartialOutputTruncated, x.PartialOutputUpdatedAt = "tail", 1000, true, &now
		return nil
	}); err != nil {
		t.Fatalf("Update partial output: %v", err)
	}

	code := 0
	final := &execution.Record{Status: execution.StatusCompleted, ExitCode: &code, Result: "hi\n",
		IsolationBackend: "cgroup_v2", Cleanup: execution.CleanupDone,
		ExecutionID: "ignored", Content: "ignored"}
	wantErr(t, "Finish by another worker", b.Finish(ctx, "w2", r.ExecutionID, final), execution.ErrLeaseLost)
	wantErr(t, "Finish with a non-terminal status",
		b.Finish(ctx, "w1", r.ExecutionID, &execution.Record{Status: execution.StatusQueued}), execution.ErrInvalidTransition)
	if err := b.Finish(ctx, "w1", r.ExecutionID, final); err != nil {
		t.Fatalf("Finish: %v", err)
	}
	done, _ := b.Get(ctx, r.ExecutionID)
	if done.Status != execution.StatusCompleted || done.Result != "hi\n" || done.ExitCode == nil || *done.ExitCode != 0 ||
		done.EndedAt == nil || done.IsolationBackend != "cgroup_v2" || done.Cleanup != execution.CleanupDone ||
		done.ExecutionID != r.ExecutionID || done.Content != "echo hi" || done.PartialOutput != "tail" {
		t.Fatalf("finished record wrong: %s", jsonOf(t, done))
	}
	second := &execution.Record{Status: execution.StatusFailed, Result: "overwrite"}
	wantErr(t, "second Finish", b.Finish(ctx, "w1", r.ExecutionID, second), execution.ErrAlreadyFinished)
	if err := b.Heartbeat(ctx, "w1", r.ExecutionID); err == nil {
		t.Fatalf("Heartbeat after Finish succeeded")
	}
	wantErr(t, "Update of a terminal result", b.Update(ctx, r.ExecutionID, func(x *execution.Record) error {
		x.Result = "rewritten"
		return nil
	}), execution.ErrAlreadyFinished)
	if err := b.Update(ctx, r.ExecutionID, func(x *execution.Record) error {
		x.Cleanup, x.CleanupDetail = execution.CleanupFailed, "cgroup /x still populated"
		return nil
	}); err != nil {
		t.Fatalf("recording a later cleanup failure: %v", err)
	}
	last, _ := b.Get(ctx, r.ExecutionID)
	if last.Result != "hi\n" || last.Cleanup != execution.CleanupFailed || last.Status != execution.StatusCompleted {
		t.Fatalf("after cleanup update: %s", jsonOf(t, last))
	}
	wantErr(t, "Finish of an unknown id", b.Finish(ctx, "w1", "exe_nope", final), execution.ErrNotFound)
}

func testFinishAfterLeaseLoss(t *testing.T, open func(*testing.T) execution.Backend) {
	b := open(t)
	ctx := ctxT(t)
	r := mustCreate(t, b, newRecord("c", "exec"))
	mustClaim(t, b, "w-dead")
	ids, err := b.Reconcile(ctx, []string{"w-alive"})
	if err != nil || len(ids) != 1 || ids[0] != r.ExecutionID {
		t.Fatalf("Reconcile: %v %v, want [%s]", ids, err, r.ExecutionID)
	}
	code := 0
	wantErr(t, "Finish after the lease was lost",
		b.Finish(ctx, "w-dead", r.ExecutionID, &execution.Record{Status: execution.StatusCompleted, ExitCode: &code}),
		execution.ErrLeaseLost)
	wantErr(t, "Heartbeat after the lease was lost", b.Heartbeat(ctx, "w-dead", r.ExecutionID), execution.ErrLeaseLost)
	got, _ := b.Get(ctx, r.ExecutionID)
	if got.Status != execution.StatusOrphaned || got.Cleanup != execution.CleanupUnconfirmed || !got.IsError ||
		got.StatusReason == "" || got.EndedAt == nil {
		t.Fatalf("orphaned record: %s", jsonOf(t, got))
	}
	_, err = b.Claim(ctx, "w-alive", 0)
	wantErr(t, "orphaned work is not redelivered", err, execution.ErrNoWork)
}

func testUpdateRules(t *testing.T, open func(*testing.T) execution.Backend) {
	b := open(t)
	ctx := ctxT(t)
	q := mustCreate(t, b, newRecord("c", "exec"))
	wantErr(t, "Update queued → running", b.Update(ctx, q.ExecutionID, func(r *execution.Record) error {
		r.Status = execution.StatusRunning
		return nil
	}), execution.ErrInvalidTransition)
	wantErr(t, "Update of the worker id", b.Update(ctx, q.ExecutionID, func(r *execution.Record) error {
		r.WorkerID = "sneaky"
		return nil
	}), execution.ErrInvalidRecord)
	sentinel := errors.New("abort")
	wantErr(t, "fn error", b.Update(ctx, q.ExecutionID, func(r *execution.Record) error {
		r.Content = "changed"
		return sentinel
	}), sentinel)
	if got, _ := b.Get(ctx, q.ExecutionID); got.Content != "echo hi" || got.Revision != q.Revision {
		t.Fatalf("aborted update was stored: %s", jsonOf(t, got))
	}
	wantErr(t, "Update of a missing record", b.Update(ctx, "exe_nope", func(*execution.Record) error { return nil }),
		execution.ErrNotFound)

	p := newRecord("c", "exec")
	p.Status = execution.StatusPendingReview
	mustCreate(t, b, p)
	if err := b.Update(ctx, p.ExecutionID, func(r *execution.Record) error {
		r.Status, r.StatusReason = execution.StatusBlocked, "rejected by reviewer"
		return nil
	}); err != nil {
		t.Fatalf("reject: %v", err)
	}
	got, _ := b.Get(ctx, p.ExecutionID)
	if got.Status != execution.StatusBlocked || got.EndedAt == nil || got.Revision != p.Revision+1 {
		t.Fatalf("rejected record: %s", jsonOf(t, got))
	}
	wantErr(t, "Update blocked → queued", b.Update(ctx, p.ExecutionID, func(r *execution.Record) error {
		r.Status = execution.StatusQueued
		return nil
	}), execution.ErrAlreadyFinished)
	// The queued record is still the only claimable one.
	if r := mustClaim(t, b, "w"); r.ExecutionID != q.ExecutionID {
		t.Fatalf("claimed %s, want %s", r.ExecutionID, q.ExecutionID)
	}
	wantErr(t, "Update running → completed bypasses Finish", b.Update(ctx, q.ExecutionID, func(r *execution.Record) error {
		r.Status = execution.StatusCompleted
		return nil
	}), execution.ErrInvalidTransition)
}

func testCancel(t *testing.T, open func(*testing.T) execution.Backend) {
	b := open(t)
	ctx := ctxT(t)
	q := mustCreate(t, b, newRecord("c", "exec"))
	p := newRecord("c", "exec")
	p.Status = execution.StatusPendingReview
	mustCreate(t, b, p)
	run := mustCreate(t, b, newRecord("c", "exec"))

	got, err := b.RequestCancel(ctx, q.ExecutionID, "user stop")
	if err != nil || got.Status != execution.StatusCancelled || got.EndedAt == nil || got.StatusReason != "user stop" {
		t.Fatalf("cancel queued: %v %+v", err, got)
	}
	if got, err := b.RequestCancel(ctx, p.ExecutionID, "user stop"); err != nil || got.Status != execution.StatusCancelled {
		t.Fatalf("cancel pending_review: %v %+v", err, got)
	}
	// The cancelled queued record must not be delivered.
	c := mustClaim(t, b, "w1")
	if c.ExecutionID != run.ExecutionID {
		t.Fatalf("claimed %s, want %s (cancelled work skipped)", c.ExecutionID, run.ExecutionID)
	}
	if req, err := b.CancelRequested(ctx, run.ExecutionID); err != nil || req {
		t.Fatalf("CancelRequested before cancel: %v %v", req, err)
	}
	got, err = b.RequestCancel(ctx, run.ExecutionID, "conversation ended")
	if err != nil || got.Status != execution.StatusRunning || !got.CancelRequested || got.CancelReason != "conversation ended" {
		t.Fatalf("cancel running: %v %+v", err, got)
	}
	if req, err := b.CancelRequested(ctx, run.ExecutionID); err != nil || !req {
		t.Fatalf("CancelRequested after cancel: %v %v", req, err)
	}
	if err := b.Finish(ctx, "w1", run.ExecutionID, &execution.Record{Status: execution.StatusCancelled,
		Error: "cancelled", IsError: true, Cleanup: execution.CleanupDone}); err != nil {
		t.Fatalf("Finish cancelled: %v", err)
	}
	got, err = b.RequestCancel(ctx, run.ExecutionID, "again")
	if err != nil || got.Status != execution.StatusCancelled || got.CancelReason != "conversation ended" {
		t.Fatalf("cancel of a terminal record must leave it as it is: %v %+v", err, got)
	}
	_, err = b.RequestCancel(ctx, "exe_nope", "x")
	wantErr(t, "cancel missing", err, execution.ErrNotFound)
	_, err = b.Claim(ctx, "w1", 0)
	wantErr(t, "queue after cancels", err, execution.ErrNoWork)
}

func testCancelConversation(t *testing.T, open func(*testing.T) execution.Backend) {
	b := open(t)
	ctx := ctxT(t)
	mine1 := mustCreate(t, b, newRecord("mine", "exec"))
	other := mustCreate(t, b, newRecord("other", "exec"))
	mine2 := mustCreate(t, b, newRecord("mine", "exec"))
	mustClaim(t, b, "w") // mine1 → running
	ids, err := execution.CancelConversation(ctx, b, "mine", "conversation ended")
	if err != nil {
		t.Fatalf("CancelConversation: %v", err)
	}
	sort.Strings(ids)
	want := []string{mine1.ExecutionID, mine2.ExecutionID}
	sort.Strings(want)
	if fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Fatalf("cancelled %v, want %v", ids, want)
	}
	if r, _ := b.Get(ctx, other.ExecutionID); r.Status != execution.StatusQueued || r.CancelRequested {
		t.Fatalf("other conversation touched: %+v", r)
	}
	if r, _ := b.Get(ctx, mine1.ExecutionID); !r.CancelRequested {
		t.Fatalf("running record of the conversation not flagged")
	}
	if r, _ := b.Get(ctx, mine2.ExecutionID); r.Status != execution.StatusCancelled {
		t.Fatalf("queued record of the conversation not cancelled: %s", r.Status)
	}
}

func recv(t *testing.T, ch <-chan *execution.Record) *execution.Record {
	t.Helper()
	select {
	case r, ok := <-ch:
		if !ok {
			t.Fatalf("watch channel closed early")
		}
		return r
	case <-time.After(30 * time.Second):
		t.Fatalf("no watch event within 30s")
	}
	return nil
}

func testWatch(t *testing.T, open func(*testing.T) execution.Backend) {
	b := open(t)
	ctx := ctxT(t)
	r := mustCreate(t, b, newRecord("c", "exec"))
	ch, err := b.Watch(ctx, r.ExecutionID)
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	if got := recv(t, ch); got.Status != execution.StatusQueued {
		t.Fatalf("first watch event %s, want queued", got.Status)
	}
	mustClaim(t, b, "w")
	if got := recv(t, ch); got.Status != execution.StatusRunning {
		t.Fatalf("watch event %s, want running", got.Status)
	}
	if err := b.Update(ctx, r.ExecutionID, func(x *execution.Record) error {
		x.PartialOutput = "line 1\n"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, ch); got.PartialOutput != "line 1\n" {
		t.Fatalf("watch did not see partial output: %+v", got)
	}
	if err := b.Finish(ctx, "w", r.ExecutionID, &execution.Record{Status: execution.StatusFailed, Error: "boom", IsError: true}); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, ch); got.Status != execution.StatusFailed || got.Error != "boom" {
		t.Fatalf("watch event %+v, want failed", got)
	}
	select {
	case _, ok := <-ch:
		if ok {
			t.Fatalf("watch channel still open after a terminal record")
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("watch channel not closed after a terminal record")
	}

	_, err = b.Watch(ctx, "exe_nope")
	wantErr(t, "Watch of a missing record", err, execution.ErrNotFound)

	// A cancelled context closes the channel.
	r2 := mustCreate(t, b, newRecord("c", "exec"))
	wctx, cancel := context.WithCancel(ctx)
	ch2, err := b.Watch(wctx, r2.ExecutionID)
	if err != nil {
		t.Fatal(err)
	}
	recv(t, ch2)
	cancel()
	for range ch2 {
	}
}

func testReconcile(t *testing.T, open func(*testing.T) execution.Backend) {
	b := open(t)
	ctx := ctxT(t)
	r1 := mustCreate(t, b, newRecord("c", "exec"))
	r2 := mustCreate(t, b, newRecord("c", "exec"))
	q := mustCreate(t, b, newRecord("c", "exec"))
	mustClaim(t, b, "w1")
	mustClaim(t, b, "w2")
	if ids, err := b.Reconcile(ctx, []string{"w1", "w2"}); err != nil || len(ids) != 0 {
		t.Fatalf("Reconcile with all workers alive: %v %v", ids, err)
	}
	if ids, err := b.Reconcile(ctx, nil); err != nil || len(ids) != 0 {
		t.Fatalf("Reconcile by fresh leases: %v %v", ids, err)
	}
	ids, err := b.Reconcile(ctx, []string{"w1"})
	if err != nil || len(ids) != 1 || ids[0] != r2.ExecutionID {
		t.Fatalf("Reconcile without w2: %v %v, want [%s]", ids, err, r2.ExecutionID)
	}
	for id, want := range map[string]execution.Status{r1.ExecutionID: execution.StatusRunning,
		r2.ExecutionID: execution.StatusOrphaned, q.ExecutionID: execution.StatusQueued} {
		if got, _ := b.Get(ctx, id); got.Status != want {
			t.Fatalf("%s is %s, want %s", id, got.Status, want)
		}
	}
	if ids, err := b.Reconcile(ctx, []string{}); err != nil || len(ids) != 1 || ids[0] != r1.ExecutionID {
		t.Fatalf("Reconcile with no live worker: %v %v", ids, err)
	}
}

func testDurability(t *testing.T, open func(*testing.T) execution.Backend) {
	b := open(t)
	ctx := ctxT(t)
	q1 := mustCreate(t, b, newRecord("c", "exec"))
	q2 := mustCreate(t, b, newRecord("c", "exec"))
	p := newRecord("c", "exec")
	p.Status = execution.StatusPendingReview
	mustCreate(t, b, p)
	q3 := mustCreate(t, b, newRecord("c", "exec"))
	// q1 finishes before the restart; q2 and q3 stay queued across it.
	c1 := mustClaim(t, b, "w")
	if c1.ExecutionID != q1.ExecutionID {
		t.Fatalf("claimed %s, want %s", c1.ExecutionID, q1.ExecutionID)
	}
	code := 3
	if err := b.Finish(ctx, "w", q1.ExecutionID, &execution.Record{Status: execution.StatusCompleted, ExitCode: &code,
		Result: "canonical"}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, id := range []string{q1.ExecutionID, q2.ExecutionID, p.ExecutionID, q3.ExecutionID} {
		r, err := b.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		want[id] = jsonOf(t, r)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	_, err := b.Get(ctx, q1.ExecutionID)
	if err == nil {
		t.Fatalf("Get after Close succeeded")
	}

	b2 := open(t)
	for id, w := range want {
		r, err := b2.Get(ctx, id)
		if err != nil {
			t.Fatalf("after reopen, Get %s: %v", id, err)
		}
		if got := jsonOf(t, r); got != w {
			t.Fatalf("after reopen %s:\n got %s\nwant %s", id, got, w)
		}
	}
	for _, id := range []string{q2.ExecutionID, q3.ExecutionID} {
		if r := mustClaim(t, b2, "w2"); r.ExecutionID != id {
			t.Fatalf("after reopen claimed %s, want %s", r.ExecutionID, id)
		}
	}
	_, err = b2.Claim(ctx, "w2", 0)
	wantErr(t, "queue after reopen", err, execution.ErrNoWork)
}

func testMany(t *testing.T, open func(*testing.T) execution.Backend) {
	if testing.Short() {
		t.Skip("1000-record run skipped in -short mode")
	}
	b := open(t)
	const producers, per, workers = 8, 125, 4
	ctx := ctxT(t)
	created := make(chan string, producers*per)
	var pwg sync.WaitGroup
	for p := 0; p < producers; p++ {
		pwg.Add(1)
		go func(p int) {
			defer pwg.Done()
			for i := 0; i < per; i++ {
				r := newRecord(fmt.Sprint("conv-", p), "exec")
				if err := b.Create(ctx, r); err != nil {
					t.Errorf("Create: %v", err)
					return
				}
				created <- r.ExecutionID
			}
		}(p)
	}
	allCreated := make(chan struct{})
	go func() { pwg.Wait(); close(allCreated) }()

	var mu sync.Mutex
	claims := map[string]int{}
	var wwg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wwg.Add(1)
		go func(worker string) {
			defer wwg.Done()
			for {
				r, err := b.Claim(ctx, worker, 50*time.Millisecond)
				if errors.Is(err, execution.ErrNoWork) {
					select {
					case <-allCreated:
						// Producers are done; one more empty claim means drained.
						if r, err = b.Claim(ctx, worker, 0); errors.Is(err, execution.ErrNoWork) {
							return
						}
					default:
						continue
					}
				}
				if err != nil {
					t.Errorf("Claim: %v", err)
					return
				}
				mu.Lock()
				claims[r.ExecutionID]++
				mu.Unlock()
				code := 0
				if err := b.Finish(ctx, worker, r.ExecutionID, &execution.Record{Status: execution.StatusCompleted,
					ExitCode: &code, Result: r.ExecutionID}); err != nil {
					t.Errorf("Finish %s: %v", r.ExecutionID, err)
					return
				}
			}
		}(fmt.Sprint("worker-", w))
	}
	wwg.Wait()
	close(created)
	n := 0
	for id := range created {
		n++
		if claims[id] != 1 {
			t.Fatalf("%s claimed %d times, want exactly once", id, claims[id])
		}
		r, err := b.Get(ctx, id)
		if err != nil || r.Status != execution.StatusCompleted || r.Result != id {
			t.Fatalf("%s after the run: %v %+v", id, err, r)
		}
	}
	if n != producers*per || len(claims) != n {
		t.Fatalf("created %d, claimed %d distinct, want %d", n, len(claims), producers*per)
	}
}

func testBoundedWait(t *testing.T, open func(*testing.T) execution.Backend) {
	b := open(t)
	ctx := ctxT(t)
	r := mustCreate(t, b, newRecord("c", "exec"))
	got, done, err := execution.Wait(ctx, b, r.ExecutionID, 20*time.Millisecond)
	if err != nil || done || got == nil || got.Status != execution.StatusQueued {
		t.Fatalf("Wait that times out must be a successful observation: %v %v %+v", err, done, got)
	}
	got, done, err = execution.Wait(ctx, b, r.ExecutionID, 0)
	if err != nil || done || got.Status != execution.StatusQueued {
		t.Fatalf("Wait(0) is a get: %v %v %+v", err, done, got)
	}
	mustClaim(t, b, "w")
	go func() {
		time.Sleep(20 * time.Millisecond)
		b.Finish(context.Background(), "w", r.ExecutionID, &execution.Record{Status: execution.StatusHardTimeout,
			Error: "hard timeout", IsError: true})
	}()
	got, done, err = execution.Wait(ctx, b, r.ExecutionID, time.Minute)
	if err != nil || !done || got.Status != execution.StatusHardTimeout {
		t.Fatalf("Wait for the end: %v %v %+v", err, done, got)
	}
	got, done, err = execution.Wait(ctx, b, r.ExecutionID, time.Minute)
	if err != nil || !done || got.Status != execution.StatusHardTimeout {
		t.Fatalf("Wait on a finished record: %v %v %+v", err, done, got)
	}
	_, _, err = execution.Wait(ctx, b, "exe_nope", time.Second)
	wantErr(t, "Wait on a missing record", err, execution.ErrNotFound)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := execution.Wait(cctx, b, mustCreate(t, b, newRecord("c", "exec")).ExecutionID, time.Minute); err == nil {
		t.Fatalf("Wait with a cancelled context succeeded")
	}
}

package scanlog

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolwarden/toolwarden/internal/engine/telemetry"
)

// Recorder appends entries to a Log in the background: Record never blocks
// and never fails the caller (a scan). When the queue is full (queueSize
// entries waiting or in the batch being stored) the entry is dropped; drops and store failures are counted in
// toolwarden_scanlog_dropped_total{reason}. Reads pass straight to the Log.
//
// The appender lingers: once an entry arrives it waits up to DefaultLinger
// for more (or until a batch is full, Flush is called or the Recorder is
// closed) and stores them together, so under load the store commits (and
// syncs) once per linger rather than once per scan. An entry is therefore
// readable through the Log up to the linger after its scan; Flush makes it
// readable at once. Close stores everything recorded before it.
type Recorder struct {
	Log
	maxContent int
	linger     time.Duration
	queue      chan Entry
	wg         sync.WaitGroup
	closeOnce  sync.Once
	closed     chan struct{}
	// kick cuts a linger short (Flush).
	kick chan struct{}
	// gate orders Record against Close: Record queues under the read
	// lock, Close marks the Recorder closed under the write lock, so an
	// entry is either queued before the appender's final drain or
	// counted as dropped (reason closed), never lost unseen.
	gate     sync.RWMutex
	isClosed bool
	logger   *slog.Logger

	// counters, also exported as metrics, so tests read them directly
	dropped, failed, appended atomic.Int64
	// pending counts entries queued or being appended.
	pending atomic.Int64
}

// DefaultLinger is how long the appender waits for more entries after one
// arrives before it stores what it holds.
const DefaultLinger = 20 * time.Millisecond

var (
	metricsOnce sync.Once
	droppedVec  *prometheus.CounterVec
)

func dropCounter() *prometheus.CounterVec {
	metricsOnce.Do(func() {
		droppedVec = prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolwarden_scanlog_dropped_total",
			Help: "Scan log entries not stored, by reason (queue_full: the store fell behind; store_error: the append failed; closed: recorded after shutdown began).",
		}, []string{"reason"})
		_ = telemetry.Registry().Register(droppedVec)
	})
	return droppedVec
}

// NewRecorder starts the background appender of l with a queue of
// queueSize entries (DefaultQueueSize when <= 0) and a linger of
// DefaultLinger. Close stops it.
func NewRecorder(l Log, cfg Config, queueSize int, logger *slog.Logger) *Recorder {
	return newRecorder(l, cfg, queueSize, DefaultLinger, logger)
}

// newRecorder is NewRecorder with the linger given (none when <= 0).
func newRecorder(l Log, cfg Config, queueSize int, linger time.Duration, logger *slog.Logger) *Recorder {
	if queueSize <= 0 {
		queueSize = DefaultQueueSize
	}
	if logger == nil {
		logger = slog.Default()
	}
	cfg = cfg.WithDefaults()
	r := &Recorder{Log: l, maxContent: cfg.MaxContentBytes, linger: linger, queue: make(chan Entry, queueSize),
		closed: make(chan struct{}), kick: make(chan struct{}, 1), logger: logger}
	dropCounter()
	r.wg.Add(1)
	go r.run()
	return r
}

// Record queues e for storage, sanitized first (so not even the queue holds
// env values or unredacted content). It returns at once.
func (r *Recorder) Record(e Entry) {
	if r == nil {
		return
	}
	e = Sanitize(e, r.maxContent)
	r.gate.RLock()
	defer r.gate.RUnlock()
	if r.isClosed {
		r.drop("closed")
		return
	}
	// The bound is on entries held, queued or in the batch being stored
	// (which the worker has already taken off the queue): at most the
	// queue's size, however the worker batches.
	if r.pending.Add(1) > int64(cap(r.queue)) {
		r.pending.Add(-1)
		r.drop("queue_full")
		return
	}
	select {
	case r.queue <- e:
	default:
		// Not reached (every queued entry is pending); never block.
		r.pending.Add(-1)
		r.drop("queue_full")
	}
}

// drop counts one entry not stored.
func (r *Recorder) drop(reason string) {
	r.dropped.Add(1)
	dropCounter().WithLabelValues(reason).Inc()
}

// maxBatch bounds how many queued entries one store call takes.
const maxBatch = 128

func (r *Recorder) run() {
	defer r.wg.Done()
	batch := make([]Entry, 0, maxBatch)
	for {
		select {
		case e := <-r.queue:
			r.append(r.wait(r.fill(append(batch[:0], e))))
		case <-r.closed:
			// Close holds back every further Record: drain what is
			// queued, then stop.
			for {
				select {
				case e := <-r.queue:
					r.append(r.fill(append(batch[:0], e)))
				default:
					return
				}
			}
		}
	}
}

// fill adds to batch what is already queued, without waiting, up to
// maxBatch entries.
func (r *Recorder) fill(batch []Entry) []Entry {
	for len(batch) < maxBatch {
		select {
		case e := <-r.queue:
			batch = append(batch, e)
		default:
			return batch
		}
	}
	return batch
}

// wait is the linger: it adds entries to batch as they arrive until the
// batch is full, the linger has passed since the first one, Flush kicks
// or the Recorder closes (whose drain then takes the rest).
func (r *Recorder) wait(batch []Entry) []Entry {
	if r.linger <= 0 || len(batch) >= maxBatch {
		return batch
	}
	t := time.NewTimer(r.linger)
	defer t.Stop()
	for len(batch) < maxBatch {
		select {
		case e := <-r.queue:
			batch = append(batch, e)
		case <-t.C:
			return batch
		case <-r.kick:
			return r.fill(batch)
		case <-r.closed:
			return r.fill(batch)
		}
	}
	return batch
}

// append stores batch: in one call when the Log is a BatchAppender,
// otherwise entry by entry. A failure counts every entry it lost.
func (r *Recorder) append(batch []Entry) {
	defer r.pending.Add(-int64(len(batch)))
	// The batch's array is reused: drop the entries once stored, so it
	// does not keep up to maxBatch entries' content alive between bursts.
	defer clear(batch)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if sa, ok := r.Log.(sanitizedAppender); ok {
		// Record sanitized every queued entry; the store does not again.
		if err := sa.appendSanitized(ctx, batch); err != nil {
			r.failed.Add(int64(len(batch)))
			dropCounter().WithLabelValues("store_error").Add(float64(len(batch)))
			r.logger.Warn("scan log append failed", "entries", len(batch), "first_scan_id", batch[0].ScanID, "err", err)
			return
		}
		r.appended.Add(int64(len(batch)))
		return
	}
	if ba, ok := r.Log.(BatchAppender); ok && len(batch) > 1 {
		if err := ba.AppendBatch(ctx, batch); err != nil {
			r.failed.Add(int64(len(batch)))
			dropCounter().WithLabelValues("store_error").Add(float64(len(batch)))
			r.logger.Warn("scan log append failed", "entries", len(batch), "first_scan_id", batch[0].ScanID, "err", err)
			return
		}
		r.appended.Add(int64(len(batch)))
		return
	}
	for _, e := range batch {
		if err := r.Log.Append(ctx, e); err != nil {
			r.failed.Add(1)
			dropCounter().WithLabelValues("store_error").Inc()
			r.logger.Warn("scan log append failed", "scan_id", e.ScanID, "err", err)
			continue
		}
		r.appended.Add(1)
	}
}

// Stats reports entries appended, dropped because the queue was full, and
// failed in the store, since the Recorder started.
func (r *Recorder) Stats() (appended, dropped, failed int64) {
	return r.appended.Load(), r.dropped.Load(), r.failed.Load()
}

// Flush waits until every entry queued before the call has been handed to
// the store (appended or failed) or ctx ends; it cuts the appender's
// linger short.
func (r *Recorder) Flush(ctx context.Context) error {
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	for r.pending.Load() > 0 {
		select {
		case r.kick <- struct{}{}:
		default:
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// Close stores what is queued and stops the appender; it does not close
// the Log. An entry recorded once Close has begun is counted as dropped
// (reason closed).
func (r *Recorder) Close() {
	if r == nil {
		return
	}
	r.closeOnce.Do(func() {
		r.gate.Lock()
		r.isClosed = true
		r.gate.Unlock()
		close(r.closed)
	})
	r.wg.Wait()
}

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
type Recorder struct {
	Log
	maxContent int
	queue      chan Entry
	wg         sync.WaitGroup
	closeOnce  sync.Once
	closed     chan struct{}
	logger     *slog.Logger

	// counters, also exported as metrics, so tests read them directly
	dropped, failed, appended atomic.Int64
	// pending counts entries queued or being appended.
	pending atomic.Int64
}

var (
	metricsOnce sync.Once
	droppedVec  *prometheus.CounterVec
)

func dropCounter() *prometheus.CounterVec {
	metricsOnce.Do(func() {
		droppedVec = prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolwarden_scanlog_dropped_total",
			Help: "Scan log entries not stored, by reason (queue_full: the store fell behind; store_error: the append failed).",
		}, []string{"reason"})
		_ = telemetry.Registry().Register(droppedVec)
	})
	return droppedVec
}

// NewRecorder starts the background appender of l with a queue of
// queueSize entries (DefaultQueueSize when <= 0). Close stops it.
func NewRecorder(l Log, cfg Config, queueSize int, logger *slog.Logger) *Recorder {
	if queueSize <= 0 {
		queueSize = DefaultQueueSize
	}
	if logger == nil {
		logger = slog.Default()
	}
	cfg = cfg.WithDefaults()
	r := &Recorder{Log: l, maxContent: cfg.MaxContentBytes, queue: make(chan Entry, queueSize),
		closed: make(chan struct{}), logger: logger}
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
	select {
	case <-r.closed:
		return
	default:
	}
	e = Sanitize(e, r.maxContent)
	// The bound is on entries held, queued or in the batch being stored
	// (which the worker has already taken off the queue): at most the
	// queue's size, however the worker batches.
	if r.pending.Add(1) > int64(cap(r.queue)) {
		r.pending.Add(-1)
		r.dropped.Add(1)
		dropCounter().WithLabelValues("queue_full").Inc()
		return
	}
	select {
	case r.queue <- e:
	default:
		// Not reached (every queued entry is pending); never block.
		r.pending.Add(-1)
		r.dropped.Add(1)
		dropCounter().WithLabelValues("queue_full").Inc()
	}
}

// maxBatch bounds how many queued entries one store call takes.
const maxBatch = 128

func (r *Recorder) run() {
	defer r.wg.Done()
	batch := make([]Entry, 0, maxBatch)
	for {
		select {
		case e := <-r.queue:
			r.append(r.fill(append(batch[:0], e)))
		case <-r.closed:
			// Drain what is queued, then stop.
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
// maxBatch entries: under load the store then commits many entries at
// once (one transaction, one sync) instead of one each, and when it keeps
// up every batch is the one entry that arrived.
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
// the store (appended or failed) or ctx ends.
func (r *Recorder) Flush(ctx context.Context) error {
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	for r.pending.Load() > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// Close stores what is queued and stops the appender; it does not close
// the Log.
func (r *Recorder) Close() {
	if r == nil {
		return
	}
	r.closeOnce.Do(func() { close(r.closed) })
	r.wg.Wait()
}

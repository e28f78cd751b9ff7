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
// and never fails the caller (a scan). When the queue is full the entry is
// dropped; drops and store failures are counted in
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
	r.pending.Add(1)
	select {
	case r.queue <- e:
	default:
		r.pending.Add(-1)
		r.dropped.Add(1)
		dropCounter().WithLabelValues("queue_full").Inc()
	}
}

func (r *Recorder) run() {
	defer r.wg.Done()
	for {
		select {
		case e := <-r.queue:
			r.append(e)
		case <-r.closed:
			// Drain what is queued, then stop.
			for {
				select {
				case e := <-r.queue:
					r.append(e)
				default:
					return
				}
			}
		}
	}
}

func (r *Recorder) append(e Entry) {
	defer r.pending.Add(-1)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.Log.Append(ctx, e); err != nil {
		r.failed.Add(1)
		dropCounter().WithLabelValues("store_error").Inc()
		r.logger.Warn("scan log append failed", "scan_id", e.ScanID, "err", err)
		return
	}
	r.appended.Add(1)
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

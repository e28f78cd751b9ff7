package plugins

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/toolwarden/toolwarden/engine"
)

// DefaultReconcileEvery is how often a replica re-reads the active set
// even without a notification: a lost pub/sub message (a reconnect, a
// server that started in between) is repaired within this time, inside
// the 2 s every replica must apply an activation in.
const DefaultReconcileEvery = time.Second

// maxLoadBackoff bounds the wait before a replica retries loading a set
// it failed to load (it keeps serving its previous set meanwhile).
const maxLoadBackoff = 30 * time.Second

// Reconcile makes this replica's loaded set equal the stored active set.
// Revisions already loaded are kept (same digest, same instances); new ones
// are fetched, checked against their digest and loaded under their
// manifests' limits. Only when every one loaded does the engine swap to the
// new set, atomically; otherwise the replica keeps its previous set whole,
// reports why (Health, ReplicaStatus.Errors) and retries with backoff.
func (m *Manager) Reconcile(ctx context.Context) error {
	set, err := m.cfg.Store.ActiveSet(ctx)
	if err != nil {
		m.mu.Lock()
		m.storeErr = err.Error()
		m.mu.Unlock()
		return fmt.Errorf("reconcile plugins: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.storeErr = ""
	if m.matches(set) {
		m.gen = set.Generation
		m.reportLocked(ctx)
		return nil
	}
	key := setKey(set)
	if key == m.failedKey && time.Now().Before(m.retryAt) {
		return nil
	}
	next := map[string]*Pack{}
	errs := map[string]string{}
	for name, digest := range set.Active {
		if p := m.loaded[name]; p != nil && p.digest == digest {
			next[name] = p
			continue
		}
		pk, err := m.loadRevision(ctx, name, digest)
		if err != nil {
			errs[name] = err.Error()
			continue
		}
		next[name] = pk
	}
	if len(errs) > 0 {
		for name, p := range next {
			if m.loaded[name] != p {
				_ = p.Close(context.Background())
			}
		}
		m.errs = errs
		if key == m.failedKey {
			m.backoff = min(maxLoadBackoff, max(2*m.backoff, time.Second))
		} else {
			m.failedKey, m.backoff = key, time.Second
		}
		m.retryAt = time.Now().Add(m.backoff)
		observeLoad(false)
		m.reportLocked(ctx)
		m.log().Warn("plugin set not loaded; serving the previous set", "generation", set.Generation, "errors", errs)
		return fmt.Errorf("reconcile plugins: generation %d not loaded: %s", set.Generation, joinErrs(errs))
	}
	names := slices.Sorted(maps.Keys(next))
	packs := make([]engine.Pack, 0, len(names))
	for _, n := range names {
		packs = append(packs, next[n])
	}
	drained := m.cfg.Engine.SwapCustom(packs)
	old := m.loaded
	m.loaded, m.gen, m.errs, m.failedKey = next, set.Generation, nil, ""
	var dropped []*Pack
	for name, p := range old {
		if next[name] != p {
			dropped = append(dropped, p)
		}
	}
	if len(dropped) > 0 {
		go func() {
			<-drained
			for _, p := range dropped {
				_ = p.Close(context.Background())
			}
		}()
	}
	observeLoad(true)
	m.reportLocked(ctx)
	m.log().Info("plugin set loaded", "generation", set.Generation, "plugins", digestsOf(next))
	return nil
}

// matches reports whether the loaded set is set.
func (m *Manager) matches(set Set) bool {
	if len(m.errs) > 0 || len(set.Active) != len(m.loaded) {
		return false
	}
	for name, d := range set.Active {
		if p := m.loaded[name]; p == nil || p.digest != d {
			return false
		}
	}
	return true
}

func (m *Manager) loadRevision(ctx context.Context, name, digest string) (*Pack, error) {
	rev, err := m.cfg.Store.Revision(ctx, name, digest)
	if err != nil {
		return nil, err
	}
	module, err := m.cfg.Store.Module(ctx, digest)
	if err != nil {
		return nil, err
	}
	pk, err := loadPack(ctx, name, digest, module, rev.Manifest, m.cfg.Limits, m.statsFor(name))
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", digest, err)
	}
	if pk.Info().Name != name {
		_ = pk.Close(ctx)
		return nil, fmt.Errorf("load %s: module describes itself as %q", digest, pk.Info().Name)
	}
	return pk, nil
}

func setKey(set Set) string {
	var b strings.Builder
	for _, n := range slices.Sorted(maps.Keys(set.Active)) {
		b.WriteString(n + "=" + set.Active[n] + ";")
	}
	return b.String()
}

func digestsOf(ps map[string]*Pack) map[string]string {
	out := make(map[string]string, len(ps))
	for n, p := range ps {
		out[n] = p.digest
	}
	return out
}

func joinErrs(errs map[string]string) string {
	keys := make([]string, 0, len(errs))
	for k := range errs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + errs[k]
	}
	return strings.Join(parts, "; ")
}

// reportLocked publishes this replica's status (m.mu held).
func (m *Manager) reportLocked(ctx context.Context) {
	st := ReplicaStatus{ID: m.cfg.ReplicaID, Generation: m.gen, Loaded: digestsOf(m.loaded), Errors: maps.Clone(m.errs)}
	if err := m.cfg.Store.ReportReplica(ctx, st); err != nil {
		m.log().Warn("report plugin replica status", "err", err)
	}
}

// Run reconciles on every notification and every ReconcileEvery until ctx
// ends. It never returns early: a store outage is retried.
func (m *Manager) Run(ctx context.Context) {
	every := m.cfg.ReconcileEvery
	if every <= 0 {
		every = DefaultReconcileEvery
	}
	var events <-chan struct{}
	subscribe := func() {
		if ch, err := m.cfg.Store.Subscribe(ctx); err == nil {
			events = ch
		} else {
			m.log().Warn("subscribe to plugin events; relying on the periodic reconcile", "err", err)
		}
	}
	subscribe()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-events:
			if !ok {
				events = nil
				subscribe()
				continue
			}
		case <-t.C:
			if events == nil {
				subscribe()
			}
		}
		if err := m.Reconcile(ctx); err != nil && !errors.Is(err, context.Canceled) {
			m.log().Debug("reconcile plugins", "err", err)
		}
	}
}

// Health reports a replica that could not load the active set (it serves
// its previous one) or cannot read the store: /readyz shows it degraded.
func (m *Manager) Health() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.storeErr != "" {
		return fmt.Errorf("plugin store unreadable, serving generation %d: %s", m.gen, m.storeErr)
	}
	if len(m.errs) > 0 {
		return fmt.Errorf("active plugin set not loaded, serving generation %d: %s", m.gen, joinErrs(m.errs))
	}
	return nil
}

func (m *Manager) log() *slog.Logger {
	if m.cfg.Logger != nil {
		return m.cfg.Logger
	}
	return slog.Default()
}

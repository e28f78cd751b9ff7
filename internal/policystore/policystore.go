// Package policystore keeps the active policy as a managed, versioned
// document: every PUT makes a new revision, a rollback makes a new revision
// holding an older document, and every server of a deployment applies the
// active revision to its engine within seconds. Revisions live in the data
// directory (embedded) or in Redis (shared by every server), so the active
// policy survives restarts and every replica agrees on it.
//
// A revision is validated before it is stored, and again by each replica
// before it applies it: a replica that cannot apply the active revision
// keeps the policy it has and reports the error (Status), it never runs
// without a policy.
package policystore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/toolwarden/toolwarden/sdk"
)

// ReconcileInterval is how often a Store re-reads the active revision even
// without a change notification, so a replica that missed one (a dropped
// pub/sub connection) still converges within it.
const ReconcileInterval = time.Second

// ErrNotFound is returned for a version that is not stored.
var ErrNotFound = errors.New("policy revision not found")

// Revision is one stored version of the policy document.
type Revision struct {
	// Version counts from 1 and only grows; 0 is the configured policy the
	// server started with, before any revision was stored.
	Version int `json:"version"`
	// Digest is "sha256:" and the hex SHA-256 of YAML.
	Digest string `json:"digest"`
	// YAML is the document as the admin wrote it.
	YAML      string    `json:"yaml"`
	UpdatedAt time.Time `json:"updated_at"`
	// UpdatedBy is the id of the API key that stored it ("config" for the
	// configured policy).
	UpdatedBy string `json:"updated_by,omitempty"`
	// Comment says why, e.g. "rollback to version 3".
	Comment string `json:"comment,omitempty"`
}

// Digest returns the content address of a document.
func Digest(yaml []byte) string {
	sum := sha256.Sum256(yaml)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Backend stores revisions. Append assigns the next version and makes the
// revision active in one step; versions never repeat.
type Backend interface {
	// Append stores rev under the next version, makes it the active one,
	// notifies the other servers, and returns it with Version set.
	Append(ctx context.Context, rev Revision) (Revision, error)
	// Active returns the active revision; ErrNotFound when none is stored.
	Active(ctx context.Context) (Revision, error)
	// Get returns one revision.
	Get(ctx context.Context, version int) (Revision, error)
	// History returns up to limit revisions, newest first.
	History(ctx context.Context, limit int) ([]Revision, error)
	// Changes delivers a value whenever another server may have changed
	// the active revision (nil: the backend has no notifications; the
	// periodic reconcile covers it).
	Changes(ctx context.Context) <-chan struct{}
	// Close releases the backend.
	Close() error
}

// Validator turns a document into a policy, strictly: any unknown key,
// wrong type or bad value is an error naming the field.
type Validator func(name string, yaml []byte) (*sdk.Policy, error)

// Options configure a Store.
type Options struct {
	// Validate checks a document before it is stored and before a replica
	// applies it (required).
	Validate Validator
	// Apply installs a validated policy for later scans (engine.SetPolicy;
	// required).
	Apply func(*sdk.Policy)
	// Initial is the configured policy the server started with, reported
	// as version 0 until a revision is stored.
	Initial Revision
	// Interval is the reconcile period (ReconcileInterval when zero).
	Interval time.Duration
	// Log receives reconcile failures (slog.Default when nil).
	Log *slog.Logger
}

// Store is the managed policy of one server: it stores revisions through a
// Backend and keeps the engine on the active one. Safe for concurrent use.
type Store struct {
	b    Backend
	opts Options

	mu      sync.Mutex
	applied Revision
	// lastErr is why the active revision could not be applied here.
	lastErr error
}

// Open returns a Store over b and applies the stored active revision at
// once, so a restarted server scans under the policy it had before. When
// the active revision does not validate, Open keeps the configured policy
// and reports the error through Status instead of failing the start.
func Open(ctx context.Context, b Backend, opts Options) (*Store, error) {
	if opts.Validate == nil || opts.Apply == nil {
		return nil, errors.New("policystore: Options.Validate and Options.Apply are required")
	}
	if opts.Interval <= 0 {
		opts.Interval = ReconcileInterval
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.Initial.Digest == "" {
		opts.Initial.Digest = Digest([]byte(opts.Initial.YAML))
	}
	s := &Store{b: b, opts: opts, applied: opts.Initial}
	// A stored revision this server cannot read or apply does not stop
	// the start: the configured policy serves and Status says why.
	_ = s.Reconcile(ctx)
	return s, nil
}

// errInvalidActive marks a stored active revision this server refuses.
var errInvalidActive = errors.New("active policy revision does not validate here")

// Reconcile applies the active revision when it is not the one applied.
// A revision that cannot be read (a record failing authentication) or
// validated is not applied: the policy in force stays, and Status reports
// why until the store is readable and the active revision applies again.
func (s *Store) Reconcile(ctx context.Context) error {
	rev, err := s.b.Active(ctx)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.lastErr = fmt.Errorf("policystore: read active revision: %w", err)
		if errors.Is(err, ErrTampered) {
			s.opts.Log.Error("active policy record fails authentication; keeping the previous policy", "err", err)
		}
		return s.lastErr
	}
	if rev.Version == s.applied.Version && rev.Digest == s.applied.Digest {
		s.lastErr = nil
		return nil
	}
	if rev.Version < s.applied.Version {
		// A stale read (another replica's notification raced ours): the
		// newer revision applied here stands.
		return nil
	}
	pol, err := s.opts.Validate(fmt.Sprintf("policy version %d", rev.Version), []byte(rev.YAML))
	if err != nil {
		s.lastErr = fmt.Errorf("%w: version %d: %w", errInvalidActive, rev.Version, err)
		s.opts.Log.Error("policy revision not applied; keeping the previous policy", "version", rev.Version, "err", err)
		return s.lastErr
	}
	s.opts.Apply(pol)
	s.applied, s.lastErr = rev, nil
	return nil
}

// Run keeps the engine on the active revision until ctx ends: on every
// change notification and every Interval.
func (s *Store) Run(ctx context.Context) {
	changes := s.b.Changes(ctx)
	t := time.NewTicker(s.opts.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-changes:
		case <-t.C:
		}
		if err := s.Reconcile(ctx); err != nil && !errors.Is(err, errInvalidActive) && !errors.Is(err, ErrTampered) && ctx.Err() == nil {
			s.opts.Log.Warn("policy reconcile", "err", err)
		}
	}
}

// Active returns the revision in force on this server.
func (s *Store) Active() Revision {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.applied
}

// Status reports why this server could not apply the active revision (nil
// when it runs the active one); /readyz reports it as degraded.
func (s *Store) Status() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastErr
}

// Validate checks a candidate document without storing it.
func (s *Store) Validate(yaml []byte) (*sdk.Policy, error) {
	return s.opts.Validate("policy", yaml)
}

// Put validates yaml, stores it as the next revision, applies it here and
// notifies the other servers. An invalid document stores nothing and the
// error names the field (a *policies.Error).
func (s *Store) Put(ctx context.Context, yaml []byte, by, comment string) (Revision, error) {
	pol, err := s.Validate(yaml)
	if err != nil {
		return Revision{}, err
	}
	rev, err := s.b.Append(ctx, Revision{Digest: Digest(yaml), YAML: string(yaml), UpdatedAt: time.Now().UTC(),
		UpdatedBy: by, Comment: comment})
	if err != nil {
		return Revision{}, fmt.Errorf("policystore: store revision: %w", err)
	}
	s.mu.Lock()
	if rev.Version > s.applied.Version {
		s.opts.Apply(pol)
		s.applied, s.lastErr = rev, nil
	}
	s.mu.Unlock()
	return rev, nil
}

// Rollback makes the document of an earlier version active again, as a new
// revision, so history shows what happened and when.
func (s *Store) Rollback(ctx context.Context, version int, by string) (Revision, error) {
	old, err := s.b.Get(ctx, version)
	if err != nil {
		return Revision{}, fmt.Errorf("policystore: rollback to version %d: %w", version, err)
	}
	return s.Put(ctx, []byte(old.YAML), by, fmt.Sprintf("rollback to version %d", version))
}

// History returns up to limit stored revisions, newest first.
func (s *Store) History(ctx context.Context, limit int) ([]Revision, error) {
	revs, err := s.b.History(ctx, limit)
	if err != nil {
		return nil, fmt.Errorf("policystore: history: %w", err)
	}
	return revs, nil
}

// Close closes the backend.
func (s *Store) Close() error { return s.b.Close() }

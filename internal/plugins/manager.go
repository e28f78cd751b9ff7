package plugins

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/sdk"
)

// Config configures a Manager.
type Config struct {
	// Store holds revisions and the active set (required).
	Store Store
	// Engine runs the active set (required).
	Engine *engine.Engine
	// Verifier checks signatures; nil accepts unsigned modules only.
	Verifier *Verifier
	// Limits are the defaults and bounds of uploaded plugins.
	Limits Limits
	// ReplicaID names this server in replica statuses (hostname-pid-random
	// when empty).
	ReplicaID string
	// ReconcileEvery is the periodic reconcile (DefaultReconcileEvery).
	ReconcileEvery time.Duration
	// RequireShadow refuses to activate a revision without a passing
	// shadow run (plugins.require_shadow).
	RequireShadow bool
	// Recent returns recorded scans for shadow runs; nil disables them.
	Recent RecentScans
	// Logger is slog.Default() when nil.
	Logger *slog.Logger
}

// Manager is the managed plugin set of one server: uploads, activation,
// rollback and the reconcile loop that keeps the engine on the active set.
type Manager struct {
	cfg Config
	val *validator

	mu        sync.Mutex // serialises reconciles and shadow runs
	loaded    map[string]*Pack
	gen       int64
	errs      map[string]string
	storeErr  string
	failedKey string
	retryAt   time.Time
	backoff   time.Duration
	stats     map[string]*pluginStats
}

// NewManager builds a manager; call Start to load the active set.
func NewManager(cfg Config) (*Manager, error) {
	if cfg.Store == nil || cfg.Engine == nil {
		return nil, errors.New("plugins: Config.Store and Config.Engine are required")
	}
	if cfg.Verifier == nil {
		cfg.Verifier = &Verifier{}
	}
	if cfg.ReplicaID == "" {
		host, _ := os.Hostname()
		cfg.ReplicaID = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), uuid.NewString()[:8])
	}
	m := &Manager{cfg: cfg, loaded: map[string]*Pack{}, stats: map[string]*pluginStats{}}
	m.val = &validator{lim: cfg.Limits, policy: cfg.Engine.Policy, taken: m.takenRules, builtinName: func(name string) bool {
		return slices.ContainsFunc(cfg.Engine.BuiltinPlugins(), func(i sdk.PluginInfo) bool { return i.Name == name })
	}}
	return m, nil
}

// Start loads the stored active set (so a restarted server judges with
// it before it serves) and runs the reconcile loop until ctx ends. A set
// that cannot be loaded leaves the server on the built-in packs, degraded,
// never stopped: the loop retries.
func (m *Manager) Start(ctx context.Context) {
	if err := m.Reconcile(ctx); err != nil {
		m.log().Error("load the active plugin set at start", "err", err)
	}
	go m.Run(ctx)
}

// ReplicaID is this server's id in replica statuses.
func (m *Manager) ReplicaID() string { return m.cfg.ReplicaID }

func (m *Manager) statsFor(name string) *pluginStats {
	if s := m.stats[name]; s != nil {
		return s
	}
	s := newPluginStats()
	m.stats[name] = s
	return s
}

// takenRules maps the rule ids of the built-in packs and of the active
// plugins other than except to their owner.
func (m *Manager) takenRules(ctx context.Context, except string) map[string]string {
	taken := map[string]string{}
	for _, info := range m.cfg.Engine.BuiltinPlugins() {
		for _, r := range info.Rules {
			taken[r.ID] = "built-in pack " + info.Name
		}
	}
	set, err := m.cfg.Store.ActiveSet(ctx)
	if err != nil {
		return taken
	}
	for name, digest := range set.Active {
		if name == except {
			continue
		}
		if rev, err := m.cfg.Store.Revision(ctx, name, digest); err == nil {
			for _, r := range rev.Rules {
				taken[r.ID] = "plugin " + name
			}
		}
	}
	return taken
}

// UploadRequest is one upload.
type UploadRequest struct {
	Module    []byte
	Signature []byte
	// Manifest is the raw manifest (YAML or JSON), optional.
	Manifest []byte
	Activate bool
	// By is the uploading key's id, recorded.
	By string
}

// Statuses of a revision.
const (
	StatusRefused  = "refused"
	StatusInactive = "inactive"
	StatusActive   = "active"
)

// UploadResult answers an upload.
type UploadResult struct {
	Name       string         `json:"name"`
	Version    string         `json:"version"`
	Digest     string         `json:"digest"`
	ABIVersion int            `json:"abi_version"`
	Rules      []sdk.RuleInfo `json:"rules"`
	Status     string         `json:"status"`
	Signer     string         `json:"signer"`
	Validation Validation     `json:"validation"`
	// Mode and FailurePolicy say how the revision judges (fail_open is
	// reported so nobody runs it by accident).
	Mode          string `json:"mode,omitempty"`
	FailurePolicy string `json:"failure_policy,omitempty"`
	// Activation is the local load result when ?activate=true.
	Activation *ActivateResult `json:"activation,omitempty"`
}

// RefusedError is returned for an upload or activation that failed a
// check; Result carries the validation report.
type RefusedError struct {
	Reason string
	Result UploadResult
}

func (e *RefusedError) Error() string { return "plugin refused: " + e.Reason }

// Upload verifies the signature, validates and self-tests the module and
// stores it as a revision; with Activate it then activates it. A refused
// module is not stored and nothing that serves changes.
func (m *Manager) Upload(ctx context.Context, req UploadRequest) (UploadResult, error) {
	res := UploadResult{Digest: Digest(req.Module), Status: StatusRefused, Rules: []sdk.RuleInfo{}}
	refuse := func(name, detail string) (UploadResult, error) {
		res.Validation.add(name, false, "%s", detail)
		return res, &RefusedError{Reason: name + ": " + detail, Result: res}
	}
	signer, err := m.cfg.Verifier.Check(req.Module, req.Signature)
	if err != nil {
		return refuse("signature", err.Error())
	}
	detail := "unsigned (plugins.require_signature is false)"
	if signer != "" {
		detail = "signed by trusted key " + signer
	}
	res.Validation.add("signature", true, "%s", detail)
	res.Signer = signer
	var man *Manifest
	if len(req.Manifest) > 0 {
		mm, err := ParseManifest(req.Manifest)
		if err != nil {
			return refuse("manifest", err.Error())
		}
		man = &mm
	}
	val, pk := m.val.validate(ctx, req.Module, man)
	res.Validation.Checks = append(res.Validation.Checks, val.Checks...)
	if !val.OK {
		c, _ := val.Failed()
		return res, &RefusedError{Reason: c.Name + ": " + c.Detail, Result: res}
	}
	defer pk.Close(context.Background())
	res.Validation.OK = true
	info := pk.Info()
	mf := Manifest{}
	if man != nil {
		mf = *man
	}
	mf.Name = info.Name
	if mf.Version == "" {
		mf.Version = info.Version
	}
	rev := Revision{Name: info.Name, Version: info.Version, Digest: res.Digest, ABIVersion: pk.abiVersion(),
		Rules: info.Rules, Manifest: mf, Signer: signer, Size: len(req.Module), UploadedAt: time.Now().UTC(),
		UploadedBy: req.By, Validation: res.Validation}
	if old, err := m.cfg.Store.Revision(ctx, rev.Name, rev.Digest); err == nil {
		rev.Shadow = old.Shadow // the same bytes: its shadow run still holds
	}
	if err := m.cfg.Store.PutRevision(ctx, rev, req.Module); err != nil {
		return res, fmt.Errorf("store plugin %s: %w", rev.Name, err)
	}
	res.Name, res.Version, res.ABIVersion, res.Rules = rev.Name, rev.Version, rev.ABIVersion, rev.Rules
	res.Mode, res.FailurePolicy = mf.EffectiveMode(), mf.EffectiveFailurePolicy()
	res.Status = m.statusOf(ctx, rev.Name, rev.Digest)
	if req.Activate {
		act, err := m.Activate(ctx, rev.Name, rev.Digest)
		if err != nil {
			return res, err
		}
		res.Activation = &act
		res.Status = StatusActive
	}
	return res, nil
}

func (m *Manager) statusOf(ctx context.Context, name, digest string) string {
	if set, err := m.cfg.Store.ActiveSet(ctx); err == nil && set.Active[name] == digest {
		return StatusActive
	}
	return StatusInactive
}

// ActivateResult says what an activation changed and whether this server
// loaded it (other servers follow within seconds; see GET replicas).
type ActivateResult struct {
	Name         string `json:"name"`
	ActiveDigest string `json:"active_digest"`
	Previous     string `json:"previous_digest,omitempty"`
	Generation   int64  `json:"generation"`
	// LoadedHere is whether this server now runs the new set; LoadError
	// says why not (it then serves its previous set).
	LoadedHere bool   `json:"loaded_here"`
	LoadError  string `json:"load_error,omitempty"`
}

// Activate makes digest the active revision of name on every replica.
func (m *Manager) Activate(ctx context.Context, name, digest string) (ActivateResult, error) {
	rev, err := m.cfg.Store.Revision(ctx, name, digest)
	if err != nil {
		return ActivateResult{}, err
	}
	if !rev.Validation.OK {
		return ActivateResult{}, &RefusedError{Reason: "revision did not pass validation"}
	}
	if m.cfg.RequireShadow && (rev.Shadow == nil || !rev.Shadow.OK) {
		return ActivateResult{}, &RefusedError{Reason: "plugins.require_shadow is true and this revision has no passing shadow run (POST /v1/plugins/" + name + "/shadow)"}
	}
	var val Validation
	if !m.val.checkRules(ctx, &val, sdk.PluginInfo{Name: name, Rules: rev.Rules}, rev.Manifest) {
		c, _ := val.Failed()
		return ActivateResult{}, &RefusedError{Reason: c.Detail}
	}
	var prev string
	set, err := m.cfg.Store.UpdateActive(ctx, func(s *Set) error {
		prev = s.Active[name]
		if prev != "" && prev != digest {
			s.History[name] = append(s.History[name], prev)
		}
		s.Active[name] = digest
		return nil
	})
	if err != nil {
		return ActivateResult{}, err
	}
	return m.afterChange(ctx, name, set, prev), nil
}

func (m *Manager) afterChange(ctx context.Context, name string, set Set, prev string) ActivateResult {
	res := ActivateResult{Name: name, ActiveDigest: set.Active[name], Previous: prev, Generation: set.Generation}
	err := m.Reconcile(ctx)
	m.mu.Lock()
	res.LoadedHere = m.gen >= set.Generation && len(m.errs) == 0
	m.mu.Unlock()
	if err != nil {
		res.LoadError = err.Error()
	}
	return res
}

// Deactivate removes name from the active set on every replica.
func (m *Manager) Deactivate(ctx context.Context, name string) (ActivateResult, error) {
	var prev string
	set, err := m.cfg.Store.UpdateActive(ctx, func(s *Set) error {
		prev = s.Active[name]
		if prev == "" {
			return fmt.Errorf("plugin %s is not active: %w", name, ErrConflict)
		}
		s.History[name] = append(s.History[name], prev)
		delete(s.Active, name)
		return nil
	})
	if err != nil {
		return ActivateResult{}, err
	}
	return m.afterChange(ctx, name, set, prev), nil
}

// Rollback re-activates the revision that was active before the current
// one (or, for an inactive plugin, the last one that was active).
func (m *Manager) Rollback(ctx context.Context, name string) (ActivateResult, error) {
	var prev string
	set, err := m.cfg.Store.UpdateActive(ctx, func(s *Set) error {
		h := s.History[name]
		cur := s.Active[name]
		for len(h) > 0 && h[len(h)-1] == cur {
			h = h[:len(h)-1]
		}
		if len(h) == 0 {
			return fmt.Errorf("plugin %s has no earlier active revision to roll back to: %w", name, ErrConflict)
		}
		prev = cur
		s.Active[name] = h[len(h)-1]
		s.History[name] = h[:len(h)-1]
		return nil
	})
	if err != nil {
		return ActivateResult{}, err
	}
	return m.afterChange(ctx, name, set, prev), nil
}

// DeleteRevision removes an inactive revision.
func (m *Manager) DeleteRevision(ctx context.Context, name, digest string) error {
	set, err := m.cfg.Store.ActiveSet(ctx)
	if err != nil {
		return err
	}
	if set.Active[name] == digest {
		return fmt.Errorf("revision %s of %s is active; deactivate or activate another first: %w", digest, name, ErrConflict)
	}
	if err := m.cfg.Store.DeleteRevision(ctx, name, digest); err != nil {
		return err
	}
	if slices.Contains(set.History[name], digest) {
		_, err = m.cfg.Store.UpdateActive(ctx, func(s *Set) error {
			s.History[name] = slices.DeleteFunc(s.History[name], func(d string) bool { return d == digest })
			return nil
		})
	}
	return err
}

// Summary is one plugin in a listing.
type Summary struct {
	Name         string         `json:"name"`
	Builtin      bool           `json:"builtin"`
	Version      string         `json:"version,omitempty"`
	ActiveDigest string         `json:"active_digest,omitempty"`
	Status       string         `json:"status"`
	Mode         string         `json:"mode,omitempty"`
	Rules        []sdk.RuleInfo `json:"rules"`
	Revisions    int            `json:"revisions,omitempty"`
}

// List lists the built-in packs (read-only) and the uploaded plugins.
func (m *Manager) List(ctx context.Context) ([]Summary, error) {
	var out []Summary
	for _, info := range m.cfg.Engine.BuiltinPlugins() {
		out = append(out, Summary{Name: info.Name, Builtin: true, Version: info.Version, Status: StatusActive, Mode: ModeEnforce, Rules: info.Rules})
	}
	names, err := m.cfg.Store.Names(ctx)
	if err != nil {
		return nil, err
	}
	set, err := m.cfg.Store.ActiveSet(ctx)
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		revs, err := m.cfg.Store.Revisions(ctx, name)
		if err != nil {
			return nil, err
		}
		if len(revs) == 0 {
			continue
		}
		s := Summary{Name: name, Status: StatusInactive, Revisions: len(revs)}
		show := revs[len(revs)-1]
		if d := set.Active[name]; d != "" {
			s.ActiveDigest, s.Status = d, StatusActive
			for _, r := range revs {
				if r.Digest == d {
					show = r
				}
			}
		}
		s.Version, s.Rules, s.Mode = show.Version, show.Rules, show.Manifest.EffectiveMode()
		out = append(out, s)
	}
	return out, nil
}

// ReplicaView is one server's view of a plugin.
type ReplicaView struct {
	ID           string    `json:"id"`
	LoadedDigest string    `json:"loaded_digest"`
	Error        string    `json:"error,omitempty"`
	Generation   int64     `json:"generation"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// Detail is GET /v1/plugins/{name}.
type Detail struct {
	Name         string        `json:"name"`
	Builtin      bool          `json:"builtin"`
	ActiveDigest string        `json:"active_digest"`
	Status       string        `json:"status"`
	Revisions    []Revision    `json:"revisions"`
	History      []string      `json:"history"`
	Replicas     []ReplicaView `json:"replicas"`
	// Stats are this server's counters for the plugin.
	Stats Stats `json:"stats"`
}

// Get describes one plugin: revisions, the active digest, every replica's
// loaded digest and load error, and this server's stats.
func (m *Manager) Get(ctx context.Context, name string) (Detail, error) {
	for _, info := range m.cfg.Engine.BuiltinPlugins() {
		if info.Name == name {
			return Detail{Name: name, Builtin: true, Status: StatusActive, Revisions: []Revision{{Name: name, Version: info.Version, Rules: info.Rules}}, Replicas: []ReplicaView{}, History: []string{}}, nil
		}
	}
	revs, err := m.cfg.Store.Revisions(ctx, name)
	if err != nil {
		return Detail{}, err
	}
	if len(revs) == 0 {
		return Detail{}, fmt.Errorf("plugin %s: %w", name, ErrNotFound)
	}
	set, err := m.cfg.Store.ActiveSet(ctx)
	if err != nil {
		return Detail{}, err
	}
	d := Detail{Name: name, ActiveDigest: set.Active[name], Status: StatusInactive, Revisions: revs,
		History: append([]string{}, set.History[name]...), Replicas: []ReplicaView{}}
	if d.ActiveDigest != "" {
		d.Status = StatusActive
	}
	reps, err := m.cfg.Store.Replicas(ctx)
	if err != nil {
		return Detail{}, err
	}
	for _, r := range reps {
		d.Replicas = append(d.Replicas, ReplicaView{ID: r.ID, LoadedDigest: r.Loaded[name], Error: r.Errors[name], Generation: r.Generation, UpdatedAt: r.UpdatedAt})
	}
	sort.Slice(d.Replicas, func(i, j int) bool { return d.Replicas[i].ID < d.Replicas[j].ID })
	m.mu.Lock()
	if s := m.stats[name]; s != nil {
		d.Stats = s.snapshot()
	} else {
		d.Stats = Stats{FindingsByRule: map[string]int64{}}
	}
	m.mu.Unlock()
	return d, nil
}

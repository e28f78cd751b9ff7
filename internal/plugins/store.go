// Package plugins manages uploaded rule plugins as content-addressed
// revisions: it validates a module before anything activates it
// (validate.go), checks its signature (signature.go), stores revisions in
// the data directory or in Redis (store_embedded.go, store_redis.go), keeps
// every replica's loaded set equal to the stored active set within seconds
// (reconciler.go), and replays recorded scans against a candidate before it
// activates (shadow.go). The engine swaps a whole set at once, so a scan
// runs wholly on the set it started with.
package plugins

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toolwarden/toolwarden/sdk"
)

// ErrNotFound is returned for an unknown plugin or revision.
var ErrNotFound = errors.New("plugin or revision not found")

// ErrConflict is returned when a change is refused by the current state
// (deleting the active revision, rolling back without a previous one).
var ErrConflict = errors.New("conflict")

// Revision is one uploaded module of a plugin, identified by its digest.
type Revision struct {
	Name       string         `json:"name"`
	Version    string         `json:"version"`
	Digest     string         `json:"digest"`
	ABIVersion int            `json:"abi_version"`
	Rules      []sdk.RuleInfo `json:"rules"`
	Manifest   Manifest       `json:"manifest"`
	// Signer is the trusted key id that signed the module ("" unsigned).
	Signer     string     `json:"signer"`
	Size       int        `json:"size"`
	UploadedAt time.Time  `json:"uploaded_at"`
	UploadedBy string     `json:"uploaded_by"`
	Validation Validation `json:"validation"`
	// Shadow is the last shadow run of this revision, if any.
	Shadow *ShadowResult `json:"shadow,omitempty"`
}

// Set is the deployment's active plugin set: the one document every
// replica converges to. Generation grows with every change.
type Set struct {
	Generation int64 `json:"generation"`
	// Active maps a plugin name to its active digest.
	Active map[string]string `json:"active"`
	// History maps a plugin name to its earlier active digests, newest
	// last, for rollback.
	History map[string][]string `json:"history,omitempty"`
}

// clone returns a deep copy so an update function can change it freely.
func (s Set) clone() Set {
	out := Set{Generation: s.Generation, Active: map[string]string{}, History: map[string][]string{}}
	for k, v := range s.Active {
		out.Active[k] = v
	}
	for k, v := range s.History {
		out.History[k] = append([]string(nil), v...)
	}
	return out
}

// ReplicaStatus is what one server reports about its loaded set.
type ReplicaStatus struct {
	ID         string            `json:"id"`
	Generation int64             `json:"generation"`
	Loaded     map[string]string `json:"loaded"`
	// Errors maps a plugin name to why this replica could not load the
	// active revision (it keeps serving its previous set).
	Errors    map[string]string `json:"errors,omitempty"`
	UpdatedAt time.Time         `json:"updated_at"`
}

// Store keeps revisions, their modules and the active set. Both
// implementations (embedded, Redis) pass one test suite.
type Store interface {
	// PutRevision stores a validated module and its revision record; the
	// module is stored under its digest once, whatever the name.
	PutRevision(ctx context.Context, rev Revision, module []byte) error
	// UpdateRevision rewrites a stored revision record (e.g. its shadow
	// result).
	UpdateRevision(ctx context.Context, rev Revision) error
	// Module returns the module with digest, checked against it.
	Module(ctx context.Context, digest string) ([]byte, error)
	// Revision returns one revision record.
	Revision(ctx context.Context, name, digest string) (Revision, error)
	// Revisions lists a plugin's revisions, oldest first.
	Revisions(ctx context.Context, name string) ([]Revision, error)
	// Names lists the plugins with at least one revision.
	Names(ctx context.Context) ([]string, error)
	// DeleteRevision removes a revision record, and its module when no
	// other revision refers to it.
	DeleteRevision(ctx context.Context, name, digest string) error
	// ActiveSet reads the active set.
	ActiveSet(ctx context.Context) (Set, error)
	// UpdateActive changes the active set atomically (compare and swap
	// against concurrent updates, retried), bumps its generation and
	// notifies every replica. fn returning an error aborts the update.
	UpdateActive(ctx context.Context, fn func(*Set) error) (Set, error)
	// ReportReplica records a replica's status; Replicas lists the
	// statuses reported recently.
	ReportReplica(ctx context.Context, st ReplicaStatus) error
	Replicas(ctx context.Context) ([]ReplicaStatus, error)
	// Subscribe returns a channel that receives a value whenever the
	// active set may have changed, until ctx ends.
	Subscribe(ctx context.Context) (<-chan struct{}, error)
}

// Digest is the content address of a module: "sha256:" and 64 hex digits.
func Digest(module []byte) string {
	sum := sha256.Sum256(module)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// digestHex checks a digest string and returns its hex part, for use in
// file names and keys (nothing else can reach a path).
func digestHex(digest string) (string, error) {
	h, ok := strings.CutPrefix(digest, "sha256:")
	if !ok || len(h) != 64 {
		return "", fmt.Errorf("digest %q: want sha256: and 64 hex digits", digest)
	}
	if _, err := hex.DecodeString(h); err != nil || strings.ToLower(h) != h {
		return "", fmt.Errorf("digest %q: want sha256: and 64 lowercase hex digits", digest)
	}
	return h, nil
}

// checkName refuses plugin names that could not be a file or key name.
func checkName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("plugin name %q: want 1 to 64 characters", name)
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') || name == "." || name == ".." {
			return fmt.Errorf("plugin name %q: only letters, digits, '-', '_' and '.'", name)
		}
	}
	return nil
}

// Package auth holds toolwarden's API keys and the roles they carry.
//
// A key is a random bearer token shown once at creation; only its SHA-256
// hash is stored, so a stolen key file does not yield usable keys. (Keys are
// 256-bit random, so a fast hash is enough: there is nothing to brute-force.)
// Roles are ordered: an admin may do everything a reviewer may, a reviewer
// everything an agent may, except that agents see only their own executions.
package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Role is what a key may do.
type Role string

// The three roles.
const (
	// RoleAgent may scan, run, and read or cancel its own executions.
	RoleAgent Role = "agent"
	// RoleReviewer may also approve or reject held executions and read all.
	RoleReviewer Role = "reviewer"
	// RoleAdmin may do everything, including key and policy management.
	RoleAdmin Role = "admin"
)

// Allows reports whether a key of role r may act as need.
func (r Role) Allows(need Role) bool { return r.rank() >= need.rank() && need.rank() > 0 }

func (r Role) rank() int {
	switch r {
	case RoleAgent:
		return 1
	case RoleReviewer:
		return 2
	case RoleAdmin:
		return 3
	}
	return 0
}

// ParseRole validates a role name.
func ParseRole(s string) (Role, error) {
	r := Role(s)
	if r.rank() == 0 {
		return "", fmt.Errorf("unknown role %q: want agent, reviewer or admin", s)
	}
	return r, nil
}

// Key is a stored API key; the token itself is never stored.
type Key struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Role      Role      `json:"role"`
	Hash      string    `json:"hash,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	// MAC authenticates the stored record (see mac.go); never shown.
	MAC string `json:"mac,omitempty"`
}

// Public returns k without its hash and MAC, for listing.
func (k Key) Public() Key { k.Hash, k.MAC = "", ""; return k }

// Errors returned by Authenticate.
var (
	ErrNoKey      = errors.New("missing API key")
	ErrInvalidKey = errors.New("invalid API key")
	ErrNotFound   = errors.New("no such key")
)

// tokenPrefix marks toolwarden tokens so that secret scanners recognize them.
const tokenPrefix = "tw_"

// Store holds API keys, safe for concurrent use. Keys live in a file
// (Open: one server) or in Redis (OpenRedis: every server of a deployment
// sees the same keys, so a key created on one works on all).
type Store struct {
	kv     keyKV
	macKey []byte
	log    *slog.Logger
}

// keyKV is where keys are kept.
type keyKV interface {
	get(id string) (Key, bool, error)
	all() ([]Key, error)
	put(k Key) error
	del(id string) (bool, error)
}

// Open loads the file key store at path, creating an empty one when absent.
// The file is rewritten atomically (temp file + rename) with mode 0600.
// Records are verified against the MAC key of opts (WithSecretsKey).
func Open(path string, opts ...Option) (*Store, error) {
	f := &fileKV{path: path, keys: map[string]Key{}}
	s := &Store{kv: f}
	if err := s.apply(opts); err != nil {
		return nil, fmt.Errorf("open key store %s: %w", path, err)
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open key store %s: %w", path, err)
	}
	var keys []Key
	if err := json.Unmarshal(b, &keys); err != nil {
		return nil, fmt.Errorf("open key store %s: %w", path, err)
	}
	for _, k := range keys {
		f.keys[k.ID] = k
	}
	return s, nil
}

func hashToken(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b)
}

// Create makes a key and returns its token, which is not retrievable later.
func (s *Store) Create(name string, role Role) (string, Key, error) {
	if _, err := ParseRole(string(role)); err != nil {
		return "", Key{}, err
	}
	id := randomHex(6)
	token := tokenPrefix + id + "_" + randomHex(32)
	k := s.sign(Key{ID: id, Name: name, Role: role, Hash: hashToken(token), CreatedAt: time.Now().UTC()})
	if err := s.kv.put(k); err != nil {
		return "", Key{}, fmt.Errorf("create key: %w", err)
	}
	return token, k.Public(), nil
}

// Import stores a caller-chosen token (the TOOLWARDEN_ADMIN_KEY bootstrap)
// under a fixed id, replacing an earlier one with that id.
func (s *Store) Import(id, name, token string, role Role) (Key, error) {
	if len(token) < 16 {
		return Key{}, fmt.Errorf("key %s: token must be at least 16 characters", id)
	}
	if _, err := ParseRole(string(role)); err != nil {
		return Key{}, err
	}
	k := s.sign(Key{ID: id, Name: name, Role: role, Hash: hashToken(token), CreatedAt: time.Now().UTC()})
	if err := s.kv.put(k); err != nil {
		return Key{}, fmt.Errorf("import key %s: %w", id, err)
	}
	return k.Public(), nil
}

// Authenticate returns the key a bearer token belongs to. A store that
// cannot be read is an error other than ErrInvalidKey, so callers can answer
// 503 instead of 401.
func (s *Store) Authenticate(token string) (Key, error) {
	if token == "" {
		return Key{}, ErrNoKey
	}
	h := hashToken(token)
	// Tokens carry their key id (tw_<id>_<secret>): one lookup. Imported
	// tokens do not, and are found by comparing every hash.
	var candidates []Key
	if id, ok := tokenID(token); ok {
		k, found, err := s.kv.get(id)
		if err != nil {
			return Key{}, fmt.Errorf("authenticate: %w", err)
		}
		if found {
			candidates = []Key{k}
		}
	}
	if candidates == nil {
		all, err := s.kv.all()
		if err != nil {
			return Key{}, fmt.Errorf("authenticate: %w", err)
		}
		candidates = all
	}
	// Constant-time over every candidate: the lookup reveals nothing by timing.
	var found Key
	ok := false
	for _, k := range candidates {
		if subtle.ConstantTimeCompare([]byte(k.Hash), []byte(h)) == 1 {
			found, ok = k, true
		}
	}
	if !ok {
		return Key{}, ErrInvalidKey
	}
	// The token matches a record; the record must also be one a server
	// wrote. A forged or tampered record (a role raised, a hash planted)
	// does not authenticate.
	if !s.verified(found) {
		return Key{}, ErrInvalidKey
	}
	if _, err := ParseRole(string(found.Role)); err != nil {
		return Key{}, ErrInvalidKey
	}
	return found.Public(), nil
}

// tokenID extracts the key id of a tw_<id>_<secret> token.
func tokenID(token string) (string, bool) {
	rest, ok := strings.CutPrefix(token, tokenPrefix)
	if !ok {
		return "", false
	}
	id, _, ok := strings.Cut(rest, "_")
	return id, ok && id != ""
}

// List returns every key without hashes, oldest first. Records whose MAC
// does not verify are left out (and logged): they are not keys.
func (s *Store) List() ([]Key, error) {
	all, err := s.kv.all()
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	out := make([]Key, 0, len(all))
	for _, k := range all {
		if !s.verified(k) {
			continue
		}
		out = append(out, k.Public())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out, nil
}

// Get returns the key with id, verified like Authenticate, or ErrNotFound.
// Web panel sessions hold a key id, not the token: every request looks the
// key up again, so revoking a key ends its sessions at once and a record
// whose MAC does not verify never authorizes one.
func (s *Store) Get(id string) (Key, error) {
	k, found, err := s.kv.get(id)
	if err != nil {
		return Key{}, fmt.Errorf("get key %s: %w", id, err)
	}
	if !found || !s.verified(k) {
		return Key{}, ErrNotFound
	}
	if _, err := ParseRole(string(k.Role)); err != nil {
		return Key{}, ErrNotFound
	}
	return k.Public(), nil
}

// Delete removes a key; its token stops working at once.
func (s *Store) Delete(id string) error {
	ok, err := s.kv.del(id)
	if err != nil {
		return fmt.Errorf("delete key %s: %w", id, err)
	}
	if !ok {
		return ErrNotFound
	}
	return nil
}

// fileKV keeps keys in memory and in one JSON file.
type fileKV struct {
	path string
	mu   sync.RWMutex
	keys map[string]Key
}

func (f *fileKV) get(id string) (Key, bool, error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	k, ok := f.keys[id]
	return k, ok, nil
}

func (f *fileKV) all() ([]Key, error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	out := make([]Key, 0, len(f.keys))
	for _, k := range f.keys {
		out = append(out, k)
	}
	return out, nil
}

func (f *fileKV) put(k Key) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	old, had := f.keys[k.ID]
	f.keys[k.ID] = k
	if err := f.saveLocked(); err != nil {
		if had {
			f.keys[k.ID] = old
		} else {
			delete(f.keys, k.ID)
		}
		return err
	}
	return nil
}

func (f *fileKV) del(id string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k, ok := f.keys[id]
	if !ok {
		return false, nil
	}
	delete(f.keys, id)
	if err := f.saveLocked(); err != nil {
		f.keys[id] = k
		return false, err
	}
	return true, nil
}

func (f *fileKV) saveLocked() error {
	if f.path == "" {
		return nil
	}
	keys := make([]Key, 0, len(f.keys))
	for _, k := range f.keys {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].ID < keys[j].ID })
	b, err := json.MarshalIndent(keys, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
		return fmt.Errorf("save key store: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(f.path), ".keys-*")
	if err != nil {
		return fmt.Errorf("save key store: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("save key store: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("save key store: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("save key store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save key store: %w", err)
	}
	if err := os.Rename(tmp.Name(), f.path); err != nil {
		return fmt.Errorf("save key store: %w", err)
	}
	return nil
}

// BearerToken extracts the token of an "Authorization: Bearer KEY" header.
func BearerToken(header string) string {
	const p = "bearer "
	if len(header) > len(p) && strings.EqualFold(header[:len(p)], p) {
		return strings.TrimSpace(header[len(p):])
	}
	return ""
}

// Bootstrap makes sure an admin key exists. With envToken set (from
// TOOLWARDEN_ADMIN_KEY) it installs that token as the "bootstrap" admin key
// and returns "". Otherwise, when the store has no admin key, it creates
// one and returns its token so the caller can print it once.
func (s *Store) Bootstrap(envToken string) (string, error) {
	if envToken != "" {
		_, err := s.Import("bootstrap", "bootstrap admin (TOOLWARDEN_ADMIN_KEY)", envToken, RoleAdmin)
		return "", err
	}
	keys, err := s.List()
	if err != nil {
		return "", err
	}
	for _, k := range keys {
		if k.Role == RoleAdmin {
			return "", nil
		}
	}
	token, _, err := s.Create("first admin", RoleAdmin)
	return token, err
}

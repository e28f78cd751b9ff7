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
}

// Public returns k without its hash, for listing.
func (k Key) Public() Key { k.Hash = ""; return k }

// Errors returned by Authenticate.
var (
	ErrNoKey      = errors.New("missing API key")
	ErrInvalidKey = errors.New("invalid API key")
	ErrNotFound   = errors.New("no such key")
)

// tokenPrefix marks toolwarden tokens so that secret scanners recognize them.
const tokenPrefix = "tw_"

// Store is a file-backed key store, safe for concurrent use. The file is
// rewritten atomically (temp file + rename) with mode 0600.
type Store struct {
	path string
	mu   sync.RWMutex
	keys map[string]Key
}

// Open loads the key store at path, creating an empty one when absent.
func Open(path string) (*Store, error) {
	s := &Store{path: path, keys: map[string]Key{}}
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
		s.keys[k.ID] = k
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
	k := Key{ID: id, Name: name, Role: role, Hash: hashToken(token), CreatedAt: time.Now().UTC()}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys[id] = k
	if err := s.saveLocked(); err != nil {
		delete(s.keys, id)
		return "", Key{}, err
	}
	return token, k.Public(), nil
}

// Import stores a caller-chosen token (the TOOLWARDEN_ADMIN_KEY bootstrap)
// under a fixed id, replacing an earlier one with that id.
func (s *Store) Import(id, name, token string, role Role) (Key, error) {
	if len(token) < 16 {
		return Key{}, fmt.Errorf("key %s: token must be at least 16 characters", id)
	}
	k := Key{ID: id, Name: name, Role: role, Hash: hashToken(token), CreatedAt: time.Now().UTC()}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys[id] = k
	return k.Public(), s.saveLocked()
}

// Authenticate returns the key a bearer token belongs to.
func (s *Store) Authenticate(token string) (Key, error) {
	if token == "" {
		return Key{}, ErrNoKey
	}
	h := hashToken(token)
	s.mu.RLock()
	defer s.mu.RUnlock()
	// Constant-time over every key: the lookup reveals nothing by timing.
	var found Key
	ok := false
	for _, k := range s.keys {
		if subtle.ConstantTimeCompare([]byte(k.Hash), []byte(h)) == 1 {
			found, ok = k, true
		}
	}
	if !ok {
		return Key{}, ErrInvalidKey
	}
	return found.Public(), nil
}

// List returns every key without hashes, oldest first.
func (s *Store) List() []Key {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Key, 0, len(s.keys))
	for _, k := range s.keys {
		out = append(out, k.Public())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out
}

// Len returns the number of keys.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.keys)
}

// Delete removes a key; its token stops working at once.
func (s *Store) Delete(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k, ok := s.keys[id]
	if !ok {
		return ErrNotFound
	}
	delete(s.keys, id)
	if err := s.saveLocked(); err != nil {
		s.keys[id] = k
		return err
	}
	return nil
}

func (s *Store) saveLocked() error {
	if s.path == "" {
		return nil
	}
	keys := make([]Key, 0, len(s.keys))
	for _, k := range s.keys {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].ID < keys[j].ID })
	b, err := json.MarshalIndent(keys, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("save key store: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".keys-*")
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
	if err := os.Rename(tmp.Name(), s.path); err != nil {
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
	for _, k := range s.List() {
		if k.Role == RoleAdmin {
			return "", nil
		}
	}
	token, _, err := s.Create("first admin", RoleAdmin)
	return token, err
}

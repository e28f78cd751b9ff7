package webui

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/http"
	"sync"
	"time"
)

// CookieName is the panel's session cookie. It holds a random session id
// only: the API key it was exchanged for stays on the server side of the
// sign-in and is never sent back to the browser.
const CookieName = "tw_session"

// CSRFHeader carries the session's CSRF token on every request that changes
// something. The browser never sends it by itself (unlike the cookie), so
// a page on another origin cannot forge one.
const CSRFHeader = "X-CSRF-Token"

// DefaultTTL is how long a session lasts after sign-in: a working day, after
// which the panel asks for the key again.
const DefaultTTL = 8 * time.Hour

// DefaultMaxSessions bounds the sessions held in memory, so sign-ins cannot
// grow the server without limit; the oldest session gives way first.
const DefaultMaxSessions = 10000

// Errors of Resolve. The server answers ErrNoSession and ErrExpired with 401
// and ErrCSRF with 403.
var (
	// ErrExpired: the cookie names no live session (expired, signed out,
	// or from before a restart).
	ErrExpired = errors.New("the panel session expired or was signed out; sign in again")
	// ErrCSRF: a request that changes something came without the session's
	// CSRF token (or with another one).
	ErrCSRF = errors.New("missing or wrong " + CSRFHeader + " header: requests that change something must carry the session's CSRF token")
)

// Session is one signed-in browser.
type Session struct {
	// KeyID is the API key the session was opened with; the key is looked
	// up again on every request, so revoking it ends the session.
	KeyID string
	// CSRF is the token that must accompany every non-GET request.
	CSRF string
	// Expires is when the session ends, whatever happens.
	Expires time.Time
	created time.Time
}

// Sessions holds the panel's sessions in memory. Sessions do not survive a
// restart and are not shared between servers (sign in again, or pin the
// panel to one server): keeping them out of the store means a stolen store
// holds no live browser credentials. Safe for concurrent use.
type Sessions struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu sync.Mutex
	// byHash maps sha256(cookie value) to the session: the map never holds
	// a value a browser could present.
	byHash map[string]*Session
}

// SessionOptions configure NewSessions; zero values take the defaults.
type SessionOptions struct {
	TTL         time.Duration
	MaxSessions int
	// Now replaces the clock (tests).
	Now func() time.Time
}

// NewSessions returns an empty session store.
func NewSessions(o SessionOptions) *Sessions {
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Sessions{ttl: o.TTL, max: o.MaxSessions, now: o.Now, byHash: map[string]*Session{}}
}

func randomToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return hex.EncodeToString(b)
}

func hashValue(v string) string {
	h := sha256.Sum256([]byte(v))
	return hex.EncodeToString(h[:])
}

// Create opens a session for keyID and returns the cookie value (to set on
// the response) and the session.
func (s *Sessions) Create(keyID string) (string, Session) {
	value := randomToken()
	now := s.now()
	sess := &Session{KeyID: keyID, CSRF: randomToken(), Expires: now.Add(s.ttl), created: now}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked(now)
	for len(s.byHash) >= s.max {
		s.evictOldestLocked()
	}
	s.byHash[hashValue(value)] = sess
	return value, *sess
}

func (s *Sessions) sweepLocked(now time.Time) {
	for h, sess := range s.byHash {
		if !now.Before(sess.Expires) {
			delete(s.byHash, h)
		}
	}
}

func (s *Sessions) evictOldestLocked() {
	var oldest string
	var at time.Time
	for h, sess := range s.byHash {
		if oldest == "" || sess.created.Before(at) {
			oldest, at = h, sess.created
		}
	}
	delete(s.byHash, oldest)
}

// Lookup returns the live session named by the request's cookie. ok is false
// when the request carries no session cookie at all; ErrExpired when it
// carries one that names no live session.
func (s *Sessions) Lookup(r *http.Request) (Session, bool, error) {
	c, err := r.Cookie(CookieName)
	if err != nil || c.Value == "" {
		return Session{}, false, nil
	}
	h := hashValue(c.Value)
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, found := s.byHash[h]
	if !found {
		return Session{}, true, ErrExpired
	}
	if !s.now().Before(sess.Expires) {
		delete(s.byHash, h)
		return Session{}, true, ErrExpired
	}
	return *sess, true, nil
}

// Resolve authenticates a request by its session cookie for the REST API:
// it returns the session's key id, ok false when there is no session
// cookie (the caller then needs an API key), ErrExpired for a dead session
// and ErrCSRF for a change (any method but GET, HEAD, OPTIONS) without the
// session's CSRF token in the X-CSRF-Token header.
func (s *Sessions) Resolve(r *http.Request) (string, bool, error) {
	sess, ok, err := s.Lookup(r)
	if !ok || err != nil {
		return "", ok, err
	}
	if !safeMethod(r.Method) && !CheckCSRF(sess, r) {
		return "", true, ErrCSRF
	}
	return sess.KeyID, true, nil
}

// CheckCSRF reports whether r carries sess's CSRF token (compared in
// constant time).
func CheckCSRF(sess Session, r *http.Request) bool {
	got := r.Header.Get(CSRFHeader)
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(sess.CSRF)) == 1
}

// Delete ends the session named by the request's cookie, if any.
func (s *Sessions) Delete(r *http.Request) {
	c, err := r.Cookie(CookieName)
	if err != nil {
		return
	}
	s.mu.Lock()
	delete(s.byHash, hashValue(c.Value))
	s.mu.Unlock()
}

// EndKey ends every session of keyID (the key was revoked).
func (s *Sessions) EndKey(keyID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for h, sess := range s.byHash {
		if sess.KeyID == keyID {
			delete(s.byHash, h)
		}
	}
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// IsCSRF reports whether err (from Resolve) is a CSRF refusal rather than a
// dead session (server.SessionAuth).
func (s *Sessions) IsCSRF(err error) bool { return errors.Is(err, ErrCSRF) }

// Package webui is toolwarden's admin panel: hand-written HTML, CSS and
// JavaScript embedded in the binary with go:embed (no build step, nothing
// fetched from outside), plus the sign-in that exchanges an API key for a
// session cookie. The panel is a client of the REST API: it reads and
// changes everything through /v1, which accepts the session cookie (with a
// CSRF token on every change) as well as API keys, so it adds no second
// copy of wait, cancel or review.
package webui

import (
	"embed"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/toolwarden/toolwarden/internal/auth"
)

//go:embed assets
var assets embed.FS

// Prefix is where the panel is served.
const Prefix = "/ui/"

// contentSecurityPolicy allows the panel to load only its own files and to
// talk only to its own origin: even an injected script tag or image could
// not reach another host. No inline script or style is allowed.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// Keys is what the sign-in needs of the key store.
type Keys interface {
	Authenticate(token string) (auth.Key, error)
	Get(id string) (auth.Key, error)
}

// Options configure Handler.
type Options struct {
	// Keys checks the API key offered at sign-in and looks up the key of a
	// session.
	Keys Keys
	// Sessions holds the sessions; the server's authentication must use
	// the same store (server.Config.Sessions).
	Sessions *Sessions
}

// Handler serves the panel under Prefix: the static files, and the session
// routes POST /ui/session (sign in with {"key"}), GET /ui/session (who is
// signed in, and the CSRF token) and DELETE /ui/session (sign out).
func Handler(o Options) http.Handler {
	static, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	files := http.StripPrefix(Prefix, http.FileServer(http.FS(static)))
	p := &panel{keys: o.Keys, sessions: o.Sessions}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		switch {
		case r.URL.Path == "/ui":
			http.Redirect(w, r, Prefix, http.StatusFound)
		case r.URL.Path == Prefix+"session":
			h.Set("Cache-Control", "no-store")
			p.session(w, r)
		case r.Method != http.MethodGet && r.Method != http.MethodHead:
			writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "the panel's files are read with GET")
		default:
			// The panel is one page; it routes by the URL fragment.
			h.Set("Cache-Control", "no-cache")
			files.ServeHTTP(w, r)
		}
	})
}

type panel struct {
	keys     Keys
	sessions *Sessions
}

// sessionView is what GET and POST /ui/session answer.
type sessionView struct {
	KeyID     string    `json:"key_id"`
	Name      string    `json:"name"`
	Role      auth.Role `json:"role"`
	CSRFToken string    `json:"csrf_token"`
	ExpiresAt time.Time `json:"expires_at"`
}

func (p *panel) session(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		p.signIn(w, r)
	case http.MethodGet:
		sess, ok, err := p.sessions.Lookup(r)
		if !ok {
			writeError(w, http.StatusUnauthorized, "unauthorized", "not signed in: sign in with an API key")
			return
		}
		if err != nil {
			clearCookie(w, r)
			writeError(w, http.StatusUnauthorized, "unauthorized", err.Error())
			return
		}
		k, err := p.keys.Get(sess.KeyID)
		if err != nil {
			p.sessions.Delete(r)
			clearCookie(w, r)
			writeError(w, http.StatusUnauthorized, "unauthorized", "the API key of this session was revoked; sign in with another key")
			return
		}
		writeJSON(w, http.StatusOK, sessionView{KeyID: k.ID, Name: k.Name, Role: k.Role, CSRFToken: sess.CSRF, ExpiresAt: sess.Expires})
	case http.MethodDelete:
		sess, ok, err := p.sessions.Lookup(r)
		if ok && err == nil && !CheckCSRF(sess, r) {
			writeError(w, http.StatusForbidden, "csrf", ErrCSRF.Error())
			return
		}
		p.sessions.Delete(r)
		clearCookie(w, r)
		w.WriteHeader(http.StatusNoContent)
	default:
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "use POST to sign in, GET to read the session, DELETE to sign out")
	}
}

// signIn exchanges an API key for a session. The key arrives in the body
// (never a URL) and is not kept: the session holds the key's id.
func (p *panel) signIn(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Key string `json:"key"`
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 4096))
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", `send {"key": "YOUR_API_KEY"} as JSON`)
		return
	}
	req.Key = strings.TrimSpace(req.Key)
	if req.Key == "" {
		writeErrorField(w, http.StatusBadRequest, "invalid_request", "enter an API key (the token starts with tw_)", "key")
		return
	}
	k, err := p.keys.Authenticate(req.Key)
	if err != nil {
		if errors.Is(err, auth.ErrInvalidKey) || errors.Is(err, auth.ErrNoKey) {
			writeErrorField(w, http.StatusUnauthorized, "unauthorized", "this API key is not valid: check it was copied whole, or ask an admin for a new one", "key")
			return
		}
		writeError(w, http.StatusServiceUnavailable, "store_unavailable", "the key store cannot be read, so keys cannot be checked; retry later")
		return
	}
	value, sess := p.sessions.Create(k.ID)
	http.SetCookie(w, &http.Cookie{
		Name: CookieName, Value: value, Path: "/", Expires: sess.Expires,
		MaxAge: int(time.Until(sess.Expires).Seconds()), HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil,
	})
	writeJSON(w, http.StatusOK, sessionView{KeyID: k.ID, Name: k.Name, Role: k.Role, CSRFToken: sess.CSRF, ExpiresAt: sess.Expires})
}

func clearCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers in the REST API's error shape.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeErrorField(w, status, code, msg, "")
}

func writeErrorField(w http.ResponseWriter, status int, code, msg, field string) {
	e := map[string]string{"code": code, "message": msg}
	if field != "" {
		e["field"] = field
	}
	writeJSON(w, status, map[string]any{"error": e})
}

// Assets returns the panel's embedded files (for checks that nothing in
// them loads from another origin).
func Assets() fs.FS {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err)
	}
	return sub
}

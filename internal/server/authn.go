package server

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/toolwarden/toolwarden/internal/auth"
	"github.com/toolwarden/toolwarden/internal/service"
)

const keyCtx = "toolwarden.key"

// authenticate resolves the bearer token to a key or answers 401.
func (s *Server) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		header := c.Request().Header.Get("Authorization")
		if strings.TrimSpace(header) == "" && s.cfg.Sessions != nil {
			// The web panel: a session cookie instead of a key.
			if keyID, ok, err := s.cfg.Sessions.Resolve(c.Request()); ok {
				return s.sessionKey(c, next, keyID, err)
			}
		}
		token := auth.BearerToken(header)
		if token == "" && strings.TrimSpace(header) != "" {
			c.Response().Header().Set("WWW-Authenticate", `Bearer realm="toolwarden"`)
			return apiError(http.StatusUnauthorized, "unauthorized", `the Authorization header must be "Bearer KEY" (the scheme Bearer, a space, then the API key)`)
		}
		k, err := s.keys.Authenticate(token)
		if err != nil && !errors.Is(err, auth.ErrNoKey) && !errors.Is(err, auth.ErrInvalidKey) {
			// The key store cannot be read: fail closed, but say so.
			return apiError(http.StatusServiceUnavailable, "store_unavailable", "the store holding API keys is unavailable, so keys cannot be checked; retry later")
		}
		if err != nil {
			c.Response().Header().Set("WWW-Authenticate", `Bearer realm="toolwarden"`)
			msg := "invalid API key"
			if errors.Is(err, auth.ErrNoKey) {
				msg = "missing API key: send Authorization: Bearer KEY"
			}
			return apiError(http.StatusUnauthorized, "unauthorized", msg)
		}
		c.Set(keyCtx, k)
		return next(c)
	}
}

// SessionAuth resolves the web panel's session cookie to the API key it was
// opened with. ok is false when the request carries no session cookie; err
// is ErrCSRF-like (answered 403) when a change lacks the CSRF token, any
// other error a dead session (401).
type SessionAuth interface {
	Resolve(r *http.Request) (keyID string, ok bool, err error)
	// IsCSRF reports whether err from Resolve is a CSRF refusal.
	IsCSRF(err error) bool
}

// sessionKey authenticates a request by its panel session: the key is
// looked up again, so a revoked key ends its sessions at once.
func (s *Server) sessionKey(c echo.Context, next echo.HandlerFunc, keyID string, err error) error {
	if err != nil {
		if s.cfg.Sessions.IsCSRF(err) {
			return apiError(http.StatusForbidden, "csrf", err.Error())
		}
		return apiError(http.StatusUnauthorized, "unauthorized", err.Error())
	}
	k, err := s.keys.Get(keyID)
	if errors.Is(err, auth.ErrNotFound) {
		return apiError(http.StatusUnauthorized, "unauthorized", "the API key of this panel session was revoked; sign in with another key")
	}
	if err != nil {
		return apiError(http.StatusServiceUnavailable, "store_unavailable", "the store holding API keys is unavailable, so keys cannot be checked; retry later")
	}
	c.Set(keyCtx, k)
	return next(c)
}

// require answers 403 unless the key's role allows need.
func require(need auth.Role) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			k := keyOf(c)
			if !k.Role.Allows(need) {
				return apiError(http.StatusForbidden, "forbidden", "this API key's role ("+string(k.Role)+") may not do this; it needs "+string(need))
			}
			return next(c)
		}
	}
}

func keyOf(c echo.Context) auth.Key {
	k, _ := c.Get(keyCtx).(auth.Key)
	return k
}

// seesAll reports whether the caller may see every execution (reviewers and
// admins) or only its own (agents).
func seesAll(c echo.Context) bool { return keyOf(c).Role.Allows(auth.RoleReviewer) }

type createKeyRequest struct {
	Name string `json:"name"`
	Role string `json:"role"`
}

func (s *Server) createKey(c echo.Context) error {
	var req createKeyRequest
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	role, err := auth.ParseRole(req.Role)
	if err != nil {
		return service.BadField("role", err.Error())
	}
	token, k, err := s.keys.Create(req.Name, role)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"key": k, "token": token,
		"note": "the token is shown once; store it now"})
}

func (s *Server) listKeys(c echo.Context) error {
	keys, err := s.keys.List()
	if err != nil {
		return apiError(http.StatusServiceUnavailable, "store_unavailable", err.Error())
	}
	return c.JSON(http.StatusOK, map[string]any{"keys": keys})
}

func (s *Server) deleteKey(c echo.Context) error {
	if err := s.keys.Delete(c.Param("id")); err != nil {
		if errors.Is(err, auth.ErrNotFound) {
			return apiError(http.StatusNotFound, "not_found", "no such key")
		}
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

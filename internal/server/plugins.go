package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/toolwarden/toolwarden/internal/plugins"
)

// The plugin routes (admin only): upload, list, describe, activate,
// deactivate, roll back, shadow-run and delete revisions of uploaded rule
// plugins. They answer 503 on a server started without a plugin manager.

// maxManifestBytes caps a manifest part; maxSignatureBytes a signature.
const (
	maxManifestBytes  = 1 << 20
	maxSignatureBytes = 4 << 10
)

func (s *Server) pluginManager() (*plugins.Manager, error) {
	if s.cfg.Plugins == nil {
		return nil, apiError(http.StatusServiceUnavailable, "plugins_unavailable", "this server runs without managed plugins")
	}
	return s.cfg.Plugins, nil
}

// pluginUploadLimit is the body limit of POST /v1/plugins: the module cap
// plus room for a manifest, a signature and multipart framing.
func (s *Server) pluginUploadLimit() int64 {
	n := int64(s.cfg.PluginMaxModuleBytes)
	if n <= 0 {
		n = plugins.DefaultMaxModuleBytes
	}
	return n + maxManifestBytes + maxSignatureBytes + 64<<10
}

// pluginError maps the plugins package's errors onto statuses.
func pluginError(err error) error {
	var re *plugins.RefusedError
	switch {
	case errors.As(err, &re):
		return apiError(http.StatusUnprocessableEntity, "plugin_refused", re.Error())
	case errors.Is(err, plugins.ErrNotFound):
		return apiError(http.StatusNotFound, "not_found", err.Error())
	case errors.Is(err, plugins.ErrConflict):
		return apiError(http.StatusConflict, "conflict", err.Error())
	case errors.Is(err, plugins.ErrNoScanLog):
		return apiError(http.StatusServiceUnavailable, "scanlog_unavailable", err.Error())
	}
	return err
}

func readPart(r io.Reader, limit int64, what string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, bodyTooLarge(mbe.Limit)
		}
		return nil, apiError(http.StatusBadRequest, "invalid_request", "read "+what+": "+err.Error())
	}
	if int64(len(b)) > limit {
		return nil, &apiErr{Status: http.StatusRequestEntityTooLarge, Code: "body_too_large", Field: what,
			Message: fmt.Sprintf("%s is over its %d-byte limit", what, limit)}
	}
	return b, nil
}

// uploadPlugin is POST /v1/plugins: the module as the body
// (application/wasm) or multipart (module, signature, manifest).
func (s *Server) uploadPlugin(c echo.Context) error {
	m, err := s.pluginManager()
	if err != nil {
		return err
	}
	req := plugins.UploadRequest{By: keyOf(c).ID}
	if v := c.QueryParam("activate"); v != "" {
		if req.Activate, err = strconv.ParseBool(v); err != nil {
			return &apiErr{Status: http.StatusBadRequest, Code: "invalid_request", Field: "activate", Message: "activate must be true or false"}
		}
	}
	limit := s.pluginUploadLimit()
	body := http.MaxBytesReader(c.Response(), c.Request().Body, limit)
	c.Request().Body = body
	ct, params, _ := mime.ParseMediaType(c.Request().Header.Get("Content-Type"))
	moduleLimit := limit - maxManifestBytes - maxSignatureBytes
	switch ct {
	case "application/wasm", "application/octet-stream":
		if req.Module, err = readPart(body, moduleLimit, "module"); err != nil {
			return err
		}
	case "multipart/form-data":
		if params["boundary"] == "" {
			return apiError(http.StatusBadRequest, "invalid_request", "multipart body without a boundary")
		}
		mr, err := c.Request().MultipartReader()
		if err != nil {
			return apiError(http.StatusBadRequest, "invalid_request", "multipart: "+err.Error())
		}
		for {
			part, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				var mbe *http.MaxBytesError
				if errors.As(err, &mbe) {
					return bodyTooLarge(mbe.Limit)
				}
				return apiError(http.StatusBadRequest, "invalid_request", "multipart: "+err.Error())
			}
			switch part.FormName() {
			case "module":
				req.Module, err = readPart(part, moduleLimit, "module")
			case "signature":
				req.Signature, err = readPart(part, maxSignatureBytes, "signature")
			case "manifest":
				req.Manifest, err = readPart(part, maxManifestBytes, "manifest")
			default:
				err = &apiErr{Status: http.StatusBadRequest, Code: "invalid_request", Field: part.FormName(),
					Message: fmt.Sprintf("unknown multipart field %q: want module, signature, manifest", part.FormName())}
			}
			part.Close()
			if err != nil {
				return err
			}
		}
	default:
		return apiError(http.StatusUnsupportedMediaType, "unsupported_media_type",
			"send the module as the body with Content-Type: application/wasm, or multipart/form-data with fields module, signature, manifest")
	}
	if len(req.Module) == 0 {
		return &apiErr{Status: http.StatusBadRequest, Code: "invalid_request", Field: "module", Message: "no module in the request"}
	}
	res, err := m.Upload(c.Request().Context(), req)
	var re *plugins.RefusedError
	if errors.As(err, &re) {
		return refusedJSON(c, err, res)
	}
	if err != nil {
		return pluginError(err)
	}
	return c.JSON(http.StatusCreated, res)
}

// refusedJSON answers 422 with the upload result (its validation report)
// and the error object every error answer has.
func refusedJSON(c echo.Context, err error, res plugins.UploadResult) error {
	b, merr := json.Marshal(res)
	if merr != nil {
		return merr
	}
	var body map[string]any
	if merr := json.Unmarshal(b, &body); merr != nil {
		return merr
	}
	body["error"] = &apiErr{Code: "plugin_refused", Message: err.Error()}
	return c.JSON(http.StatusUnprocessableEntity, body)
}

func (s *Server) listPlugins(c echo.Context) error {
	m, err := s.pluginManager()
	if err != nil {
		return err
	}
	list, err := m.List(c.Request().Context())
	if err != nil {
		return pluginError(err)
	}
	if list == nil {
		list = []plugins.Summary{}
	}
	return c.JSON(http.StatusOK, map[string]any{"plugins": list})
}

func (s *Server) getPlugin(c echo.Context) error {
	m, err := s.pluginManager()
	if err != nil {
		return err
	}
	d, err := m.Get(c.Request().Context(), c.Param("name"))
	if err != nil {
		return pluginError(err)
	}
	return c.JSON(http.StatusOK, d)
}

type activateRequest struct {
	Digest string `json:"digest"`
}

func (s *Server) activatePlugin(c echo.Context) error {
	m, err := s.pluginManager()
	if err != nil {
		return err
	}
	var req activateRequest
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	if !strings.HasPrefix(req.Digest, "sha256:") {
		return &apiErr{Status: http.StatusBadRequest, Code: "invalid_request", Field: "digest", Message: `digest is required: "sha256:" and 64 hex digits`}
	}
	res, err := m.Activate(c.Request().Context(), c.Param("name"), req.Digest)
	if err != nil {
		return pluginError(err)
	}
	return c.JSON(http.StatusOK, res)
}

func (s *Server) deactivatePlugin(c echo.Context) error {
	m, err := s.pluginManager()
	if err != nil {
		return err
	}
	res, err := m.Deactivate(c.Request().Context(), c.Param("name"))
	if err != nil {
		return pluginError(err)
	}
	return c.JSON(http.StatusOK, res)
}

func (s *Server) rollbackPlugin(c echo.Context) error {
	m, err := s.pluginManager()
	if err != nil {
		return err
	}
	res, err := m.Rollback(c.Request().Context(), c.Param("name"))
	if err != nil {
		return pluginError(err)
	}
	return c.JSON(http.StatusOK, res)
}

type shadowRequest struct {
	Digest string `json:"digest"`
	Limit  int    `json:"limit"`
}

func (s *Server) shadowPlugin(c echo.Context) error {
	m, err := s.pluginManager()
	if err != nil {
		return err
	}
	var req shadowRequest
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	if !strings.HasPrefix(req.Digest, "sha256:") {
		return &apiErr{Status: http.StatusBadRequest, Code: "invalid_request", Field: "digest", Message: `digest is required: "sha256:" and 64 hex digits`}
	}
	if req.Limit < 0 || req.Limit > plugins.MaxShadowLimit {
		return &apiErr{Status: http.StatusBadRequest, Code: "invalid_request", Field: "limit", Message: fmt.Sprintf("limit must be between 0 (default %d) and %d", plugins.DefaultShadowLimit, plugins.MaxShadowLimit)}
	}
	res, err := m.Shadow(c.Request().Context(), c.Param("name"), req.Digest, req.Limit)
	if err != nil {
		return pluginError(err)
	}
	return c.JSON(http.StatusOK, res)
}

func (s *Server) deletePluginRevision(c echo.Context) error {
	m, err := s.pluginManager()
	if err != nil {
		return err
	}
	if err := m.DeleteRevision(c.Request().Context(), c.Param("name"), c.Param("digest")); err != nil {
		return pluginError(err)
	}
	return c.NoContent(http.StatusNoContent)
}

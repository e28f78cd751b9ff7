package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"time"

	"github.com/toolwarden/toolwarden/sdk"
)

// PluginUpload is a rule plugin to upload with UploadPlugin.
type PluginUpload struct {
	// Module is the compiled .wasm file.
	Module []byte
	// Signature is the minisign signature of Module (the .minisig file);
	// servers with plugins.require_signature refuse a module without one.
	Signature []byte
	// Manifest is the plugin's manifest document (limits, failure policy,
	// mode, self-test cases); optional.
	Manifest []byte
	// Activate asks the server to activate the revision once it passed
	// validation, in the same call.
	Activate bool
}

// RuleRef is one rule a plugin declares. Servers list either the rule ids
// or the full declarations; both decode into it.
type RuleRef struct {
	sdk.RuleInfo
}

// UnmarshalJSON accepts a bare rule id or a full sdk.RuleInfo object.
func (r *RuleRef) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &r.ID)
	}
	return json.Unmarshal(b, &r.RuleInfo)
}

// ValidationCheck is one check a server ran on an uploaded module before
// accepting it (size, compile, imports, ABI, describe, rule ids, self-test).
type ValidationCheck struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
}

// Validation is the report of the checks on an uploaded module.
type Validation struct {
	OK     bool              `json:"ok"`
	Checks []ValidationCheck `json:"checks"`
}

// PluginRevision is one stored, content-addressed revision of a plugin.
type PluginRevision struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	// Digest is "sha256:" and the hex SHA-256 of the module.
	Digest     string     `json:"digest"`
	ABIVersion int        `json:"abi_version,omitempty"`
	Rules      []RuleRef  `json:"rules,omitempty"`
	Status     string     `json:"status,omitempty"`
	Signer     string     `json:"signer,omitempty"`
	Validation Validation `json:"validation"`
	CreatedAt  time.Time  `json:"created_at,omitzero"`
}

// PluginReplica is one server's view of a plugin: which revision it has
// loaded, or why it could not load the active one.
type PluginReplica struct {
	ID           string `json:"id"`
	LoadedDigest string `json:"loaded_digest,omitempty"`
	Error        string `json:"error,omitempty"`
}

// Plugin is a rule plugin as the server lists it: built-in packs too
// (Builtin, read-only), with the active revision and, from GetPlugin, every
// revision and replica.
type Plugin struct {
	Name         string           `json:"name"`
	Builtin      bool             `json:"builtin,omitempty"`
	ActiveDigest string           `json:"active_digest,omitempty"`
	Status       string           `json:"status,omitempty"`
	Rules        []RuleRef        `json:"rules,omitempty"`
	Revisions    []PluginRevision `json:"revisions,omitempty"`
	Replicas     []PluginReplica  `json:"replicas,omitempty"`
	Stats        map[string]any   `json:"stats,omitempty"`
}

// ChangedDecision is one recorded scan whose decision a candidate (plugin
// revision or policy) would change.
type ChangedDecision struct {
	ScanID      string       `json:"scan_id"`
	Before      sdk.Decision `json:"before"`
	After       sdk.Decision `json:"after"`
	RulesBefore []string     `json:"rules_before,omitempty"`
	RulesAfter  []string     `json:"rules_after,omitempty"`
}

// ReplayResult is the answer of a shadow run or a policy dry run: how many
// recorded scans were judged again and which decisions would change.
type ReplayResult struct {
	Replayed int               `json:"replayed"`
	Changed  []ChangedDecision `json:"changed"`
}

// UploadPlugin uploads a module (admin role). The server validates it
// before storing anything. A module that fails validation is refused: the
// error is an *APIError (422) and the returned revision, when the server
// sent one, carries the validation report saying which check failed.
// Without a signature or manifest the module goes as application/wasm,
// otherwise as multipart/form-data (module, signature, manifest).
func (c *Client) UploadPlugin(ctx context.Context, up PluginUpload) (*PluginRevision, error) {
	if len(up.Module) == 0 {
		return nil, fmt.Errorf("toolwarden client: upload plugin: empty module")
	}
	q := url.Values{}
	if up.Activate {
		q.Set("activate", "true")
	}
	cl := call{method: http.MethodPost, path: "/v1/plugins", query: q,
		accept: []int{http.StatusOK, http.StatusCreated, http.StatusUnprocessableEntity}}
	if len(up.Signature) == 0 && len(up.Manifest) == 0 {
		cl.raw, cl.contentType = up.Module, "application/wasm"
	} else {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		parts := []struct {
			field, file string
			data        []byte
		}{{"module", "plugin.wasm", up.Module}, {"signature", "plugin.wasm.minisig", up.Signature}, {"manifest", "manifest.yaml", up.Manifest}}
		for _, p := range parts {
			if len(p.data) == 0 {
				continue
			}
			w, err := mw.CreateFormFile(p.field, p.file)
			if err != nil {
				return nil, fmt.Errorf("toolwarden client: upload plugin: %s part: %w", p.field, err)
			}
			if _, err := w.Write(p.data); err != nil {
				return nil, fmt.Errorf("toolwarden client: upload plugin: %s part: %w", p.field, err)
			}
		}
		if err := mw.Close(); err != nil {
			return nil, fmt.Errorf("toolwarden client: upload plugin: %w", err)
		}
		cl.raw, cl.contentType = buf.Bytes(), mw.FormDataContentType()
	}
	var out struct {
		PluginRevision
		Error *APIError `json:"error"`
	}
	status, err := c.do(ctx, cl, &out)
	if err != nil {
		return nil, err
	}
	if status == http.StatusUnprocessableEntity {
		ae := out.Error
		if ae == nil {
			ae = &APIError{Code: "refused", Message: "the server refused the module"}
		}
		ae.StatusCode = status
		return &out.PluginRevision, ae
	}
	return &out.PluginRevision, nil
}

// ListPlugins lists the built-in packs and uploaded plugins (admin role).
func (c *Client) ListPlugins(ctx context.Context) ([]Plugin, error) {
	var out struct {
		Plugins []Plugin `json:"plugins"`
	}
	if _, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/plugins", idempotent: true}, &out); err != nil {
		return nil, err
	}
	return out.Plugins, nil
}

// GetPlugin returns one plugin with its revisions, active digest and each
// replica's loaded digest (admin role).
func (c *Client) GetPlugin(ctx context.Context, name string) (*Plugin, error) {
	var out Plugin
	if _, err := c.do(ctx, call{method: http.MethodGet, path: pluginPath(name), idempotent: true}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ActivatePlugin makes the revision with digest the active one on every
// server (admin role).
func (c *Client) ActivatePlugin(ctx context.Context, name, digest string) (*Plugin, error) {
	return c.pluginAction(ctx, name, "activate", map[string]string{"digest": digest})
}

// DeactivatePlugin stops running the plugin on every server; its revisions
// stay stored (admin role).
func (c *Client) DeactivatePlugin(ctx context.Context, name string) (*Plugin, error) {
	return c.pluginAction(ctx, name, "deactivate", nil)
}

// RollbackPlugin activates the revision that was active before the current
// one (admin role).
func (c *Client) RollbackPlugin(ctx context.Context, name string) (*Plugin, error) {
	return c.pluginAction(ctx, name, "rollback", nil)
}

// ShadowPlugin replays up to limit recorded scans with the candidate
// revision and reports the decisions it would change (admin role).
func (c *Client) ShadowPlugin(ctx context.Context, name, digest string, limit int) (*ReplayResult, error) {
	var out ReplayResult
	if _, err := c.do(ctx, call{method: http.MethodPost, path: pluginPath(name) + "/shadow",
		body: map[string]any{"digest": digest, "limit": limit}, idempotent: true}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeletePluginRevision removes a stored revision that is not active (admin
// role).
func (c *Client) DeletePluginRevision(ctx context.Context, name, digest string) error {
	_, err := c.do(ctx, call{method: http.MethodDelete, path: pluginPath(name) + "/revisions/" + url.PathEscape(digest),
		idempotent: true, accept: []int{http.StatusOK, http.StatusNoContent}}, nil)
	return err
}

func (c *Client) pluginAction(ctx context.Context, name, action string, body any) (*Plugin, error) {
	if body == nil {
		body = map[string]any{}
	}
	var out Plugin
	if _, err := c.do(ctx, call{method: http.MethodPost, path: pluginPath(name) + "/" + action, body: body,
		idempotent: true}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

func pluginPath(name string) string { return "/v1/plugins/" + url.PathEscape(name) }

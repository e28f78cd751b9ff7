package server

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/auth"
	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/plugins"
	"github.com/toolwarden/toolwarden/internal/policystore"
	"github.com/toolwarden/toolwarden/internal/scanlog"
	"github.com/toolwarden/toolwarden/internal/service"
	"github.com/toolwarden/toolwarden/sdk"
)

// parsedOpenAPI is the served document, parsed.
func parsedOpenAPI(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(openapiDoc, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	return doc
}

// TestOpenAPIHasEveryRoute compares the document with the routes the
// server registers: a route added without documenting it fails here.
func TestOpenAPIHasEveryRoute(t *testing.T) {
	s := New(Config{RatePerSecond: -1}, nil, nil, nil)
	paths := parsedOpenAPI(t)["paths"].(map[string]any)
	for _, r := range s.e.Routes() {
		if strings.HasSuffix(r.Path, "/*") || r.Method == "echo_route_not_found" {
			continue
		}
		p := r.Path
		for _, seg := range strings.Split(p, "/") {
			if strings.HasPrefix(seg, ":") {
				p = strings.Replace(p, seg, "{"+seg[1:]+"}", 1)
			}
		}
		item, ok := paths[p].(map[string]any)
		if !ok {
			t.Errorf("route %s %s is not in openapi.json", r.Method, p)
			continue
		}
		if item[strings.ToLower(r.Method)] == nil {
			t.Errorf("route %s %s: method not in openapi.json", r.Method, p)
		}
	}
}

// jsonFields lists the JSON names of t's fields (embedded structs
// flattened), leaving out the names in skip.
func jsonFields(t reflect.Type, skip ...string) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			out = append(out, jsonFields(ft, skip...)...)
			continue
		}
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		skipped := false
		for _, s := range skip {
			skipped = skipped || s == name
		}
		if !skipped {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// TestOpenAPISchemasHaveEveryField compares each schema with the Go type
// the API really encodes or decodes.
func TestOpenAPISchemasHaveEveryField(t *testing.T) {
	schemas := parsedOpenAPI(t)["components"].(map[string]any)["schemas"].(map[string]any)
	cases := []struct {
		schema string
		typ    reflect.Type
		skip   []string
	}{
		// Worker bookkeeping and env values are cut from answers (Record.Public).
		{"Execution", reflect.TypeOf(execution.Record{}), []string{"worker_id", "lease_expires_at", "heartbeat_at", "env"}},
		{"ToolRequest", reflect.TypeOf(service.ToolRequest{}), nil},
		{"SafetyReport", reflect.TypeOf(sdk.SafetyReport{}), nil},
		{"Finding", reflect.TypeOf(sdk.Finding{}), nil},
		// Hash and MAC never leave the key store (Key.Public).
		{"Key", reflect.TypeOf(auth.Key{}), []string{"hash", "mac"}},
		{"PluginUpload", reflect.TypeOf(plugins.UploadResult{}), nil},
		{"PluginActivation", reflect.TypeOf(plugins.ActivateResult{}), nil},
		{"PluginSummary", reflect.TypeOf(plugins.Summary{}), nil},
		{"PluginDetail", reflect.TypeOf(plugins.Detail{}), nil},
		{"PluginReplica", reflect.TypeOf(plugins.ReplicaView{}), nil},
		{"PluginShadow", reflect.TypeOf(plugins.ShadowResult{}), nil},
		{"PolicyRevision", reflect.TypeOf(policystore.Revision{}), nil},
		{"PolicyDryRun", reflect.TypeOf(struct {
			Replayed     int            `json:"replayed"`
			ChangedCount int            `json:"changed_count"`
			Changed      []policyChange `json:"changed"`
		}{}), nil},
	}
	for _, c := range cases {
		sc, ok := schemas[c.schema].(map[string]any)
		if !ok {
			t.Errorf("schema %s missing", c.schema)
			continue
		}
		props, _ := sc["properties"].(map[string]any)
		for _, f := range jsonFields(c.typ, c.skip...) {
			if props[f] == nil {
				t.Errorf("schema %s lacks field %q", c.schema, f)
			}
		}
	}
}

// TestOpenAPIScanEntry: the ScanEntry schema has every field a logged scan
// is encoded with.
func TestOpenAPIScanEntry(t *testing.T) {
	schemas := parsedOpenAPI(t)["components"].(map[string]any)["schemas"].(map[string]any)
	e := scanlog.Entry{Report: &sdk.SafetyReport{}, Request: engine.Request{Env: map[string]string{"A": ""},
		CommandArgs: []string{"x"}, Metadata: map[string]any{"a": 1}, Cwd: "d", ToolName: "t", Language: "bash",
		TimeoutSeconds: 1, MaxOutputBytes: 1, ConversationID: "c"}}
	b, _ := json.Marshal(e)
	var doc map[string]any
	_ = json.Unmarshal(b, &doc)
	check := func(schema string, m map[string]any) {
		props, _ := schemas[schema].(map[string]any)["properties"].(map[string]any)
		for k := range m {
			if props[k] == nil {
				t.Errorf("schema %s lacks field %q", schema, k)
			}
		}
	}
	check("ScanEntry", doc)
	check("ScanRequest", doc["request"].(map[string]any))
}

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// markerModule is the rule plugin written by hand in WebAssembly text
// against ABI v1 (internal/plugins/testdata/marker.wat): it denies content that
// contains "twmarker-deny".
func markerModule(t *testing.T) []byte { return testModule(t, "marker.wasm") }

// testModule reads a module of internal/plugins/testdata.
func testModule(t *testing.T, name string) []byte {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "internal", "plugins", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// upload posts module as application/wasm with key.
func upload(t *testing.T, base, key string, module []byte, activate bool) (int, map[string]any) {
	t.Helper()
	u := base + "/v1/plugins"
	if activate {
		u += "?activate=true"
	}
	req, _ := http.NewRequest(http.MethodPost, u, bytes.NewReader(module))
	req.Header.Set("Content-Type", "application/wasm")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(data, &m)
	return resp.StatusCode, m
}

// scanDecision scans content through c and returns the decision and
// whether the marker rule fired.
func scanDecision(t *testing.T, c *client, content string) (string, bool) {
	t.Helper()
	code, body, err := c.do(context.Background(), http.MethodPost, "/v1/scan", map[string]any{"language": "bash", "command": content})
	if err != nil || code != http.StatusOK {
		t.Fatalf("scan: %d %s %v", code, body, err)
	}
	var rep struct {
		Decision string `json:"decision"`
		Findings []struct {
			RuleID string `json:"rule_id"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(body, &rep); err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.RuleID == "WAT_MARKER" {
			return rep.Decision, true
		}
	}
	return rep.Decision, false
}

func createKey(t *testing.T, admin *client, role string) string {
	t.Helper()
	code, body, err := admin.do(context.Background(), http.MethodPost, "/v1/keys", map[string]any{"name": role + "-" + randHex(4), "role": role})
	if err != nil || code != http.StatusCreated {
		t.Fatalf("create %s key: %d %s %v", role, code, body, err)
	}
	var k struct {
		Token string `json:"token"`
	}
	_ = json.Unmarshal(body, &k)
	return k.Token
}

// within polls cond until it holds or d passes, and says how long it took.
func within(t *testing.T, d time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > d {
			t.Fatalf("%s: not within %s", what, d)
		}
		time.Sleep(25 * time.Millisecond)
	}
	return time.Since(start)
}

// TestPluginUploadReachesBothRedisServers: two `serve` processes share one
// Redis. An agent's upload is refused; garbage is refused while scans go on;
// the hand-written WAT plugin uploaded and activated on one server judges
// scans on the other within 2 s; deactivation on the second reaches the
// first within 2 s; the routes refuse requests without a key.
func TestPluginUploadReachesBothRedisServers(t *testing.T) {
	url, prefix := needRedis(t)
	a := startServer(t, serverOpts{RedisURL: url, RedisPrefix: prefix, NoExecutor: true})
	b := startServer(t, serverOpts{RedisURL: url, RedisPrefix: prefix, NoExecutor: true, Key: a.opts.Key})
	agent := createKey(t, a.api, "agent")
	agentB := newClient(b.api.base, agent)

	if code, body := upload(t, a.api.base, "", markerModule(t), true); code != http.StatusUnauthorized {
		t.Fatalf("upload without a key: %d %v", code, body)
	}
	if code, body := upload(t, a.api.base, agent, markerModule(t), true); code != http.StatusForbidden {
		t.Fatalf("agent upload: %d %v", code, body)
	}
	// Garbage and a never-returning plugin are refused before activation
	// while scans go on, on both servers.
	stop := make(chan struct{})
	scanned := make(chan int)
	go func() {
		n := 0
		defer func() { scanned <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, c := range []*client{newClient(a.api.base, agent), agentB} {
				code, body, err := c.do(context.Background(), http.MethodPost, "/v1/scan", map[string]any{"language": "bash", "command": "ls -la"})
				if err != nil || code != http.StatusOK || !strings.Contains(string(body), `"decision":"allow"`) {
					t.Errorf("scan during refused uploads: %d %s %v", code, body, err)
					return
				}
				n++
			}
		}
	}()
	if code, body := upload(t, a.api.base, a.opts.Key, []byte("MZ\x90\x00 not wasm"), true); code != http.StatusUnprocessableEntity || body["status"] != "refused" {
		t.Fatalf("garbage upload: %d %v", code, body)
	}
	code, body := upload(t, a.api.base, a.opts.Key, testModule(t, "spin.wasm"), true)
	if code != http.StatusUnprocessableEntity || !strings.Contains(fmt.Sprint(body["validation"]), "self_test") || !strings.Contains(fmt.Sprint(body["validation"]), "deadline") {
		t.Fatalf("never-returning upload: %d %v", code, body)
	}
	close(stop)
	if n := <-scanned; n == 0 {
		t.Fatal("no scan ran during the refused uploads")
	}
	if dec, fired := scanDecision(t, agentB, "echo twmarker-deny"); fired || dec != "allow" {
		t.Fatalf("before activation: %s %v", dec, fired)
	}

	code, body = upload(t, a.api.base, a.opts.Key, markerModule(t), true)
	if code != http.StatusCreated || body["status"] != "active" {
		t.Fatalf("upload: %d %v", code, body)
	}
	digest := body["digest"].(string)
	took := within(t, 2*time.Second, "server b judges with the plugin", func() bool {
		dec, fired := scanDecision(t, agentB, "echo twmarker-deny")
		return fired && dec == "deny"
	})
	t.Logf("server b applied the activation %s after the upload answered", took)
	if dec, _ := scanDecision(t, agentB, "echo hello"); dec != "allow" {
		t.Fatalf("benign content on b: %s", dec)
	}
	within(t, 3*time.Second, "both replicas report the digest", func() bool {
		code, body, err := a.api.do(context.Background(), http.MethodGet, "/v1/plugins/marker", nil)
		return err == nil && code == 200 && strings.Count(string(body), `"loaded_digest":"`+digest+`"`) == 2
	})

	code, raw, err := b.api.do(context.Background(), http.MethodPost, "/v1/plugins/marker/deactivate", nil)
	if err != nil || code != http.StatusOK {
		t.Fatalf("deactivate on b: %d %s %v", code, raw, err)
	}
	agentA := newClient(a.api.base, agent)
	took = within(t, 2*time.Second, "server a applies the deactivation", func() bool {
		_, fired := scanDecision(t, agentA, "echo twmarker-deny")
		return !fired
	})
	t.Logf("server a applied the deactivation after %s", took)
	noKey := newClient(a.api.base, "")
	for _, p := range []string{"/v1/plugins", "/v1/plugins/marker"} {
		if code, _, _ := noKey.do(context.Background(), http.MethodGet, p, nil); code != http.StatusUnauthorized {
			t.Errorf("GET %s without a key: %d", p, code)
		}
	}
}

// TestPluginSurvivesSIGKILL: an activated plugin judges again after the
// server is SIGKILLed and restarted on the same data dir.
func TestPluginSurvivesSIGKILL(t *testing.T) {
	s := startServer(t, serverOpts{NoExecutor: true})
	code, body := upload(t, s.api.base, s.opts.Key, markerModule(t), true)
	if code != http.StatusCreated {
		t.Fatalf("upload: %d %v", code, body)
	}
	if dec, fired := scanDecision(t, s.api, "echo twmarker-deny"); !fired || dec != "deny" {
		t.Fatalf("before the kill: %s %v", dec, fired)
	}
	s.kill(t)
	s2 := s.restart(t)
	if dec, fired := scanDecision(t, s2.api, "echo twmarker-deny"); !fired || dec != "deny" {
		t.Fatalf("after SIGKILL and restart: %s %v", dec, fired)
	}
	code, raw, err := s2.api.do(context.Background(), http.MethodGet, "/readyz", nil)
	if err != nil || code != 200 || !strings.Contains(string(raw), `"plugin_set":"ok"`) {
		t.Fatalf("readyz after restart: %d %s %v", code, raw, err)
	}
}

// TestPluginShadowRunOverRecordedScans: scans recorded by a real server are
// replayed against an uploaded, inactive candidate, and the decision it
// would change is reported with the scan's id; nothing activates.
func TestPluginShadowRunOverRecordedScans(t *testing.T) {
	s := startServer(t, serverOpts{NoExecutor: true})
	code, raw, err := s.api.do(context.Background(), http.MethodPost, "/v1/scan", map[string]any{"language": "bash", "command": "echo twmarker-deny"})
	if err != nil || code != 200 {
		t.Fatalf("scan: %d %s %v", code, raw, err)
	}
	var rep struct {
		ScanID string `json:"scan_id"`
	}
	_ = json.Unmarshal(raw, &rep)
	code, body := upload(t, s.api.base, s.opts.Key, markerModule(t), false)
	if code != http.StatusCreated || body["status"] != "inactive" {
		t.Fatalf("upload: %d %v", code, body)
	}
	digest := body["digest"].(string)
	var res struct {
		Replayed int `json:"replayed"`
		Changed  []struct {
			ScanID     string   `json:"scan_id"`
			Before     string   `json:"before"`
			After      string   `json:"after"`
			RulesAfter []string `json:"rules_after"`
		} `json:"changed"`
	}
	within(t, 10*time.Second, "the recorded scan is replayed with a changed decision", func() bool {
		code, raw, err := s.api.do(context.Background(), http.MethodPost, "/v1/plugins/marker/shadow", map[string]any{"digest": digest, "limit": 50})
		if err != nil || code != 200 {
			t.Fatalf("shadow: %d %s %v", code, raw, err)
		}
		res.Changed = nil
		_ = json.Unmarshal(raw, &res)
		return len(res.Changed) > 0
	})
	c := res.Changed[0]
	if c.ScanID != rep.ScanID || c.Before != "allow" || c.After != "deny" || !strings.Contains(strings.Join(c.RulesAfter, ","), "WAT_MARKER") {
		t.Fatalf("change: %+v (scan %s)", c, rep.ScanID)
	}
	if _, fired := scanDecision(t, s.api, "echo twmarker-deny"); fired {
		t.Fatal("the shadow run activated the candidate")
	}
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/sdk/client"
)

// buildPlugin runs plugin init and plugin build for a plugin called name
// in a fresh directory and returns the directory and the module's path.
func buildPlugin(t *testing.T, name string) (dir, wasm string) {
	t.Helper()
	sdkDir, err := filepath.Abs(filepath.Join("..", "..", "sdk"))
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(t.TempDir(), name)
	wantCode(t, tw(t, "plugin", "init", name, "--dir", dir, "--sdk", sdkDir), 0)
	for _, f := range []string{"go.mod", "main.go", "rules.go", "rules_test.go", "manifest.yaml", "cases.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("init did not write %s: %v", f, err)
		}
	}
	r := tw(t, "plugin", "build", dir)
	wantCode(t, r, 0)
	wasm = filepath.Join(dir, name+".wasm")
	wantContains(t, "build output", r.stdout, wasm, "sha256:")
	return dir, wasm
}

// TestPluginRoundTrip is an author's workflow: init → build → test →
// inspect → keygen → sign → verify, each through the binary.
func TestPluginRoundTrip(t *testing.T) {
	dir, wasm := buildPlugin(t, "acme-rules")

	r := tw(t, "plugin", "test", wasm, "--corpus", filepath.Join(dir, "cases.jsonl"))
	wantCode(t, r, 0)
	wantContains(t, "test output", r.stdout, "ok   telnet is forbidden: deny [ACME_RULES_FORBIDDEN_COMMAND]", "4 passed, 0 failed")

	r = tw(t, "plugin", "inspect", "--json", wasm)
	wantCode(t, r, 0)
	var rep moduleReport
	decodeJSON(t, "inspect --json", r.stdout, &rep)
	data, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Digest != moduleDigest(data) || rep.ABIVersion != 2 || rep.Describe == nil ||
		rep.Describe.Name != "acme-rules" || len(rep.Describe.Rules) != 1 || rep.Describe.Rules[0].ID != "ACME_RULES_FORBIDDEN_COMMAND" {
		t.Fatalf("inspect report = %+v", rep)
	}
	wantContains(t, "imports", strings.Join(rep.Imports, " "), "wasi_snapshot_preview1.")
	wantContains(t, "exports", strings.Join(rep.Exports, " "), "describe", "scan", "alloc", "free", "abi_version", "configure", "scan_v2")

	keys := t.TempDir()
	wantCode(t, tw(t, "plugin", "keygen", "--out", filepath.Join(keys, "author")), 0)
	if st, err := os.Stat(filepath.Join(keys, "author.key")); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("private key file: %v, mode %v; want mode 0600", err, st.Mode())
	}
	wantCode(t, tw(t, "plugin", "keygen", "--out", filepath.Join(keys, "author")), exitUsage) // never overwrites
	wantCode(t, tw(t, "plugin", "sign", wasm, "--key", filepath.Join(keys, "author.key")), 0)
	r = tw(t, "plugin", "verify", wasm, "--pub", filepath.Join(keys, "author.pub"))
	wantCode(t, r, 0)
	wantContains(t, "verify output", r.stdout, "signature ok", rep.Digest)

	// A module changed after signing, and a key that did not sign, fail.
	tampered := filepath.Join(t.TempDir(), "tampered.wasm")
	if err := os.WriteFile(tampered, append(append([]byte{}, data...), 0), 0o644); err != nil {
		t.Fatal(err)
	}
	wantCode(t, tw(t, "plugin", "verify", tampered, "--pub", filepath.Join(keys, "author.pub"), "--sig", wasm+".minisig"), exitMismatch)
	wantCode(t, tw(t, "plugin", "keygen", "--out", filepath.Join(keys, "other")), 0)
	r = tw(t, "plugin", "verify", wasm, "--pub", filepath.Join(keys, "other.pub"))
	wantCode(t, r, exitMismatch)
	wantContains(t, "verify with another key", r.stderr, "not by")

	// An encrypted key needs its password from the environment.
	pw := invocation{env: []string{keyPasswordEnv + "=correct horse"}}
	wantCode(t, pw.run(t, "plugin", "keygen", "--out", filepath.Join(keys, "locked")), 0)
	wantCode(t, tw(t, "plugin", "sign", wasm, "--key", filepath.Join(keys, "locked.key"), "-o", filepath.Join(keys, "x.minisig")), exitUsage)
	wantCode(t, pw.run(t, "plugin", "sign", wasm, "--key", filepath.Join(keys, "locked.key"), "-o", filepath.Join(keys, "x.minisig")), 0)
	wantCode(t, tw(t, "plugin", "verify", wasm, "--pub", filepath.Join(keys, "locked.pub"), "--sig", filepath.Join(keys, "x.minisig")), 0)

	t.Run("push to a real server", func(t *testing.T) {
		pushToServe(t, dir, wasm, filepath.Join(keys, "author.pub"))
	})
	t.Run("mismatch exits non-zero", func(t *testing.T) {
		corpus := filepath.Join(t.TempDir(), "wrong.jsonl")
		lines := `{"name": "expects allow", "content": "telnet example.com", "language": "bash", "decision": "allow", "rules": []}
{"name": "expects another rule", "content": "ls", "language": "bash", "decision": "allow", "rules": ["ACME_RULES_OTHER"]}
{"name": "right", "content": "ls", "language": "bash", "decision": "allow", "rules": []}
`
		if err := os.WriteFile(corpus, []byte(lines), 0o644); err != nil {
			t.Fatal(err)
		}
		r := tw(t, "plugin", "test", wasm, "--corpus", corpus)
		wantCode(t, r, exitMismatch)
		wantContains(t, "test output", r.stdout,
			"FAIL expects allow: decision deny, want allow; rules [ACME_RULES_FORBIDDEN_COMMAND], want []",
			"FAIL expects another rule: rules [], want [ACME_RULES_OTHER]", "ok   right", "1 passed, 2 failed")
	})
	t.Run("corpus typos are errors", func(t *testing.T) {
		corpus := filepath.Join(t.TempDir(), "typo.jsonl")
		if err := os.WriteFile(corpus, []byte(`{"content": "ls", "decison": "allow"}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r := tw(t, "plugin", "test", wasm, "--corpus", corpus)
		wantCode(t, r, exitUsage)
		wantContains(t, "stderr", r.stderr, "line 1", "decison")
	})
	t.Run("bench", func(t *testing.T) {
		r := tw(t, "plugin", "bench", wasm, "--corpus", filepath.Join(dir, "cases.jsonl"), "--rounds", "3")
		wantCode(t, r, 0)
		wantContains(t, "bench output", r.stdout, "4 cases × 3 rounds", "with plugin:", "without rules:", "plugin adds:")
	})
}

// pushToServe starts `toolwarden serve` trusting pubFile and requiring
// signatures, pushes the signed module with its manifest and --activate,
// and checks that scans then run the plugin's rule.
func pushToServe(t *testing.T, dir, wasm, pubFile string) {
	t.Helper()
	pub, err := os.ReadFile(pubFile)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(pub)), "\n")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	data := filepath.Join(t.TempDir(), "data")
	cfg := filepath.Join(t.TempDir(), "serve.yaml")
	doc := fmt.Sprintf("plugins:\n  require_signature: true\n  trusted_keys: [%q]\n", lines[len(lines)-1])
	if err := os.WriteFile(cfg, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	const adminKey = "tw_plugin_push_test_admin_key_0123456789"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	serve := exec.CommandContext(ctx, bin, "serve", "--no-executor", "--listen", addr, "--data-dir", data, "--config", cfg)
	serve.Env = append(os.Environ(), "TOOLWARDEN_ADMIN_KEY="+adminKey)
	var out strings.Builder
	serve.Stdout, serve.Stderr = &out, &out
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel()
		_ = serve.Wait()
		if t.Failed() {
			t.Logf("serve output:\n%s", clip(out.String()))
		}
	}()
	url := "http://" + addr
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := http.Get(url + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not answer within 2 minutes")
		}
		time.Sleep(200 * time.Millisecond)
	}
	env := invocation{env: []string{"TOOLWARDEN_KEY=" + adminKey}}
	// Unsigned: refused, since the server requires signatures.
	r := env.run(t, "plugin", "push", wasm, "--server", url, "--unsigned")
	if r.code == 0 {
		t.Fatalf("an unsigned push was accepted by a server that requires signatures:\n%s", r)
	}
	r = env.run(t, "plugin", "push", wasm, "--server", url, "--manifest", filepath.Join(dir, "manifest.yaml"), "--activate")
	wantCode(t, r, 0)
	var rev client.PluginRevision
	decodeJSON(t, "push output", r.stdout, &rev)
	data2, _ := os.ReadFile(wasm)
	if rev.Digest != moduleDigest(data2) || rev.Name != "acme-rules" || !rev.Validation.OK {
		t.Fatalf("push answered %+v", rev)
	}
	c, err := client.New(url, adminKey)
	if err != nil {
		t.Fatal(err)
	}
	var rules []string
	for time.Now().Before(deadline) {
		rep, err := c.Scan(context.Background(), client.ToolRequest{Language: "bash", Command: "telnet example.com 23"})
		if err != nil {
			t.Fatal(err)
		}
		rules = rules[:0]
		for _, f := range rep.Findings {
			rules = append(rules, f.RuleID)
		}
		if slices.Contains(rules, "ACME_RULES_FORBIDDEN_COMMAND") {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("after push --activate a scan reports %v, want ACME_RULES_FORBIDDEN_COMMAND", rules)
}

func TestPluginInitRefuses(t *testing.T) {
	wantCode(t, tw(t, "plugin", "init", "Bad_Name", "--dir", filepath.Join(t.TempDir(), "x")), exitUsage)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "keep.go"), []byte("package keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := tw(t, "plugin", "init", "fine", "--dir", dir)
	wantCode(t, r, exitUsage)
	wantContains(t, "stderr", r.stderr, "not empty")
}

// TestPluginInspectRefusesGarbage: a file that is not a rule plugin is
// reported with the reason and a non-zero exit.
func TestPluginInspectRefusesGarbage(t *testing.T) {
	f := filepath.Join(t.TempDir(), "garbage.wasm")
	if err := os.WriteFile(f, []byte("\x00asm\x01\x00\x00\x00garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := tw(t, "plugin", "inspect", f)
	wantCode(t, r, exitMismatch)
	wantContains(t, "stderr", r.stderr, "would not load", "compile")
}

// TestPluginPush checks what push sends: the module, its signature and
// manifest as multipart parts, ?activate=true and the admin key.
func TestPluginPush(t *testing.T) {
	dir := t.TempDir()
	wasm := filepath.Join(dir, "p.wasm")
	files := map[string]string{wasm: "\x00asmmodule", wasm + ".minisig": "sig-bytes", filepath.Join(dir, "manifest.json"): `{"name":"p"}`}
	for p, c := range files {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got map[string]string
	var query, auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/plugins" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		query, auth = r.URL.RawQuery, r.Header.Get("Authorization")
		got = map[string]string{}
		mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if mt != "multipart/form-data" {
			b, _ := io.ReadAll(r.Body)
			got["body:"+mt] = string(b)
		} else {
			mr := multipart.NewReader(r.Body, params["boundary"])
			for {
				p, err := mr.NextPart()
				if err != nil {
					break
				}
				b, _ := io.ReadAll(p)
				got[p.FormName()] = string(b)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(map[string]any{"name": "p", "digest": "sha256:abc", "abi_version": 1,
			"rules": []string{"P_RULE"}, "status": "active", "validation": map[string]any{"ok": true}})
	}))
	defer srv.Close()
	env := invocation{env: []string{"TOOLWARDEN_KEY=admin-token"}}
	r := env.run(t, "plugin", "push", wasm, "--server", srv.URL, "--manifest", filepath.Join(dir, "manifest.json"), "--activate")
	wantCode(t, r, 0)
	if got["module"] != files[wasm] || got["signature"] != "sig-bytes" || got["manifest"] != `{"name":"p"}` {
		t.Fatalf("parts = %q", got)
	}
	if query != "activate=true" || auth != "Bearer admin-token" {
		t.Fatalf("query %q, auth %q", query, auth)
	}
	wantContains(t, "push output", r.stdout, `"digest": "sha256:abc"`, `"status": "active"`)

	// Unsigned and without a manifest: the module alone, as application/wasm.
	r = env.run(t, "plugin", "push", wasm, "--server", srv.URL, "--unsigned")
	wantCode(t, r, 0)
	if got["body:application/wasm"] != files[wasm] || query != "" {
		t.Fatalf("unsigned push sent %q with query %q", got, query)
	}
	// A refusal (422) prints the validation report and exits 1.
	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnprocessableEntity)
		_, _ = io.WriteString(w, `{"name":"p","digest":"sha256:abc","status":"refused","validation":{"ok":false,"checks":[{"name":"self_test","ok":false,"detail":"case 1: deny, want allow"}]},"error":{"code":"plugin_refused","message":"self-test failed"}}`)
	}))
	defer refuse.Close()
	r = env.run(t, "plugin", "push", wasm, "--server", refuse.URL)
	wantCode(t, r, 1)
	wantContains(t, "refused push", r.stdout, `"self_test"`, "case 1: deny, want allow")
	wantContains(t, "refused push", r.stderr, "422", "self-test failed")
	// No key, no upload.
	wantCode(t, tw(t, "plugin", "push", wasm, "--server", srv.URL), exitUsage)
}

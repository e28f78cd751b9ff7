package webui_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromiumPath is Debian's Chromium, which the browser tests drive.
const chromiumPath = "/usr/bin/chromium"

// screenshotDirEnv names the directory screenshots are written to
// (docs/screenshots is refreshed with TOOLWARDEN_SCREENSHOTS=../docs/screenshots);
// without it they go to the test's temporary directory.
const screenshotDirEnv = "TOOLWARDEN_SCREENSHOTS"

// browser is one headless Chromium with a fresh profile, and what the page
// did: every request's URL and every console error or exception.
type browser struct {
	t    *testing.T
	ctx  context.Context
	base string

	mu       sync.Mutex
	requests []string
	problems []string
}

// newBrowser starts Chromium for f's server, or skips the test when there
// is no Chromium (fails instead under CI=true).
func newBrowser(t *testing.T, f *fixture) *browser {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %s is missing: install Debian's chromium (apt-get install -y chromium)", chromiumPath)
		}
		t.Skipf("browser test skipped: %s is missing (apt-get install -y chromium)", chromiumPath)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	b := &browser{t: t, ctx: ctx, base: f.url}
	err := chromedp.Listen(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			b.requests = append(b.requests, e.Request.URL)
		case *runtime.EventExceptionThrown:
			b.problems = append(b.problems, "exception: "+(&chromedp.ExceptionError{ExceptionDetails: e.ExceptionDetails}).Error())
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				b.problems = append(b.problems, "console error: "+strings.Join(parts, " "))
			}
		case *cdplog.EventEntryAdded:
			// Refused loads (a CSP violation is one) are logged as
			// errors; answers such as a 401 before sign-in are the
			// API's and come from the network source.
			if e.Entry.Level == cdplog.EntryLevelError && e.Entry.Source != cdplog.EntrySourceNetwork {
				b.problems = append(b.problems, "log error ("+string(e.Entry.Source)+"): "+e.Entry.Text)
			}
		case *page.EventJavascriptDialogOpening:
			// confirm() dialogs (revoke, cancel conversation): accept,
			// from another goroutine (Listen's fn must not call).
			go chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	})
	if err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("enable network events: %v", err)
	}
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("enable log events: %v", err)
	}
	t.Cleanup(b.checkClean)
	return b
}

// checkClean fails the test when the page threw, logged an error (a CSP
// violation is one) or requested anything from another origin.
func (b *browser) checkClean() {
	b.mu.Lock()
	defer b.mu.Unlock()
	base, _ := url.Parse(b.base)
	for _, p := range b.problems {
		b.t.Errorf("page problem: %s", p)
	}
	for _, r := range b.requests {
		u, err := url.Parse(r)
		if err != nil || (u.Scheme != "data" && u.Host != base.Host) {
			b.t.Errorf("the panel requested %q, outside its own origin", r)
		}
	}
	if len(b.requests) == 0 {
		b.t.Error("no requests recorded")
	}
}

func (b *browser) run(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		b.t.Fatalf("browser: %v", err)
	}
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](b *browser, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.t.Fatalf("browser: evaluate %s: %v", expr, err)
	}
	return v
}

// text returns the visible text of the first element matching the CSS
// selector sel ("" when there is none).
func (b *browser) text(sel string) string {
	b.t.Helper()
	return eval[string](b, `(() => { const e = document.querySelector(`+jsString(sel)+`); return e ? e.innerText : ""; })()`)
}

// waitText waits until the element matching sel contains want.
func (b *browser) waitText(sel, want string) {
	b.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	got := ""
	for time.Now().Before(deadline) {
		if got = b.text(sel); strings.Contains(got, want) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.t.Fatalf("%s never showed %q; it shows %q", sel, want, got)
}

// click clicks the element matching the CSS selector sel.
func (b *browser) click(sel string) {
	b.t.Helper()
	b.run(chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
}

// fill sets the value of the input matching sel.
func (b *browser) fill(sel, value string) {
	b.t.Helper()
	b.run(chromedp.SetValue(chromedp.CSS(sel), value, chromedp.NodeVisible))
}

// waitVisible waits for an element matching sel to be visible.
func (b *browser) waitVisible(sel string) {
	b.t.Helper()
	b.run(chromedp.WaitVisible(chromedp.CSS(sel)))
}

// checkUsable fails the test when a form control on the page has no label
// or a button no name, or when the page is wider than the window (it
// must reflow, with wide tables scrolling in their own box).
func (b *browser) checkUsable() {
	b.t.Helper()
	unlabelled := eval[string](b, `[...document.querySelectorAll("input, select, textarea")]
		.filter((e) => e.type !== "hidden" && !e.labels.length && !e.getAttribute("aria-label"))
		.map((e) => e.outerHTML.slice(0, 80)).join(" | ")`)
	if unlabelled != "" {
		b.t.Errorf("controls without a label: %s", unlabelled)
	}
	nameless := eval[string](b, `[...document.querySelectorAll("button, a[href]")]
		.filter((e) => !(e.innerText || e.getAttribute("aria-label") || "").trim())
		.map((e) => e.outerHTML.slice(0, 80)).join(" | ")`)
	if nameless != "" {
		b.t.Errorf("buttons or links without a name: %s", nameless)
	}
	if over := eval[bool](b, "document.documentElement.scrollWidth > window.innerWidth + 1"); over {
		b.t.Errorf("the page is wider than the window")
	}
}

func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// screenshot saves the full page as name.png under the screenshot
// directory, as a test artefact.
func (b *browser) screenshot(name string) {
	b.t.Helper()
	dir := os.Getenv(screenshotDirEnv)
	if dir == "" {
		dir = b.t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	b.checkUsable()
	// Quality 100 makes chromedp capture PNG.
	buf, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot: %v", err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot %s", path)
}

// ---- page objects ----

// signInPage is the panel's sign-in form.
type signInPage struct{ b *browser }

func (p signInPage) open() signInPage {
	p.b.run(chromedp.Navigate(p.b.base + "/"))
	p.b.waitVisible("#signin-key")
	return p
}

func (p signInPage) signIn(key string) {
	p.b.fill("#signin-key", key)
	p.b.click("#signin-submit")
}

// shell is the signed-in panel: navigation and the role shown.
type shell struct{ b *browser }

func (s shell) goTo(pageID string) {
	s.b.click(`#nav a[data-page="` + pageID + `"]`)
	s.b.waitVisible(`main[data-page="` + pageID + `"]`)
}

func (s shell) role() string { return s.b.text("#who-role") }

// signedIn opens the panel and signs in with key.
func signedIn(t *testing.T, f *fixture, key string) (*browser, shell) {
	b := newBrowser(t, f)
	signInPage{b}.open().signIn(key)
	b.waitVisible(`main[data-page]:not([data-page="signin"])`)
	return b, shell{b}
}

func chromedpReload() chromedp.Action[chromedp.Void] { return chromedp.Reload() }

// chromedpSelect picks value in the select matching sel.
func chromedpSelect(sel, value string) chromedp.Action[chromedp.Void] {
	return chromedp.SetValue(chromedp.CSS(sel), value, chromedp.NodeVisible)
}

// chromedpKeys sends keys to the page (whatever has focus).
func chromedpKeys(keys string) chromedp.Action[chromedp.Void] { return chromedp.KeyEvent(keys) }

// chromedpType focuses the element matching sel and types text into it.
func chromedpType(sel, text string) chromedp.Action[chromedp.Void] {
	return chromedp.SendKeys(chromedp.CSS(sel), text, chromedp.NodeVisible)
}

// Package runner runs one command line or script through an isolation
// backend and turns what happened into one Result: a final status, the exit
// code, the canonical reduced output and the cleanup outcome.
//
// It owns the run's policy on time: a hard timeout (tool_timeout_minutes)
// and a no-output timeout (shell_no_output_timeout_seconds) kill the whole
// process tree, as does cancellation from the caller. stdout and stderr are
// merged into one reduction.Writer, so the result is bounded whatever the
// command prints, and a running command's tail can be previewed at any
// time through Handle.Partial.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/toolwarden/toolwarden/internal/egress"
	"github.com/toolwarden/toolwarden/internal/errs"
	"github.com/toolwarden/toolwarden/internal/isolation"
	"github.com/toolwarden/toolwarden/internal/reduction"
)

// Final statuses of a run, as the execution records name them.
const (
	StatusCompleted   = "completed"
	StatusFailed      = "failed"
	StatusHardTimeout = "hard_timeout"
	StatusCancelled   = "cancelled"
)

// Languages a run can be written in.
const (
	LanguageBash   = "bash"
	LanguagePython = "python"
)

// Defaults from the execution-governance design.
const (
	// DefaultTimeout is tool_timeout_minutes (60).
	DefaultTimeout = 60 * time.Minute
	// DefaultNoOutputTimeout is shell_no_output_timeout_seconds (1200).
	DefaultNoOutputTimeout = 1200 * time.Second
	// DefaultPartialInterval throttles Options.OnPartial.
	DefaultPartialInterval = 500 * time.Millisecond
	// defaultPath is used when the daemon itself has no PATH, so a run
	// never depends on an empty search path.
	defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	// nobodyUID is the uid the isolation backends run workloads as when
	// none is configured (see isolation.Hardening).
	nobodyUID = 65534
)

// DefaultEnvAllowlist names the daemon environment variables a run sees
// when Options.EnvAllowlist is nil. Nothing else of the daemon's
// environment (tokens, keys, proxy settings) reaches the command.
var DefaultEnvAllowlist = []string{"PATH", "LANG", "LC_ALL", "TZ"}

// Options describe one run.
type Options struct {
	// Language is "bash" (default) or "python".
	Language string
	// Command is a command line, run with `bash -c` or `python3 -c`.
	// Exactly one of Command and Script is set.
	Command string
	// Script is a script body run with bash or python3. Without Stdin it is
	// fed to the interpreter on stdin (the script's own stdin is then
	// empty), so no file exists that another run sharing the workspace
	// could rewrite between the scan and the run. With Stdin set (the local
	// CLI) it is written to a 0600 temp file inside Workspace (owned by the
	// workload's uid), removed after the run.
	Script string
	// Interpreter overrides the program that runs the command or script
	// (a path or a name on PATH); by default bash or python3 from PATH.
	Interpreter string
	// Dir is the working directory; the daemon's working directory when
	// empty. It must be Workspace or under it.
	Dir string
	// Workspace is the run's workspace: HOME, the only read-write root
	// (isolation.Spec.Workspace) and where a Script is written. Dir when
	// empty.
	Workspace string
	// Env is set explicitly for the run and wins over the allowlist and
	// over HOME.
	Env map[string]string
	// EnvAllowlist names variables passed through from the daemon's
	// environment; DefaultEnvAllowlist when nil (an empty non-nil slice
	// passes nothing).
	EnvAllowlist []string
	// Stdin feeds the command; none when nil.
	Stdin io.Reader
	// Timeout is the hard timeout; DefaultTimeout when zero, none when
	// negative.
	Timeout time.Duration
	// NoOutputTimeout kills a run that prints nothing for this long;
	// DefaultNoOutputTimeout when zero, none when negative.
	NoOutputTimeout time.Duration
	// MaxResultBytes is the cap on the canonical result
	// (reduction_max_length_for_trunc); reduction.DefaultMaxLength when 0.
	MaxResultBytes int
	// ReductionRoot is where oversized outputs are persisted
	// (reduction.DefaultRoot when empty).
	ReductionRoot string
	// ConversationID and ExecutionID name the spill file; a random
	// ExecutionID is used when empty.
	ConversationID, ExecutionID string
	// Limits and Hardening are passed to the backend for this run.
	Limits    isolation.Limits
	Hardening isolation.Hardening
	// EgressProxy, when set, serves the run's egress proxy on a listener the
	// backend opens inside the run's network namespace
	// (isolation.Spec.EgressProxy); the run's environment then points every
	// common client at it (egress.Env), over any value of the request.
	EgressProxy func(ln net.Listener) error
	// OnPartial, when set, is called from a separate goroutine with the
	// output tail at most every PartialInterval while new output arrives.
	// It must not block for long.
	OnPartial func(reduction.PartialOutput)
	// PartialInterval throttles OnPartial; DefaultPartialInterval when 0.
	PartialInterval time.Duration
}

// Result is what happened to one run. It is built once the whole process
// tree is gone; every error met on the way (kill, cleanup, persisting the
// output) is recorded in it rather than dropped.
type Result struct {
	// Status is completed, failed, hard_timeout or cancelled.
	Status string `json:"status"`
	// ExitCode is the main process's exit code, -1 when a signal ended it.
	ExitCode int `json:"exit_code"`
	// Signal names the signal that ended the main process, if any.
	Signal string `json:"signal,omitempty"`
	// Output is the canonical reduced result (at most MaxResultBytes).
	Output string `json:"output"`
	// TotalBytes counts every byte the command printed.
	TotalBytes int64 `json:"total_bytes"`
	// SpillPath is the absolute path of the full output when it passed the
	// cap, "" otherwise.
	SpillPath string `json:"spill_path,omitempty"`
	// SpillError says why the full output could not be persisted.
	SpillError string `json:"spill_error,omitempty"`
	// OOMKilled and PidsLimited report that a limit of the run was hit.
	OOMKilled   bool `json:"oom_killed,omitempty"`
	PidsLimited bool `json:"pids_limited,omitempty"`
	// NoOutputTimeout reports that the hard_timeout came from silence.
	NoOutputTimeout bool `json:"no_output_timeout,omitempty"`
	// Backend, Layers and Cleanup describe the isolation that applied and
	// how its teardown went ("" when confirmed clean).
	Backend string   `json:"backend"`
	Layers  []string `json:"layers,omitempty"`
	Cleanup string   `json:"cleanup,omitempty"`
	// Error is a failure of the run machinery itself (waiting failed, the
	// partial-output callback panicked).
	Error string `json:"error,omitempty"`
	// Started and Ended bracket the run.
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended"`
}

// Duration is how long the run took.
func (r *Result) Duration() time.Duration { return r.Ended.Sub(r.Started) }

// Handle is a started run. The executor keeps it to preview output, to
// cancel from outside and to collect the Result.
type Handle struct {
	opts    Options
	backend string
	proc    isolation.Process
	out     *reduction.Writer
	script  string
	started time.Time

	// lastOutput is the time of the last write, as nanoseconds since
	// started (monotonic).
	lastOutput atomic.Int64

	stopOnce sync.Once
	stopCh   chan string // the reason a kill was requested
	cancel   context.CancelFunc

	mu        sync.Mutex
	reason    string   // first kill reason
	cleanup   []string // kill and teardown errors
	errs      []string // machinery errors (Result.Error)
	done      chan struct{}
	result    *Result
	runCtxErr func() error
}

// kill reasons, internal.
const (
	reasonCancel   = "cancel"
	reasonTimeout  = "timeout"
	reasonNoOutput = "no_output"
)

// Run starts a run and waits for it.
func Run(ctx context.Context, b isolation.Backend, opts Options) (*Result, error) {
	h, err := Start(ctx, b, opts)
	if err != nil {
		return nil, err
	}
	return h.Wait(), nil
}

// Start validates opts and starts the run under b. An error means nothing
// runs. Cancelling ctx kills the run (status cancelled).
func Start(ctx context.Context, b isolation.Backend, opts Options) (*Handle, error) {
	if b == nil {
		return nil, errors.New("runner: no isolation backend")
	}
	opts, err := withDefaults(opts)
	if err != nil {
		return nil, err
	}
	interp, err := interpreter(opts.Language, opts.Interpreter)
	if err != nil {
		return nil, err
	}
	out, err := reduction.NewWriter(reduction.Config{
		MaxLength:      opts.MaxResultBytes,
		Root:           opts.ReductionRoot,
		ConversationID: opts.ConversationID,
		ExecutionID:    opts.ExecutionID,
	})
	if err != nil {
		return nil, fmt.Errorf("runner: output capture: %w", err)
	}
	h := &Handle{
		opts:    opts,
		backend: b.Name(),
		out:     out,
		stopCh:  make(chan string, 1),
		done:    make(chan struct{}),
	}
	args := []string{interp}
	stdin := opts.Stdin
	if opts.Script != "" && stdin == nil {
		// No file a concurrent run of the same workspace could rewrite
		// between the scan and the interpreter's read: the body goes in
		// on stdin and is read whole before any of it runs.
		args = append(args, stdinScriptArgs(opts.Language)...)
		stdin = strings.NewReader(opts.Script)
	} else if opts.Script != "" {
		uid, gid := workloadUID(opts.Hardening)
		h.script, err = writeScript(opts.Workspace, opts.Language, opts.Script, uid, gid)
		if err != nil {
			return nil, err
		}
		args = append(args, scriptArg(opts.Dir, h.script))
	} else {
		args = append(args, "-c", opts.Command)
	}
	spec := isolation.Spec{
		Path:        interp,
		Args:        args,
		Env:         buildEnv(opts),
		Dir:         opts.Dir,
		Stdin:       stdin,
		Stdout:      activityWriter{h},
		Stderr:      activityWriter{h},
		Workspace:   opts.Workspace,
		Limits:      opts.Limits,
		Hardening:   opts.Hardening,
		EgressProxy: opts.EgressProxy,
	}
	runCtx, cancel := context.WithCancel(ctx)
	h.cancel = cancel
	h.runCtxErr = ctx.Err
	h.started = time.Now()
	proc, err := b.Start(runCtx, spec)
	if err != nil {
		cancel()
		h.removeScript()
		_ = out.Close()
		// Typed, so the executor tells a refusing backend from a bad
		// request without reading this text.
		return nil, errs.New(errs.IsolationRefused, "runner", fmt.Errorf("start %s under %s: %w", opts.Language, b.Name(), err))
	}
	h.proc = proc
	exited := make(chan struct{})
	supervised := make(chan struct{})
	reported := make(chan struct{})
	go h.supervise(ctx, exited, supervised)
	if opts.OnPartial != nil {
		go h.reportPartial(exited, reported)
	} else {
		close(reported)
	}
	go h.wait(exited, supervised, reported)
	return h, nil
}

func withDefaults(o Options) (Options, error) {
	switch o.Language {
	case "", "sh", LanguageBash:
		o.Language = LanguageBash
	case "python3", LanguagePython:
		o.Language = LanguagePython
	default:
		return o, fmt.Errorf("runner: unsupported language %q (want bash or python)", o.Language)
	}
	if (o.Command == "") == (o.Script == "") {
		return o, errors.New("runner: exactly one of Command and Script must be set")
	}
	for name := range o.Env {
		if msg := BadEnvName(name); msg != "" {
			return o, errors.New("runner: " + msg)
		}
	}
	if o.Dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return o, fmt.Errorf("runner: working directory: %w", err)
		}
		o.Dir = wd
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return o, fmt.Errorf("runner: working directory %q: %w", o.Dir, err)
	}
	st, err := os.Stat(dir)
	if err != nil {
		return o, fmt.Errorf("runner: working directory: %w", err)
	}
	if !st.IsDir() {
		return o, fmt.Errorf("runner: working directory %s is not a directory", dir)
	}
	o.Dir = dir
	if o.Workspace == "" {
		o.Workspace = dir
	}
	ws, err := filepath.Abs(o.Workspace)
	if err != nil {
		return o, fmt.Errorf("runner: workspace %q: %w", o.Workspace, err)
	}
	o.Workspace = filepath.Clean(ws)
	if o.Dir != o.Workspace && !strings.HasPrefix(o.Dir, o.Workspace+string(filepath.Separator)) {
		return o, fmt.Errorf("runner: working directory %s is outside the workspace %s", o.Dir, o.Workspace)
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.NoOutputTimeout == 0 {
		o.NoOutputTimeout = DefaultNoOutputTimeout
	}
	if o.PartialInterval <= 0 {
		o.PartialInterval = DefaultPartialInterval
	}
	if o.ExecutionID == "" {
		o.ExecutionID = uuid.NewString()
	}
	if o.EnvAllowlist == nil {
		o.EnvAllowlist = DefaultEnvAllowlist
	}
	return o, nil
}

// interpreter finds the program for a language on the daemon's PATH. When
// the daemon runs as root the workload runs as another uid, so only a
// program that uid can reach and execute is taken: a root-only install
// (e.g. under /root) would fail inside the run with "permission denied".
func interpreter(lang, override string) (string, error) {
	if override != "" {
		p, err := exec.LookPath(override)
		if err != nil {
			return "", fmt.Errorf("runner: interpreter %s: %w", override, err)
		}
		return filepath.Abs(p)
	}
	name := "bash"
	if lang == LanguagePython {
		name = "python3"
	}
	if os.Geteuid() != 0 {
		p, err := exec.LookPath(name)
		if err != nil {
			return "", fmt.Errorf("runner: find %s: %w", name, err)
		}
		return p, nil
	}
	path := os.Getenv("PATH")
	if path == "" {
		path = defaultPath
	}
	for _, dir := range filepath.SplitList(path + string(filepath.ListSeparator) + defaultPath) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if othersCanExec(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("runner: find %s: no copy on PATH is executable by an unprivileged workload", name)
}

// othersCanExec reports whether path (after symlinks) is a regular file
// that any uid may execute, in directories any uid may traverse.
func othersCanExec(path string) bool {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	st, err := os.Stat(real)
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o001 == 0 {
		return false
	}
	for dir := filepath.Dir(real); ; dir = filepath.Dir(dir) {
		st, err := os.Stat(dir)
		if err != nil || st.Mode().Perm()&0o001 == 0 {
			return false
		}
		if dir == filepath.Dir(dir) {
			return true
		}
	}
}

// BadEnvName says why name cannot be an environment variable name of a
// run ("" when it can): empty, or holding "=" or NUL. A name with "=" is
// the dangerous one: "BASH_ENV=x.sh" with value "" becomes the
// environment string "BASH_ENV=x.sh=", so the run gets BASH_ENV while the
// scan judged a name it does not know.
func BadEnvName(name string) string {
	switch {
	case name == "":
		return "an environment variable name is empty"
	case strings.ContainsAny(name, "=\x00"):
		return fmt.Sprintf("environment variable name %q holds \"=\" or NUL", name)
	}
	return ""
}

// buildEnv makes the complete environment of the run: the allowlisted
// daemon variables, HOME set to the workspace, then the explicit Env.
func buildEnv(o Options) []string {
	env := map[string]string{}
	for _, name := range o.EnvAllowlist {
		if v, ok := os.LookupEnv(name); ok {
			env[name] = v
		}
	}
	if _, ok := env["PATH"]; !ok {
		env["PATH"] = defaultPath
	}
	env["HOME"] = o.Workspace
	for k, v := range o.Env {
		env[k] = v
	}
	if o.EgressProxy != nil {
		for k, v := range egress.Env("http://" + isolation.EgressProxyAddr) {
			env[k] = v
		}
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, k+"="+env[k])
	}
	return out
}

// workloadUID is the uid the backend will run the workload as, when the
// daemon runs as root (-1 otherwise: no ownership change is possible or
// needed).
func workloadUID(hd isolation.Hardening) (uid, gid int) {
	if os.Geteuid() != 0 {
		return -1, -1
	}
	uid, gid = hd.UID, hd.GID
	if uid == 0 {
		uid = nobodyUID
	}
	if gid == 0 {
		gid = nobodyUID
	}
	return uid, gid
}

// stdinScriptArgs are the interpreter arguments that run a script body
// fed on stdin with the script's own stdin empty. Python compiles the
// whole module from stdin before it runs a line; bash reads it whole in a
// command substitution, then evaluates it with stdin from /dev/null (the
// sentinel keeps trailing newlines, so heredocs at the end stay intact).
func stdinScriptArgs(lang string) []string {
	if lang == LanguagePython {
		return []string{"-"}
	}
	return []string{"-c", `__toolwarden_script=$(cat; echo .); eval "unset __toolwarden_script
${__toolwarden_script%.}" </dev/null`}
}

// writeScript writes body to a fresh 0600 file in dir, owned by the
// workload's uid so that only the workload (and root) can read it.
func writeScript(dir, lang, body string, uid, gid int) (string, error) {
	ext := ".sh"
	if lang == LanguagePython {
		ext = ".py"
	}
	f, err := os.CreateTemp(dir, ".toolwarden-script-*"+ext)
	if err != nil {
		return "", fmt.Errorf("runner: create script file in %s: %w", dir, err)
	}
	name := f.Name()
	fail := func(step string, err error) (string, error) {
		_ = f.Close()
		_ = os.Remove(name)
		return "", fmt.Errorf("runner: %s script file %s: %w", step, name, err)
	}
	if err := f.Chmod(0o600); err != nil {
		return fail("chmod", err)
	}
	if uid >= 0 {
		if err := f.Chown(uid, gid); err != nil {
			return fail("chown", err)
		}
	}
	if _, err := io.WriteString(f, body); err != nil {
		return fail("write", err)
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(name)
		return "", fmt.Errorf("runner: close script file %s: %w", name, err)
	}
	return name, nil
}

// scriptArg names the script for the interpreter relative to the working
// directory: the workload reaches it through its cwd (entered before the
// uid drop), so no directory above the workspace needs to be traversable
// by the workload's uid (a 0700 data dir stays closed).
func scriptArg(dir, script string) string {
	rel, err := filepath.Rel(dir, script)
	if err != nil || filepath.IsAbs(rel) {
		return script
	}
	if !strings.Contains(rel, "/") {
		rel = "./" + rel // never a PATH search
	}
	return rel
}

// activityWriter feeds the run's output into the reduction Writer and
// records when output last arrived, for the no-output timeout.
type activityWriter struct{ h *Handle }

func (a activityWriter) Write(p []byte) (int, error) {
	a.h.lastOutput.Store(int64(time.Since(a.h.started)))
	return a.h.out.Write(p)
}

// supervise enforces the timeouts and cancellation until the run exits.
func (h *Handle) supervise(ctx context.Context, exited <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	var hard, idle <-chan time.Time
	if h.opts.Timeout > 0 {
		t := time.NewTimer(h.opts.Timeout)
		defer t.Stop()
		hard = t.C
	}
	var idleTimer *time.Timer
	if h.opts.NoOutputTimeout > 0 {
		idleTimer = time.NewTimer(h.opts.NoOutputTimeout)
		defer idleTimer.Stop()
		idle = idleTimer.C
	}
	for {
		var reason string
		select {
		case <-exited:
			return
		case <-ctx.Done():
			reason = reasonCancel
		case reason = <-h.stopCh:
		case <-hard:
			reason = reasonTimeout
		case <-idle:
			silent := time.Since(h.started) - time.Duration(h.lastOutput.Load())
			if silent < h.opts.NoOutputTimeout {
				idleTimer.Reset(h.opts.NoOutputTimeout - silent)
				continue
			}
			reason = reasonNoOutput
		}
		h.kill(reason)
		return
	}
}

// kill records the first reason and kills the whole tree; a failing kill
// is recorded in Cleanup.
func (h *Handle) kill(reason string) {
	h.mu.Lock()
	if h.reason == "" {
		h.reason = reason
	}
	h.mu.Unlock()
	if err := h.proc.Kill(); err != nil {
		h.recordCleanup(fmt.Sprintf("kill (%s): %v", reason, err))
	}
}

func (h *Handle) recordCleanup(s string) {
	h.mu.Lock()
	h.cleanup = append(h.cleanup, s)
	h.mu.Unlock()
}

// reportPartial calls OnPartial while output keeps arriving; it never
// calls it after the run has exited.
func (h *Handle) reportPartial(exited <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(h.opts.PartialInterval)
	defer t.Stop()
	var last int64
	for {
		select {
		case <-exited:
			return
		case <-t.C:
			p := h.out.Partial(reduction.DefaultPartialBytes)
			if p.TotalBytes != last {
				last = p.TotalBytes
				if !h.callOnPartial(p) {
					return
				}
			}
		}
	}
}

// callOnPartial calls OnPartial; a panicking callback is recorded in
// Result.Error and not called again, instead of taking the daemon down.
func (h *Handle) callOnPartial(p reduction.PartialOutput) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			h.mu.Lock()
			h.errs = append(h.errs, fmt.Sprintf("partial output callback panicked: %v", r))
			h.mu.Unlock()
			ok = false
		}
	}()
	h.opts.OnPartial(p)
	return true
}

// wait collects the exit and builds the Result once the tree is gone and
// the supervisor has finished any kill it started.
func (h *Handle) wait(exited chan struct{}, supervised, reported <-chan struct{}) {
	exit, werr := h.proc.Wait()
	ended := time.Now()
	close(exited)
	<-supervised
	<-reported
	h.cancel()
	h.removeScript()

	res := &Result{
		ExitCode:    exit.Code,
		Signal:      exit.Signal,
		OOMKilled:   exit.OOMKilled,
		PidsLimited: exit.PidsLimited,
		Backend:     h.backend,
		Layers:      h.proc.Layers(),
		Started:     h.started,
		Ended:       ended,
	}
	if err := h.out.Close(); err != nil {
		res.SpillError = err.Error()
	}
	out, err := h.out.Result()
	if err != nil && res.SpillError == "" {
		res.SpillError = err.Error()
	}
	res.Output = out
	res.TotalBytes = h.out.TotalBytes()
	res.SpillPath = h.out.SpillPath()

	h.mu.Lock()
	reason := h.reason
	cleanup := h.cleanup
	errs := h.errs
	h.mu.Unlock()
	if reason == "" && h.runCtxErr() != nil {
		// The backend saw the cancelled context first.
		reason = reasonCancel
	}
	switch {
	case reason == reasonCancel:
		res.Status = StatusCancelled
	case reason == reasonTimeout:
		res.Status = StatusHardTimeout
	case reason == reasonNoOutput:
		res.Status = StatusHardTimeout
		res.NoOutputTimeout = true
	case werr != nil:
		res.Status = StatusFailed
		errs = append([]string{fmt.Sprintf("wait: %v", werr)}, errs...)
	case exit.Code == 0 && exit.Signal == "":
		res.Status = StatusCompleted
	default:
		res.Status = StatusFailed
	}
	if c := h.proc.Cleanup(); c != "" {
		cleanup = append([]string{c}, cleanup...)
	}
	if reason != "" && werr != nil {
		cleanup = append(cleanup, fmt.Sprintf("wait after kill: %v", werr))
	}
	res.Cleanup = strings.Join(cleanup, "; ")
	res.Error = strings.Join(errs, "; ")

	h.mu.Lock()
	h.result = res
	h.mu.Unlock()
	close(h.done)
}

// removeScript deletes the script file; a failure is recorded.
func (h *Handle) removeScript() {
	if h.script == "" {
		return
	}
	if err := os.Remove(h.script); err != nil && !errors.Is(err, os.ErrNotExist) {
		h.recordCleanup(fmt.Sprintf("remove script: %v", err))
	}
	h.script = ""
}

// Pid is the main process's pid as the host sees it.
func (h *Handle) Pid() int { return h.proc.Pid() }

// ExecutionID is the run's execution id (generated when Options had none).
func (h *Handle) ExecutionID() string { return h.opts.ExecutionID }

// Partial previews the last maxBytes of the output so far (see
// reduction.ClampPartial for the bounds).
func (h *Handle) Partial(maxBytes int) reduction.PartialOutput { return h.out.Partial(maxBytes) }

// Cancel kills the run; its status becomes cancelled unless it already
// ended or a timeout fired first. It does not wait: use Wait or Done.
func (h *Handle) Cancel() {
	h.stopOnce.Do(func() { h.stopCh <- reasonCancel })
}

// Done is closed when the Result is ready.
func (h *Handle) Done() <-chan struct{} { return h.done }

// Wait blocks until the whole tree is gone and returns the Result.
func (h *Handle) Wait() *Result {
	<-h.done
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.result
}

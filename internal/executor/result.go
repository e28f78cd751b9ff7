package executor

import (
	"fmt"
	"strings"
	"time"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/runner"
)

// finalRecord maps a run's Result onto the outcome Finish writes. Result is
// runner's canonical reduced output byte for byte, so the store, the API and
// a wait all return what the run produced under the cap. kind and reason
// are the stop request, if one was made; opts are the options the run had,
// to explain a timeout.
func finalRecord(res *runner.Result, kind stopKind, reason string, opts runner.Options) *execution.Record {
	code := res.ExitCode
	ended := res.Ended
	f := &execution.Record{
		Status:           execution.Status(res.Status),
		ExitCode:         &code,
		EndedAt:          &ended,
		DurationMS:       res.Duration().Milliseconds(),
		Result:           res.Output,
		IsolationBackend: res.Backend,
		SpillPath:        res.SpillPath,

		EffectiveTimeoutMS: opts.Timeout.Milliseconds(),
	}
	if kind == stopWorkspaceLimit {
		// The run was killed for its workspace, whatever status the kill
		// produced: it failed, and the record says why.
		f.Status = execution.StatusFailed
		f.StopReason = execution.StopWorkspaceLimit
		f.StatusReason = reason
	}
	f.IsError = f.Status != execution.StatusCompleted
	f.Cleanup, f.CleanupDetail = cleanupOutcome(res.Cleanup)

	var errs []string
	switch f.Status {
	case execution.StatusCompleted:
	case execution.StatusFailed:
		switch {
		case kind == stopWorkspaceLimit:
			errs = append(errs, "stopped: "+reason)
		case res.Signal != "":
			errs = append(errs, "killed by signal "+res.Signal)
		default:
			errs = append(errs, fmt.Sprintf("exit code %d", res.ExitCode))
		}
	case execution.StatusHardTimeout:
		if res.NoOutputTimeout {
			f.StatusReason = fmt.Sprintf("no output for %s", opts.NoOutputTimeout)
		} else {
			f.StatusReason = fmt.Sprintf("hard timeout of %s", opts.Timeout)
		}
		errs = append(errs, f.StatusReason)
	case execution.StatusCancelled:
		if reason == "" {
			reason = "cancelled"
		}
		f.StatusReason = reason
		errs = append(errs, "cancelled: "+reason)
	default:
		// A status this package does not know must not be stored as if it
		// were one: record it as a failure that says so.
		errs = append(errs, fmt.Sprintf("runner returned unknown status %q", res.Status))
		f.Status, f.IsError = execution.StatusFailed, true
	}
	if res.OOMKilled {
		errs = append(errs, "memory limit reached (OOM kill)")
	}
	if res.PidsLimited {
		errs = append(errs, "process limit reached")
	}
	if res.Error != "" {
		errs = append(errs, res.Error)
	}
	if res.SpillError != "" {
		errs = append(errs, "full output not persisted: "+res.SpillError)
	}
	f.Error = strings.Join(errs, "; ")
	return f
}

// cleanupOutcome turns runner's cleanup text ("" when the tree was
// confirmed gone) into the record's outcome and detail. Anything that is
// not clearly "unconfirmed" counts as failed: an error never reads as clean.
func cleanupOutcome(s string) (execution.Cleanup, string) {
	switch {
	case s == "":
		return execution.CleanupDone, ""
	case strings.Contains(s, string(execution.CleanupFailed)):
		return execution.CleanupFailed, s
	case strings.Contains(s, string(execution.CleanupUnconfirmed)):
		return execution.CleanupUnconfirmed, s
	}
	return execution.CleanupFailed, s
}

// startFailed is the outcome of a record whose run could not start:
// nothing ran, so nothing is left to clean up.
func startFailed(err error, opts runner.Options) *execution.Record {
	now := time.Now()
	return &execution.Record{
		Status:  execution.StatusFailed,
		EndedAt: &now,
		Error:   "could not start: " + err.Error(),
		IsError: true,
		Cleanup: execution.CleanupDone,

		EffectiveTimeoutMS: opts.Timeout.Milliseconds(),
	}
}

// notStarted is the outcome of a record stopped (cancel or shutdown)
// between its claim and the start of its run.
func notStarted(reason string) *execution.Record {
	now := time.Now()
	return &execution.Record{
		Status:       execution.StatusCancelled,
		EndedAt:      &now,
		Error:        "cancelled before start: " + reason,
		IsError:      true,
		StatusReason: reason,
		Cleanup:      execution.CleanupDone,
	}
}

package engine

import (
	"github.com/toolwarden/toolwarden/internal/engine/staged"
	"github.com/toolwarden/toolwarden/internal/engine/wasmhost"
	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/sdk"
)

// The engine is the one package outside the sdk module that other modules
// are meant to import: everything it is built from lives under internal/
// (analyzers, the Wasm host, the report builder, audit and telemetry), so it
// can change without breaking an embedder. The names below are the few
// internal types an embedder must be able to name to use the API; they are
// aliases, so a value passes between the engine and its parts unconverted.

// Input is what a Pack judges: the scan's facts (ABI v2's layout, built once
// per scan) and the policy and plugin configuration in force. A custom Pack
// reads it; it never builds one.
type Input = wasmhost.Input

// StagedSource gives ScanStaged the files a run's workspace holds, read
// without following a link out of the workspace.
type StagedSource = staged.Source

// StagedFile is one workspace file a staged scan judged (its path, size and
// what it is run as).
type StagedFile = staged.File

// DefaultPolicy returns the embedded production policy (the one `toolwarden
// serve` starts with). Each call returns a fresh copy the caller may change.
func DefaultPolicy() *sdk.Policy { return policies.Default() }

// StrictPolicy returns the embedded policy for unattended agents
// (block_on_review: true).
func StrictPolicy() *sdk.Policy { return policies.Strict() }

// LoadPolicy reads a policy document strictly, as the server does: an unknown
// key, a wrong type or a negative limit is an error naming the file and the
// field, and fields the document omits take the default policy's values.
func LoadPolicy(path string) (*sdk.Policy, error) { return policies.Load(path) }

// Package version tells which build of toolwarden is running, from the
// build information the Go toolchain embeds in every binary (module
// version, VCS revision and time), so that a bug report or an audit log
// names the exact code without a release step stamping it in.
package version

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Info is what is known about the running build.
type Info struct {
	// Version is the main module's version ("(devel)" for a build from a
	// checkout, a tag such as v1.2.3 for `go install …@v1.2.3`).
	Version string `json:"version"`
	// Revision and Time are the VCS commit and its time when the binary was
	// built from a repository (empty otherwise); Modified says the work
	// tree had uncommitted changes.
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	// GoVersion is the toolchain that built the binary.
	GoVersion string `json:"go_version"`
}

// readBuildInfo is debug.ReadBuildInfo, replaceable in tests.
var readBuildInfo = debug.ReadBuildInfo

// Get returns the running build's Info. Without build information (a
// binary built without module support) the version is "unknown".
func Get() Info {
	bi, ok := readBuildInfo()
	if !ok || bi == nil {
		return Info{Version: "unknown"}
	}
	return fromBuildInfo(bi)
}

func fromBuildInfo(bi *debug.BuildInfo) Info {
	in := Info{Version: bi.Main.Version, GoVersion: bi.GoVersion}
	if in.Version == "" {
		in.Version = "(devel)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Revision = s.Value
		case "vcs.time":
			in.Time = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	return in
}

// String is the one-line form printed by `toolwarden --version`, e.g.
// "v1.2.0 (rev 0123abcd4567, 2026-12-01T20:00:00Z, modified) go1.26.4".
func (in Info) String() string {
	var extra []string
	if in.Revision != "" {
		rev := in.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		extra = append(extra, "rev "+rev)
	}
	if in.Time != "" {
		extra = append(extra, in.Time)
	}
	if in.Modified {
		extra = append(extra, "modified")
	}
	s := in.Version
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	if in.GoVersion != "" {
		s += " " + in.GoVersion
	}
	return fmt.Sprint(s)
}

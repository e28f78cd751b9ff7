package version

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestFromBuildInfoReadsVCSSettings(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.4", Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"},
		{Key: "vcs.time", Value: "2026-12-01T20:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	in := fromBuildInfo(bi)
	if in.Version != "v1.2.3" || in.Revision != "0123456789abcdef0123" || in.Time != "2026-12-01T20:00:00Z" || !in.Modified {
		t.Fatalf("info %+v", in)
	}
	want := "v1.2.3 (rev 0123456789ab, 2026-12-01T20:00:00Z, modified) go1.26.4"
	if got := in.String(); got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
}

func TestFromBuildInfoWithoutVCS(t *testing.T) {
	in := fromBuildInfo(&debug.BuildInfo{GoVersion: "go1.26.4"})
	if in.Version != "(devel)" || in.Revision != "" {
		t.Fatalf("info %+v", in)
	}
	if got := in.String(); got != "(devel) go1.26.4" {
		t.Fatalf("String() = %q", got)
	}
}

func TestGetWithoutBuildInfo(t *testing.T) {
	old := readBuildInfo
	t.Cleanup(func() { readBuildInfo = old })
	readBuildInfo = func() (*debug.BuildInfo, bool) { return nil, false }
	if got := Get().Version; got != "unknown" {
		t.Fatalf("Version = %q", got)
	}
}

func TestGetInTestBinary(t *testing.T) {
	// A test binary carries build info too; the version is never empty.
	if got := Get().String(); strings.TrimSpace(got) == "" {
		t.Fatal("empty version string")
	}
}

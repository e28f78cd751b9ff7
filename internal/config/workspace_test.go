package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWorkspaceKeys(t *testing.T) {
	c, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	w := c.Security.Workspace
	if len(w.UIDRange) != 2 || w.UIDRange[0] != 1879048192 || w.MaxBytes != 1<<30 || w.TTL != 24*time.Hour {
		t.Errorf("workspace defaults: %+v", w)
	}
	if abs, _ := filepath.Abs("data/workspaces"); c.WorkspaceRoot() != abs {
		t.Errorf("default root %s, want %s", c.WorkspaceRoot(), abs)
	}
	c, err = Load(write(t, `
data_dir: /srv/tw
security:
  process_isolation:
    mode: auto
  workspace:
    uid_range: [300000, 300009]
    max_bytes: 1048576
    ttl: 90m
`))
	if err != nil {
		t.Fatal(err)
	}
	w = c.Security.Workspace
	if len(w.UIDRange) != 2 || w.UIDRange[0] != 300000 || w.UIDRange[1] != 300009 || w.MaxBytes != 1<<20 ||
		w.TTL != 90*time.Minute || c.WorkspaceRoot() != "/srv/tw/workspaces" {
		t.Errorf("workspace from file: %+v root %s", w, c.WorkspaceRoot())
	}
	for doc, key := range map[string]string{
		"security:\n  workspace:\n    uid_range: [10, 20]\n": "security.workspace.uid_range",
		"security:\n  workspace:\n    uid_range: [400000]\n": "security.workspace.uid_range",
		"security:\n  workspace:\n    max_bytes: -5\n":       "security.workspace.max_bytes",
		"security:\n  workspace:\n    ttl: 0s\n":             "security.workspace.ttl",
	} {
		if _, err := Load(write(t, doc)); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%q: err %v, want one naming %s", doc, err, key)
		}
	}
}

package reduction

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func spilled(t *testing.T) (root, path string, data []byte) {
	t.Helper()
	root = t.TempDir()
	data = bytes.Repeat([]byte("0123456789"), 300)
	w, err := NewWriter(Config{MaxLength: MinMaxLength, Root: root, ConversationID: "c", ExecutionID: "e"})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return root, w.SpillPath(), data
}

func TestReadPersistedReadsRanges(t *testing.T) {
	root, path, data := spilled(t)
	c, err := ReadPersisted(root, path, 5, 20)
	if err != nil || !bytes.Equal(c.Data, data[5:25]) || c.Size != int64(len(data)) || c.EOF || c.Offset != 5 {
		t.Fatalf("chunk = %+v, %v", c, err)
	}
	c, err = ReadPersisted(root, path, int64(len(data)-7), 100)
	if err != nil || !bytes.Equal(c.Data, data[len(data)-7:]) || !c.EOF {
		t.Fatalf("last chunk = %q eof=%v, %v", c.Data, c.EOF, err)
	}
	c, err = ReadPersisted(root, path, int64(len(data)+10), 0)
	if err != nil || len(c.Data) != 0 || !c.EOF {
		t.Fatalf("past end = %+v, %v", c, err)
	}
	c, err = ReadPersisted(root, path, 0, 0)
	if err != nil || len(c.Data) != len(data) {
		t.Fatalf("default limit read %d bytes, %v", len(c.Data), err)
	}
	if _, err := ReadPersisted(root, path, -1, 10); err == nil {
		t.Fatal("negative offset accepted")
	}
}

func TestReadPersistedRefusesOtherFiles(t *testing.T) {
	root, path, _ := spilled(t)
	outside := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(outside, []byte("secret"), 0o600)
	link := filepath.Join(filepath.Dir(path), "link")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	notSpill := filepath.Join(root, "conversations", "c", "other")
	os.WriteFile(notSpill, []byte("x"), 0o600)
	os.MkdirAll(filepath.Join(root, "conversations", "c", "trunc", "dir"), 0o700)

	for _, p := range []string{
		"/etc/passwd",
		outside,
		link,
		notSpill,
		filepath.Join(root, "conversations", "c", "trunc", "..", "..", "..", "..", "etc", "passwd"),
		"conversations/c/trunc/e",
		filepath.Join(root, "conversations", "c", "trunc", "dir"),
	} {
		if c, err := ReadPersisted(root, p, 0, 10); err == nil {
			t.Errorf("ReadPersisted(%q) = %q, want refusal", p, c.Data)
		}
	}
	if _, err := ReadPersisted(root, link, 0, 10); !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("symlink out of root: %v, want ErrOutsideRoot", err)
	}
}

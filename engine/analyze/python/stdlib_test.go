package python

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestParseStdlib(t *testing.T) {
	dir := os.Getenv("PYSTDLIB")
	if dir == "" {
		t.Skip("set PYSTDLIB to a directory of Python files")
	}
	var files []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && filepath.Ext(p) == ".py" {
			files = append(files, p)
		}
		return nil
	})
	bad := 0
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		f, _ := analyzeSrc(string(src))
		if len(f.ParseErrors) > 0 {
			bad++
			fmt.Printf("%s: %s %+v\n", p, f.ParseErrors[0].Message, f.ParseErrors[0].Pos)
		}
	}
	fmt.Printf("%d/%d files with parse errors\n", bad, len(files))
}

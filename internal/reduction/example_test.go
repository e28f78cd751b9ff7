package reduction_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/toolwarden/toolwarden/internal/reduction"
)

// ExampleReduce shows the two shapes of a canonical result: small output
// unchanged, large output as a bounded <persisted-output> block.
func ExampleReduce() {
	root, _ := os.MkdirTemp("", "reduction-example")
	defer os.RemoveAll(root)
	cfg := reduction.Config{MaxLength: 2000, Root: root, ConversationID: "c1", ExecutionID: "x1"}

	small, _ := reduction.Reduce(cfg, []byte("hello\n"))
	fmt.Printf("%q\n", small)

	big, _ := reduction.Reduce(cfg, []byte(strings.Repeat("A", 200000)))
	lines := strings.Split(big, "\n")
	fmt.Println(lines[0])
	fmt.Println(strings.Replace(lines[1], root, "<root>", 1))
	fmt.Println(lines[2])
	fmt.Println(regexp.MustCompile(`[0-9]+`).ReplaceAllString(lines[3], "<k>"))
	fmt.Println(len(big) <= 2000)
	// Output:
	// "hello\n"
	// <persisted-output>
	// Output too large (200000). Full output saved to: <root>/conversations/c1/trunc/x1
	// Use read_file with offset/limit to read parts of the file.
	// Preview (first <k>):
	// true
}

// ExampleWriter_Partial shows the running preview a caller polls while a
// command still runs.
func ExampleWriter_Partial() {
	root, _ := os.MkdirTemp("", "reduction-example")
	defer os.RemoveAll(root)
	w, _ := reduction.NewWriter(reduction.Config{Root: root, ExecutionID: "x2"})
	fmt.Fprintf(w, "step 1\nstep 2\nstep 3\n")
	p := w.Partial(14)
	fmt.Printf("%q %d %v\n", p.Text, p.TotalBytes, p.Truncated)
	// Output:
	// "step 2\nstep 3\n" 21 true
}

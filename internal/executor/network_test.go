package executor

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/internal/execution"
)

// TestRunsNeverShareHostNetwork: every record runs in its own network
// namespace and cannot reach a listener on the host's loopback, whether
// or not its scan found network use (egress goes through the egress
// proxy only).
func TestRunsNeverShareHostNetwork(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("network namespaces need root, and CI runs as root")
		}
		t.Skip("network namespaces need root")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	b := openEmbedded(t, 3e9)
	cfg := fastConfig()
	start(t, b, openIso(t), cfg)
	probe := fmt.Sprintf("if exec 3<>/dev/tcp/127.0.0.1/%d; then echo connected; else echo refused; fi", port)
	run := func(network bool) *execution.Record {
		// With network use the run also has an egress proxy (a listed
		// domain): the direct path to the host stays closed all the same.
		r := &execution.Record{ToolName: "exec", Language: "bash", Content: probe, Cwd: workspace(t), NetworkUse: network,
			AllowedDomains: []string{"example.com"}}
		if err := b.Create(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		return waitTerminal(t, b, r.ExecutionID)
	}
	if got := run(true); !strings.Contains(got.Result, "refused") {
		t.Fatalf("with network use the run reached the host: %s %q", got.Status, got.Result)
	}
	if got := run(false); !strings.Contains(got.Result, "refused") {
		t.Fatalf("without network use the run reached the host: %s %q", got.Status, got.Result)
	}
}

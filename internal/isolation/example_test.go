package isolation_test

import (
	"bytes"
	"context"
	"fmt"
	"log"

	"github.com/toolwarden/toolwarden/internal/isolation"
)

// A daemon opens one backend at start (it self-tests and starts the
// watchdog), runs each tool call through it, and closes it at shutdown.
// The binary must dispatch helpers first: `if isolation.IsShim() {
// isolation.ShimMain() }` at the top of main (or TestMain).
func ExampleOpen() {
	b, err := isolation.Open(context.Background(), isolation.Config{
		Mode:   isolation.ModeRequired, // refuse to run without cgroups
		Limits: isolation.Limits{MaxProcesses: 256, MemoryMaxBytes: 2 << 30, CPUQuotaMicros: 200000},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	var out bytes.Buffer
	p, err := b.Start(context.Background(), isolation.Spec{
		Path: "/bin/sh", Args: []string{"sh", "-c", "echo hello"},
		Env: []string{"PATH=/usr/bin:/bin"}, Stdout: &out,
	})
	if err != nil {
		log.Fatal(err)
	}
	exit, err := p.Wait()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(b.Name(), exit.Code, p.Layers(), p.Cleanup() == "", out.String())
}

// The configuration file section uses the key names of the execution
// governance design.
func ExampleParseConfig() {
	cfg, err := isolation.ParseConfig([]byte(`
security:
  process_isolation:
    mode: required
    cgroup_root: auto
    max_processes: 256
    memory_max_bytes: 2147483648
    cpu_quota_micros: 200000
`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s %s %+v\n", cfg.Mode, cfg.CgroupRoot, cfg.Limits)
	// Output: required auto {MaxProcesses:256 MemoryMaxBytes:2147483648 CPUQuotaMicros:200000 TmpfsMaxBytes:0}
}

// Command toolwarden-shim is the small helper binary the isolation backends
// re-execute for every run (workload shim, process-group supervisor).
package main

import (
	"fmt"
	"os"

	"github.com/toolwarden/toolwarden/internal/isolation"
)

func main() {
	if isolation.IsShim() {
		isolation.ShimMain()
	}
	fmt.Fprintln(os.Stderr, "toolwarden-shim: run by toolwarden only")
	os.Exit(2)
}

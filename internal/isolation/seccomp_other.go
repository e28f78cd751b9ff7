//go:build linux && !amd64 && !arm64

package isolation

// No filter is built for this architecture; Layers() will not list seccomp.
const (
	auditArch = 0
	x32Bit    = 0
)

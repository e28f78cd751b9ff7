//go:build 386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm

package layout

// littleEndian says the machine stores words as the layout does, so
// fields can be loaded in place (see layoutView.word).
const littleEndian = true

module github.com/toolwarden/toolwarden/rules-wasm

go 1.26

require github.com/toolwarden/toolwarden/sdk v0.0.0

replace github.com/toolwarden/toolwarden/sdk => ../sdk

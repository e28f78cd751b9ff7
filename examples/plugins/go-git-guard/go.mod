module github.com/toolwarden/toolwarden/examples/plugins/go-git-guard

go 1.26

require github.com/toolwarden/toolwarden/sdk v0.0.0

// Outside this repository, drop the replace and require a released sdk.
replace github.com/toolwarden/toolwarden/sdk => ../../../sdk

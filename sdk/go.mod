module github.com/toolwarden/toolwarden/sdk

go 1.26

package auth_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolwarden/toolwarden/internal/auth"
)

// A key is shown once at creation; afterwards only its hash is stored, and
// the token authenticates as the key's role.
func ExampleStore() {
	dir, _ := os.MkdirTemp("", "keys")
	defer os.RemoveAll(dir)
	keys, err := auth.Open(filepath.Join(dir, "keys.json"))
	if err != nil {
		panic(err)
	}
	token, _, err := keys.Create("ci agent", auth.RoleAgent)
	if err != nil {
		panic(err)
	}
	k, err := keys.Authenticate(token)
	fmt.Println(k.Name, k.Role, err, k.Role.Allows(auth.RoleReviewer))
	// Output: ci agent agent <nil> false
}

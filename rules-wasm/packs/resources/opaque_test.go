package resources

import (
	"testing"

	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/packtest"
	"github.com/toolwarden/toolwarden/sdk"
)

// TestPrintedOpaqueCallOfSecret: printing len()/bool() of a secret reveals
// nothing of it; printing the secret, or a call that returns it, does.
func TestPrintedOpaqueCallOfSecret(t *testing.T) {
	printArg := func(text string) sdk.Facts {
		return sdk.Facts{Calls: []sdk.Call{{Name: "print", Args: []sdk.Value{{Kind: "call", Str: text}}}}}
	}
	packtest.Run(t, Scan, []C{
		{Name: "bool of a secret", Lang: "python", Facts: printArg("bool(os.environ.get('AWS_SECRET_ACCESS_KEY'))"), Rule: "SENSITIVE_OUTPUT"},
		{Name: "len of a secret", Lang: "python", Facts: printArg("len(os.environ['API_TOKEN'])"), Rule: "SENSITIVE_OUTPUT"},
		{Name: "the secret", Lang: "python", Facts: printArg("os.environ['API_TOKEN']"), Rule: "SENSITIVE_OUTPUT", Want: sdk.Deny},
		{Name: "str of a secret", Lang: "python", Facts: printArg("str(os.environ['API_TOKEN'])"), Rule: "SENSITIVE_OUTPUT", Want: sdk.Deny},
		{Name: "a method named like len", Lang: "python", Facts: printArg("x.strlen(os.environ['API_TOKEN'])"), Rule: "SENSITIVE_OUTPUT", Want: sdk.Deny},
	})
}

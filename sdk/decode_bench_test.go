package sdk_test

import (
	"encoding/json"
	"testing"

	"github.com/toolwarden/toolwarden/sdk"
)

// benchInput is the JSON of the largest frozen dev-corpus facts document
// with a policy, a realistic scan input.
func benchInput(b *testing.B) []byte {
	var best []byte
	for _, in := range devInputs(b) {
		buf, err := json.Marshal(in)
		if err != nil {
			b.Fatal(err)
		}
		if len(buf) > len(best) {
			best = buf
		}
	}
	return best
}

func BenchmarkDecodeScanInput(b *testing.B) {
	in := benchInput(b)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sdk.DecodeScanInput(in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeScanInputEncodingJSON is the same input through
// encoding/json, for comparison.
func BenchmarkDecodeScanInputEncodingJSON(b *testing.B) {
	in := benchInput(b)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		var v sdk.ScanInput
		if err := json.Unmarshal(in, &v); err != nil {
			b.Fatal(err)
		}
	}
}

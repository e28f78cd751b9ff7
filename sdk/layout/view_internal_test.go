package layout

import (
	"encoding/binary"
	"testing"

	"github.com/toolwarden/toolwarden/sdk"
)

// TestOpenBoundsEveryTable is what lets layoutView.word load without a
// bounds check: for every table, a record count that would reach past the
// tables by one record is refused by open, while the count the message
// was written with is accepted. (Every later field read lies inside a
// record of a table open accepted.)
func TestOpenBoundsEveryTable(t *testing.T) {
	col := 3
	in := sdk.ScanInput{Content: "ls", Language: "bash", Facts: &sdk.Facts{Version: 1,
		Commands: []sdk.Command{{ID: 1, Name: "ls", Args: []string{"-l"}}},
		Files:    []sdk.FileAccess{{Path: "/tmp", Op: "read"}}}}
	var enc Encoder
	b, err := enc.AppendScanInput(nil, &in, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := enc.AppendScanOutput(nil, &sdk.ScanOutput{Findings: []sdk.Finding{{RuleID: "R", Column: &col}}})
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	for _, m := range []struct {
		name  string
		b     []byte
		hash  uint32
		words []int
	}{{"input", b, inputLayoutHash, inputTableWords}, {"output", out, outputLayoutHash, outputTableWords}} {
		var v layoutView
		if err := v.open(m.b, m.hash, m.words); err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
		blobOff := le.Uint32(m.b[16:])
		for i, w := range m.words {
			c := append([]byte(nil), m.b...)
			at := 4 * (layoutHeaderWords + 2*i)
			off := le.Uint32(c[at:])
			fits := (blobOff - off) / uint32(4*w)
			le.PutUint32(c[at+4:], fits)
			if err := v.open(c, m.hash, m.words); err != nil {
				t.Fatalf("%s table %d: %d records up to the blob refused: %v", m.name, i, fits, err)
			}
			le.PutUint32(c[at+4:], fits+1)
			if err := v.open(c, m.hash, m.words); err == nil {
				t.Fatalf("%s table %d: %d records past the blob accepted", m.name, i, fits+1)
			}
		}
	}
}

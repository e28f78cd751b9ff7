package layout

import (
	"encoding/json"
	"reflect"
	"testing"
)

var jsonObjectSeeds = []string{
	`{}`, `{"features":["and","pipe","redirect"],"language":"bash"}`,
	`{"a":1,"b":-0,"c":1.5e3,"d":true,"e":false,"f":null,"g":[],"h":{},"i":{"j":[1,{"k":"l"}]}}`,
	` { "a" : [ 1 , 2 ] , "a" : "last" } `, `{"a":"\u003c"}`, `{"a":"x\ny"}`, "{\"a\":\"\xff\"}",
	`{"a":"é"}`, `{"a":01}`, `{"a":1.}`, `{"a":1e400}`, `{"a":-}`, `{"a":.5}`, `{"a":1}x`, `{"a":1,}`,
	`{"a"}`, `{a:1}`, `null`, `[1]`, `"s"`, `{"a":tru}`, `{"a":[1,]}`, `{"a":"unterminated}`, `{`, `{"a":1e+}`,
	`{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
}

// FuzzDecodeJSONObject checks the in-place metadata reader against
// json.Unmarshal: the same value, and an error exactly when it errs.
func FuzzDecodeJSONObject(f *testing.F) {
	for _, s := range jsonObjectSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, gerr := decodeJSONObject(s)
		var want map[string]any
		werr := json.Unmarshal([]byte(s), &want)
		if (gerr != nil) != (werr != nil) {
			t.Fatalf("%q: error %v, encoding/json %v", s, gerr, werr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: got %#v, encoding/json %#v", s, got, want)
		}
	})
}

// TestDecodeJSONObjectAllocs holds the flat-metadata case to its few
// allocations (encoding/json took ~18 for it).
func TestDecodeJSONObjectAllocs(t *testing.T) {
	const s = `{"features":["and","pipe","redirect"],"language":"bash"}`
	n := testing.AllocsPerRun(100, func() {
		if _, err := decodeJSONObject(s); err != nil {
			t.Fatal(err)
		}
	})
	if n > 8 {
		t.Errorf("%v allocations per decode, want ≤ 8", n)
	}
	t.Logf("%v allocations", n)
}

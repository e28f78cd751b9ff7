package bash

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// BenchmarkParseOnly1KB is the floor the analyzer builds on: parsing the
// 1 KB script without looking at it. Compare BenchmarkAnalyze1KB to it.
func BenchmarkParseOnly1KB(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		p := parserPool.Get().(*syntax.Parser)
		p.Parse(strings.NewReader(typicalScript), "")
		parserPool.Put(p)
	}
}

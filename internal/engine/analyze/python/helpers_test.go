package python

import (
	"github.com/toolwarden/toolwarden/internal/engine/facts"
	"github.com/toolwarden/toolwarden/sdk"
)

type corpusCase struct {
	ID       string `json:"id"`
	Content  string `json:"content"`
	Expect   string `json:"expect"`
	Category string `json:"category"`
	Evasion  bool   `json:"evasion"`
}

// nestedBash is one piece of shell content handed to the bash analyzer.
type nestedBash struct {
	src string
	at  facts.Frame
}

// fakeBash stands in for the bash analyzer: it records what it was given
// and adds one Command naming the content, so tests can see placement.
type fakeBash struct{ got []nestedBash }

func (f *fakeBash) analyze(b *facts.Builder, src string, at facts.Frame) {
	f.got = append(f.got, nestedBash{src: src, at: at})
	b.Facts.Commands = append(b.Facts.Commands, sdk.Command{ID: b.NextID(), Name: "<bash>", Evidence: src, Pos: at.Pos(1, 1)})
}

func newTestBuilder(fb *fakeBash) *facts.Builder {
	m := map[string]facts.AnalyzeFunc{"python": Analyze}
	if fb != nil {
		m["bash"] = fb.analyze
	}
	return facts.NewBuilder("python", m)
}

func analyzeSrc(src string) (*sdk.Facts, *fakeBash) {
	fb := &fakeBash{}
	b := newTestBuilder(fb)
	Analyze(b, src, facts.Top)
	return b.Facts, fb
}

// Package facts accumulates an sdk.Facts document while analyzers walk
// content, and routes nested content (a `bash -c` string, an os.system
// argument, a decoded payload) back to the analyzer of its language.
//
// The analyzers for each language live in their own packages and only know
// this one; the engine registers them here, which keeps bash and python free
// of each other while still letting each hand content to the other.
package facts

import (
	"strings"

	"github.com/toolwarden/toolwarden/sdk"
)

// DefaultMaxDepth bounds how many nesting steps are analyzed. Beyond it the
// document is marked Truncated and rules treat it as unknown content.
const DefaultMaxDepth = 6

// AnalyzeFunc analyzes src in one language and appends what it finds to b,
// placing every fact through at.
type AnalyzeFunc func(b *Builder, src string, at Frame)

// Builder collects facts for one scan. It is not safe for concurrent use.
type Builder struct {
	// Facts is the document being built.
	Facts *sdk.Facts
	// MaxDepth bounds nesting; DefaultMaxDepth when zero.
	MaxDepth  int
	analyzers map[string]AnalyzeFunc
	nextID    int
	nextPipe  int
}

// NewBuilder returns a Builder for top-level content in language.
func NewBuilder(language string, analyzers map[string]AnalyzeFunc) *Builder {
	return &Builder{
		Facts:     &sdk.Facts{Version: sdk.FactsVersion, Language: language},
		analyzers: analyzers,
	}
}

// NextID returns a fresh Command ID (starting at 1).
func (b *Builder) NextID() int { b.nextID++; return b.nextID }

// NextPipeline returns a fresh pipeline id (starting at 1).
func (b *Builder) NextPipeline() int { b.nextPipe++; return b.nextPipe }

// Frame says where the content being analyzed sits: at the top level, or
// nested inside a construct of the outer content.
type Frame struct {
	// Depth is 0 for the top-level content.
	Depth int
	// Via is the nesting chain (sdk.Pos.Via).
	Via string
	// Encoded is set when a decoder or transform is on the chain.
	Encoded bool
	// Line and Col locate the carrier in the top-level content when
	// Depth > 0; nested facts are reported there.
	Line, Col int
	// Argv, when not nil, are the static arguments the carrier passes
	// after the code (`python3 -c CODE A B`: sys.argv[1:] is A, B), so
	// the nested analysis judges what the code does with them. A child
	// frame does not inherit them.
	Argv []string
}

// Top is the frame of top-level content.
var Top = Frame{}

// Pos places a fact found at line/col (1-based, within the content being
// analyzed) into the top-level content's coordinates.
func (f Frame) Pos(line, col int) sdk.Pos {
	if f.Depth == 0 {
		return sdk.Pos{Line: line, Col: col}
	}
	return sdk.Pos{Line: f.Line, Col: f.Col, Depth: f.Depth, Via: f.Via, Encoded: f.Encoded}
}

// Child returns the frame for content carried by a construct at line/col
// of f's content, reached via the named step (e.g. "bash -c", "base64").
func (f Frame) Child(line, col int, via string, encoded bool) Frame {
	c := Frame{Depth: f.Depth + 1, Encoded: f.Encoded || encoded}
	if f.Depth == 0 {
		c.Line, c.Col = line, col
		c.Via = via
	} else {
		c.Line, c.Col = f.Line, f.Col
		c.Via = f.Via + ">" + via
	}
	return c
}

// Nested analyzes src, written in language, as content carried by f's
// construct at line/col. It returns false, and marks the document
// Truncated, when the depth limit is reached or no analyzer knows language;
// callers then treat the content as dynamic.
func (b *Builder) Nested(language, src string, f Frame, line, col int, via string, encoded bool) bool {
	return b.NestedArgs(language, src, f, line, col, via, encoded, nil)
}

// NestedArgs is Nested for code run with arguments after it (see
// Frame.Argv).
func (b *Builder) NestedArgs(language, src string, f Frame, line, col int, via string, encoded bool, argv []string) bool {
	max := b.MaxDepth
	if max == 0 {
		max = DefaultMaxDepth
	}
	if f.Depth+1 > max {
		b.Facts.Truncated = true
		return false
	}
	fn := b.analyzers[strings.ToLower(language)]
	if fn == nil {
		return false
	}
	child := f.Child(line, col, via, encoded)
	child.Argv = argv
	fn(b, src, child)
	return true
}

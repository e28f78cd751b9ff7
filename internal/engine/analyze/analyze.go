// Package analyze turns content into an sdk.Facts document: it bounds the
// input, detects the language when asked to, and runs the bash or Python
// analyzer, which route nested content back to each other.
//
// The analyzers run natively in the host and parse each piece of content
// once; rule plugins then judge the compact facts document. That split is
// what keeps a full scan in the sub-millisecond range (see RATIONALE.md).
package analyze

import (
	"fmt"
	"strings"

	"github.com/toolwarden/toolwarden/internal/engine/analyze/bash"
	"github.com/toolwarden/toolwarden/internal/engine/analyze/python"
	"github.com/toolwarden/toolwarden/internal/engine/facts"
	"github.com/toolwarden/toolwarden/internal/engine/secrets"
	"github.com/toolwarden/toolwarden/sdk"
)

// DefaultMaxBytes bounds the content one scan accepts (1 MiB). Larger
// content is refused with ErrTooLarge rather than scanned partly.
const DefaultMaxBytes = 1 << 20

// Options bound an analysis.
type Options struct {
	// MaxBytes is the largest content accepted; DefaultMaxBytes when zero.
	MaxBytes int
	// MaxDepth bounds nested re-analysis; facts.DefaultMaxDepth when zero.
	MaxDepth int
}

// TooLargeError reports content over the size bound.
type TooLargeError struct {
	Size, Max int
}

// Error says how large the content was and what the limit is.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("content is %d bytes, over the %d-byte limit of one scan", e.Size, e.Max)
}

// UnknownLanguageError reports a language the analyzers do not know.
type UnknownLanguageError struct{ Language string }

// Error names the language and the ones accepted.
func (e *UnknownLanguageError) Error() string {
	return fmt.Sprintf("unknown language %q: want bash, python, auto (or unknown) or mixed", e.Language)
}

var analyzers = map[string]facts.AnalyzeFunc{
	"bash":   bash.Analyze,
	"python": python.Analyze,
}

// Mixed is the language of content that may be bash or Python (or both):
// it is scanned as each of them and the findings are aggregated.
const Mixed = "mixed"

// languageNames maps the language names callers use (lower case) to what
// they mean: "bash", "python", "auto" (detect), or Mixed (scan as every
// analyzer's language). "unknown" is the Safety Guard's name for content
// of no declared language: detected, like "auto".
var languageNames = map[string]string{
	"": "auto", "auto": "auto", "unknown": "auto",
	"bash": "bash", "sh": "bash", "shell": "bash", "zsh": "bash", "dash": "bash", "ksh": "bash",
	"python": "python", "python3": "python", "py": "python", "python2": "python",
	Mixed: Mixed,
}

// mixedLanguages are the languages Mixed content is scanned as.
var mixedLanguages = []string{"bash", "python"}

// ScanLanguages returns the languages content declared as language is
// scanned as: one of "bash", "python" or "auto", or every analyzer's
// language for Mixed. An unknown name is an *UnknownLanguageError.
func ScanLanguages(language string) ([]string, error) {
	l, ok := languageNames[strings.ToLower(strings.TrimSpace(language))]
	if !ok {
		return nil, &UnknownLanguageError{Language: language}
	}
	if l == Mixed {
		return append([]string(nil), mixedLanguages...), nil
	}
	return []string{l}, nil
}

// NormalizeLanguage maps the language names callers use to "bash",
// "python" or "auto" (for "", "auto" and "unknown"), or Mixed, or returns
// an error. Analyze cannot take Mixed: split it with ScanLanguages.
func NormalizeLanguage(language string) (string, error) {
	l, ok := languageNames[strings.ToLower(strings.TrimSpace(language))]
	if !ok {
		return "", &UnknownLanguageError{Language: language}
	}
	return l, nil
}

// Analyze returns the facts of content in language ("bash", "python",
// "auto" or "" to detect). The returned Facts.Language is the language
// actually used.
func Analyze(language, content string, opts Options) (*sdk.Facts, error) {
	max := opts.MaxBytes
	if max <= 0 {
		max = DefaultMaxBytes
	}
	if len(content) > max {
		return nil, &TooLargeError{Size: len(content), Max: max}
	}
	lang, err := NormalizeLanguage(language)
	if err != nil {
		return nil, err
	}
	if lang == Mixed {
		return nil, fmt.Errorf("analyze: language %q is several languages: scan the content as each of %v", language, mixedLanguages)
	}
	if lang == "auto" {
		lang = Detect(content)
	}
	b := facts.NewBuilder(lang, analyzers)
	b.MaxDepth = opts.MaxDepth
	growStack()
	analyzers[lang](b, content, facts.Top)
	b.Facts.Secrets = append(b.Facts.Secrets, secrets.Find(content)...)
	return b.Facts, nil
}

// stackReserve is stack an analysis reaches on ordinary content (the
// parsers' recursion, then the walks'); a frame this large makes the
// runtime give the goroutine a 32 KB stack.
const stackReserve = 16 << 10

// growStack makes the goroutine's stack large enough for the analysis
// while it is still shallow. A goroutine starts with a small stack that
// doubles as needed, and each doubling copies, and walks, every frame on
// it: growing once here, with a few frames, costs less than the doublings
// deep in the parser and the walk. Measured on the 1 KB bash benchmark
// script: about 500K instructions per scan in a fresh goroutine without
// it, 400K with it, and no difference on a goroutine that has grown.
//
//go:noinline
func growStack() {
	var buf [stackReserve]byte
	sink(buf[:])
}

// sink keeps growStack's buffer (and so its frame) from being optimized
// away.
//
//go:noinline
func sink([]byte) {}

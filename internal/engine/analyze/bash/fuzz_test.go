package bash

import (
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/internal/engine/facts"
)

// FuzzAnalyze checks that no input makes the analyzer panic or loop: any
// content yields a facts document, with a ParseError only when the content
// does not parse (never from an internal failure).
func FuzzAnalyze(f *testing.F) {
	for _, c := range loadCorpus(f) {
		f.Add(c.Content)
	}
	for _, s := range []string{
		`{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}`, `echo {1..100000}`, `$'\x'`, `${PATH:-1:-5}`, `${x:99999999999999999999}`,
		`eval "$(echo ZXZhbCBscw== | base64 -d)"`, `printf '%b%b' '\x41' '\0101' | sh`, `tr 'a-' 'b' <<< x | sh`,
		`find -exec`, `xargs -I`, `curl -d`, `nc -e`, `socat`, `dd if=`, `tar -f`, "cat <<EOF\n$(rm -rf /)\nEOF",
		`alias a='a'; a`, `alias a='b'; alias b='a'; a`, `x=$x$x$x; $x`, `: $(( 1/0 ))`,
		`{,*,}{,,}{,}{,}{,}`, `echo ${v/$(date)} ${v//a} ${v: $(nproc)} ${v:-} ${#v} ${!v*} ${v[@]:1:2}`, `* * * *`, `x=aaaaaaaa; ` + strings.Repeat(`x=$x$x$x$x; `, 12) + `echo $x`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 1<<14 {
			return
		}
		b := facts.NewBuilder("bash", map[string]facts.AnalyzeFunc{"bash": Analyze})
		Analyze(b, src, facts.Top)
		for _, pe := range b.Facts.ParseErrors {
			if pe.Language != "bash" {
				t.Fatalf("parse error language %q", pe.Language)
			}
			// Analyze recovers internal panics into a ParseError so a
			// scan fails closed; the fuzzer must still see them.
			if strings.HasPrefix(pe.Message, "bash analyzer failure") {
				t.Fatalf("internal failure on %q: %s", src, pe.Message)
			}
		}
		for _, d := range b.Facts.DynamicExec {
			if len(d.Content) > maxContent {
				t.Fatalf("content not capped: %d", len(d.Content))
			}
		}
	})
}

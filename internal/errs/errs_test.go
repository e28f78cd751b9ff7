package errs

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

func TestHasFindsTheCodeThroughWrapsAndOtherErrors(t *testing.T) {
	inner := New(InvalidCursor, "execution.DecodeCursor", io.ErrUnexpectedEOF)
	outer := New(IsolationRefused, "runner.Start", fmt.Errorf("list: %w", inner))
	wrapped := fmt.Errorf("serve: %w", outer)
	if !Has(wrapped, IsolationRefused) || !Has(wrapped, InvalidCursor) {
		t.Fatal("a code in the chain was not found")
	}
	if Has(fmt.Errorf("cursor %q is bad", "x"), InvalidCursor) {
		t.Fatal("an untyped error whose text names the code matched")
	}
	if !errors.Is(wrapped, io.ErrUnexpectedEOF) {
		t.Fatal("the cause is hidden from errors.Is")
	}
	if got := inner.Error(); got != "execution.DecodeCursor: unexpected EOF" {
		t.Fatalf("text %q", got)
	}
}

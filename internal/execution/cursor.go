package execution

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolwarden/toolwarden/internal/errs"
)

// Records are listed newest first by the key (created_at in microseconds,
// execution_id), both descending. A cursor is the key of the last record of
// a page, opaque to callers; both backends use this one encoding so that a
// cursor means the same thing whichever store served it.

// SortKey returns the listing key of r.
func SortKey(r *Record) (int64, string) { return r.CreatedAt.UnixMicro(), r.ExecutionID }

// EncodeCursor returns the cursor that continues after a record with key (us, id).
func EncodeCursor(us int64, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(us, 10) + ":" + id))
}

// DecodeCursor parses a cursor; "" decodes to ok=false (start at the newest).
func DecodeCursor(c string) (us int64, id string, ok bool, err error) {
	if c == "" {
		return 0, "", false, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, "", false, badCursor(c)
	}
	s, id, found := strings.Cut(string(b), ":")
	if !found || id == "" {
		return 0, "", false, badCursor(c)
	}
	us, err = strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, "", false, badCursor(c)
	}
	return us, id, true, nil
}

// badCursor is the typed error of a cursor that does not decode: the
// API answers it with a 400 naming the cursor (errs.InvalidCursor), and it
// is still an ErrInvalidRecord for errors.Is.
func badCursor(c string) error {
	return errs.New(errs.InvalidCursor, "execution.DecodeCursor", fmt.Errorf("cursor %q does not decode: %w", c, ErrInvalidRecord))
}

// After reports whether the record with key (us, id) comes after the cursor
// key (cus, cid) in listing order (newest first).
func After(us int64, id string, cus int64, cid string) bool {
	if us != cus {
		return us < cus
	}
	return id < cid
}

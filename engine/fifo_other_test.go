//go:build !unix

package engine_test

import "errors"

func syscallMkfifo(string) error { return errors.New("no fifos on this platform") }

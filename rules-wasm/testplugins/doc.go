// Package testplugins holds deliberately misbehaving rule plugins (and one
// well-behaved echo plugin) that the Wasm host's tests compile to wasip1 and
// load, to show that a hostile plugin costs the host one instance and
// nothing more. None of them is shipped.
//
// Each plugin behaves well unless the scanned content asks for its
// misbehaviour, so a test can show the same Plugin serving a good call after
// a bad one.
package testplugins

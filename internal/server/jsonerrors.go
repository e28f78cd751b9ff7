package server

import (
	"encoding/json"
	"reflect"
)

// jsonKind names what a JSON field must hold in the API's words ("a
// number", "a string"), never a Go type name such as float64 or
// service.ToolRequest, which mean nothing to a caller.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "a JSON value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeOf(json.RawMessage{}) {
		return "a JSON value"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer >= 0"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array of " + plural(jsonKind(t.Elem()))
	case reflect.Map:
		return "an object of " + plural(jsonKind(t.Elem()))
	case reflect.Struct:
		return "an object"
	}
	return "a JSON value"
}

// plural turns "a string" into "strings" for "an array of strings".
func plural(kind string) string {
	switch kind {
	case "a string":
		return "strings"
	case "a number":
		return "numbers"
	case "an integer":
		return "integers"
	case "an object":
		return "objects"
	case "true or false":
		return "booleans"
	}
	return "JSON values"
}

// jsonValueWord describes what was sent ("string", "number", "object").
func jsonValueWord(v string) string {
	switch v {
	case "number", "string", "bool", "array", "object", "null":
		if v == "bool" {
			return "true/false"
		}
		return v
	}
	// Number values carry their text ("number 1.5"): keep it.
	return v
}

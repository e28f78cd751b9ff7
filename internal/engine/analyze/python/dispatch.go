package python

import "fmt"

// The analyzer's knowledge of Python APIs is data: each topic file
// (api_builtins.go, api_decode.go, api_exec.go, api_serialization.go,
// api_output.go, api_env.go, api_time.go, api_process.go, api_files.go,
// api_network.go) registers the qualified names it handles with
// registerAPI, the way OPA's topdown registers builtins. Adding a way to
// reach an effect is adding a table entry in its topic, not another
// branch in a switch every call goes through.

// apiHandler applies what the analyzer knows about one called API: it
// records the call's facts and returns its result, or nil for an unknown
// result.
type apiHandler func(a *analyzer, c *callCtx) *sym

// apiMatcher handles a family of names no table can list (the methods of
// any logger, __getattribute__ of any object, os.exec*, the HTTP methods
// of every client class); it reports whether it handled the call.
type apiMatcher func(a *analyzer, c *callCtx) (*sym, bool)

// apiEntry is one registered API: its handler and the topic that
// registered it (for duplicate reports and tests).
type apiEntry struct {
	topic string
	fn    apiHandler
}

// apis maps a qualified name (after alias resolution) to its handler.
var apis = map[string]apiEntry{}

// apiMatchers are tried in order, after the exact table, for names the
// table does not list. They are set in init: the handlers reach dispatch
// again (nested calls), which a package-level initializer may not.
var apiMatchers []struct {
	topic string
	match apiMatcher
}

func init() {
	apiMatchers = []struct {
		topic string
		match apiMatcher
	}{
		{"output", loggerMethod},
		{"builtins", getattributeCall},
		{"builtins", dictGetCall},
		{"process", (*analyzer).processCall},
		{"files", (*analyzer).fileCall},
		{"network", (*analyzer).netCall},
	}
}

// registerAPI registers h for each name under topic. A name registered
// twice is a programming error (two topics would disagree on what the
// call does), so it panics at init rather than letting one silently win.
func registerAPI(topic string, h apiHandler, names ...string) {
	for _, n := range names {
		if old, dup := apis[n]; dup {
			panic(fmt.Sprintf("python API %q registered by topic %q and again by %q", n, old.topic, topic))
		}
		apis[n] = apiEntry{topic: topic, fn: h}
	}
}

// dispatch applies what the analyzer knows about the called API. It
// returns the call's result, or nil for an unknown result.
func (a *analyzer) dispatch(c *callCtx) *sym {
	if len(c.kws) > 0 {
		a.observeProxies(c)
	}
	if e, ok := apis[c.name]; ok {
		return e.fn(a, c)
	}
	for _, m := range apiMatchers {
		if r, ok := m.match(a, c); ok {
			return r
		}
	}
	return nil
}

package python

import (
	"strings"
	"testing"
)

// TestAPIRegistryTopics checks the registry is the data the topic files
// declare: each API is found under the topic that owns it, and an API
// registered twice is refused.
func TestAPIRegistryTopics(t *testing.T) {
	want := map[string]string{
		"getattr":                 "builtins",
		"base64.b64decode":        "decode",
		"exec":                    "exec",
		"pickle.loads":            "serialization",
		"marshal.loads":           "serialization",
		"print":                   "output",
		"os.environ.get":          "env",
		"time.sleep":              "time",
		"pip.main":                "process",
		"timeit.timeit":           "exec",
		"importlib.import_module": "builtins",
	}
	for name, topic := range want {
		e, ok := apis[name]
		if !ok {
			t.Errorf("%s: not registered", name)
			continue
		}
		if e.topic != topic {
			t.Errorf("%s: topic %q, want %q", name, e.topic, topic)
		}
	}
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), `"print"`) {
			t.Errorf("registering print twice: recovered %v, want a panic naming it", r)
		}
	}()
	registerAPI("test", func(*analyzer, *callCtx) *sym { return nil }, "print")
}

// TestAPIRegistryMatchersOrder checks the families the table cannot list
// still reach their topic: a logger method is output, an os.exec* call is
// a process, open is a file, requests.get is network.
func TestAPIRegistryMatchersOrder(t *testing.T) {
	f, _ := analyzeSrc("import logging, os, requests\nlog = logging.getLogger('x')\nlog.info(os.environ['API_TOKEN'])\nos.execv('/bin/sh', ['sh', '-c', 'id'])\nopen('/etc/hosts')\nrequests.get('https://example.org/')")
	if len(f.Outputs) == 0 {
		t.Errorf("logger.info: no output fact")
	}
	if len(f.Commands) == 0 {
		t.Errorf("os.execv: no command fact")
	}
	if len(f.Files) == 0 {
		t.Errorf("open: no file fact")
	}
	if len(f.Network) == 0 {
		t.Errorf("requests.get: no network fact")
	}
}

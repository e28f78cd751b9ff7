package python

import (
	"strings"

	"github.com/toolwarden/toolwarden/sdk"
)

// The serialization topic: deserializers that can run code (pickle,
// marshal, dill, cloudpickle).

func init() {
	registerAPI("serialization", apiPickleLoads, "pickle.loads", "marshal.loads", "dill.loads", "cloudpickle.loads", "_pickle.loads")
}

func apiPickleLoads(a *analyzer, c *callCtx) *sym {
	n := c.name
	arg0 := c.arg(0, "")
	// deserializing an embedded payload can run arbitrary code
	if arg0 != nil && arg0.cnst {
		d := sdk.DynamicExec{Kind: "py_exec", Interpreter: "python", Encoded: true, Decoders: append(append([]string(nil), arg0.decoders...), strings.SplitN(n, ".", 2)[0]), Evidence: c.ev, Pos: a.pos(c.line, c.col)}
		a.f.DynamicExec = append(a.f.DynamicExec, d)
	}
	if n == "marshal.loads" {
		// marshal yields code objects: whatever it reads is a
		// serialized program, so running it runs transformed content.
		return (&sym{kind: "call"}).taint(arg0).decoded("marshal")
	}
	return nil
}

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
	a.downloadedDeserialize(c, arg0)
	if n == "marshal.loads" {
		// marshal yields code objects: whatever it reads is a
		// serialized program, so running it runs transformed content.
		return (&sym{kind: "call"}).taint(arg0).decoded("marshal")
	}
	return nil
}

func init() {
	registerAPI("serialization", apiUnpickleFile, "pickle.load", "_pickle.load", "dill.load", "cloudpickle.load", "marshal.load", "joblib.load", "pickle.Unpickler")
}

// downloadedDeserialize records deserializing downloaded bytes: a pickle
// or marshal stream runs code as it loads, so loading a download is
// running downloaded code, from whatever host.
func (a *analyzer) downloadedDeserialize(c *callCtx, v *sym) {
	if v == nil || !v.download {
		return
	}
	lib, _, _ := strings.Cut(c.name, ".")
	a.f.DynamicExec = append(a.f.DynamicExec, sdk.DynamicExec{Kind: "py_exec", Interpreter: "python",
		Downloaded: true, Decoders: []string{strings.TrimPrefix(lib, "_")}, Evidence: c.ev, Pos: a.pos(c.line, c.col)})
}

// apiUnpickleFile handles the file-reading deserializers (pickle.load(f)):
// f holding downloaded bytes (io.BytesIO of a response, a file the
// content saved a download to) is downloaded code run.
func apiUnpickleFile(a *analyzer, c *callCtx) *sym {
	a.downloadedDeserialize(c, c.arg(0, "file"))
	if c.name == "marshal.load" {
		return (&sym{kind: "call"}).taint(c.arg(0, "file")).decoded("marshal")
	}
	return nil
}

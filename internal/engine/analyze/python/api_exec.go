package python

import ()

// The exec topic: the APIs that run Python source (exec, eval, compile,
// code.InteractiveInterpreter, timeit); constant source is analyzed again
// as Python.

func init() {
	registerAPI("exec", apiExec, "exec", "eval", "compile")
	registerAPI("exec", apiCodeInteractiveInterpreterRunsource, "code.InteractiveInterpreter.runsource", "code.InteractiveInterpreter.runcode", "code.InteractiveConsole.push", "code.InteractiveConsole.runsource", "code.compile_command", "timeit.timeit", "timeit.repeat", "timeit.Timer")
	registerAPI("exec", apiCodeInteractiveInterpreter, "code.InteractiveInterpreter", "code.InteractiveConsole")
}

func apiExec(a *analyzer, c *callCtx) *sym {
	return a.doExec(c)
}

func apiCodeInteractiveInterpreterRunsource(a *analyzer, c *callCtx) *sym {
	// the setup runs first, in the same namespace as the statement
	code := c.arg(0, "stmt")
	if setup := c.kws["setup"]; setup != nil && code != nil {
		code = binop("+", binop("+", setup, strSym("\n")), code)
	}
	if code == nil || code.kind == "code" {
		return nil
	}
	s, ok := code.strVal()
	static := ok && code.kind == "str"
	a.dynExec(c, "py_exec", "python", code, static)
	if static {
		a.nested("python", s, c, c.name, code.encoded)
	}
	return nil
}

func apiCodeInteractiveInterpreter(a *analyzer, c *callCtx) *sym {
	n := c.name
	return &sym{kind: "expr", inst: n}
}

func (a *analyzer) doExec(c *callCtx) *sym {
	kind := "py_" + c.name
	code := c.arg(0, "source")
	if code == nil {
		return nil
	}
	if code.kind == "code" {
		a.dynExec(c, kind, "python", code, code.cnst)
		return nil
	}
	s, ok := code.strVal()
	static := ok && (code.kind == "str" || code.kind == "bytes")
	a.dynExec(c, kind, "python", code, static)
	if static {
		a.nested("python", s, c, c.name, code.encoded)
	}
	if c.name == "compile" {
		r := &sym{kind: "code", cnst: static, s: s}
		return r.taint(code)
	}
	return nil
}

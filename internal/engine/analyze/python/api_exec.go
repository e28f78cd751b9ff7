package python

import "strings"

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
	r := a.doExec(c)
	if arg0 := c.arg(0, "source"); c.name == "eval" && arg0 != nil && arg0.kind == "str" && arg0.cnst && isDottedName(arg0.s) {
		// eval('__import__'), eval('os.system'): the value of the name,
		// reached indirectly
		parts := strings.Split(arg0.s, ".")
		v := a.name(parts[0], c.sc)
		for _, p := range parts[1:] {
			v = a.attr(v, p)
		}
		if v.qual != "" {
			cp := *v
			cp.indirect = true
			return &cp
		}
		return v
	}
	return r
}

// isDottedName reports an identifier or a dotted chain of identifiers.
func isDottedName(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for _, p := range strings.Split(s, ".") {
		if p == "" || p[0] >= '0' && p[0] <= '9' {
			return false
		}
		for _, r := range p {
			if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				return false
			}
		}
	}
	return true
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

package python

import ()

// The env topic: reads and writes of the process environment.

func init() {
	registerAPI("env", apiOsGetenv, "os.getenv", "os.environ.get", "os.getenvb")
	registerAPI("env", apiOsEnvironSetdefault, "os.environ.setdefault")
	registerAPI("env", apiOsEnvironPop, "os.environ.pop", "os.unsetenv")
	registerAPI("env", apiOsPutenv, "os.putenv")
	registerAPI("env", apiOsEnvironUpdate, "os.environ.update")
	registerAPI("env", apiOsEnvironCopy, "os.environ.copy", "os.environ.items", "os.environ.values")
}

func apiOsGetenv(a *analyzer, c *callCtx) *sym {
	arg0 := c.arg(0, "")
	if arg0 == nil {
		return nil
	}
	return a.envRead(arg0, c.line, c.col)
}

func apiOsEnvironSetdefault(a *analyzer, c *callCtx) *sym {
	arg0 := c.arg(0, "")
	if arg0 != nil {
		a.envAssign(arg0, c.arg(1, ""), "set", c.line, c.col)
		return a.envRead(arg0, c.line, c.col)
	}
	return nil
}

func apiOsEnvironPop(a *analyzer, c *callCtx) *sym {
	arg0 := c.arg(0, "")
	if arg0 != nil {
		a.envAssign(arg0, nil, "unset", c.line, c.col)
	}
	return nil
}

func apiOsPutenv(a *analyzer, c *callCtx) *sym {
	arg0 := c.arg(0, "")
	if arg0 != nil {
		a.envAssign(arg0, c.arg(1, ""), "set", c.line, c.col)
	}
	return nil
}

func apiOsEnvironUpdate(a *analyzer, c *callCtx) *sym {
	arg0 := c.arg(0, "")
	if arg0 != nil && arg0.kind == "dict" {
		for i, k := range arg0.keys {
			if k != nil {
				a.envAssign(k, arg0.items[i], "set", c.line, c.col)
			}
		}
	}
	for _, k := range c.kwList {
		a.envAssign(strSym(k), c.kws[k], "set", c.line, c.col)
	}
	return nil
}

func apiOsEnvironCopy(a *analyzer, c *callCtx) *sym {
	return &sym{kind: "expr", env: []string{"*"}}
}

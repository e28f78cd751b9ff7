package python

import (
	"strings"
)

// The output topic: what prints or logs values, so secrets printed are seen.

func init() {
	registerAPI("output", apiPrint, "print")
	registerAPI("output", apiSysStdoutWrite, "sys.stdout.write", "sys.stderr.write", "sys.stdout.writelines", "sys.stderr.writelines", "pprint.pprint", "pprint.pp", "logging.info", "logging.debug", "logging.warning", "logging.warn", "logging.error", "logging.critical", "logging.exception", "logging.log")
	registerAPI("output", apiLoggingGetLogger, "logging.getLogger")
}

func apiPrint(a *analyzer, c *callCtx) *sym {
	sink := "stdout"
	if f := c.kws["file"]; f != nil && f.inst == "file" {
		sink = "file"
	}
	a.output(c, sink, c.args...)
	return nil
}

func apiSysStdoutWrite(a *analyzer, c *callCtx) *sym {
	a.output(c, "stdout", c.args...)
	return nil
}

func apiLoggingGetLogger(a *analyzer, c *callCtx) *sym {
	return &sym{kind: "expr", inst: "logging.Logger"}
}

// loggerMethod handles the output methods of any logging.Logger.
func loggerMethod(a *analyzer, c *callCtx) (*sym, bool) {
	m, ok := strings.CutPrefix(c.name, "logging.Logger.")
	if !ok {
		return nil, false
	}
	switch m {
	case "info", "debug", "warning", "warn", "error", "critical", "exception", "log":
		a.output(c, "stdout", c.args...)
	}
	return nil, true
}

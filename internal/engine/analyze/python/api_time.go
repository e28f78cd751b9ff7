package python

import (
	"math"

	"github.com/toolwarden/toolwarden/sdk"
)

// The time topic: sleeps and waits.

func init() {
	registerAPI("time", apiTimeSleep, "time.sleep", "asyncio.sleep", "trio.sleep", "gevent.sleep", "eventlet.sleep")
	registerAPI("time", apiSignalPause, "signal.pause", "threading.Event.wait")
}

func apiTimeSleep(a *analyzer, c *callCtx) *sym {
	arg0 := c.arg(0, "")
	sl := sdk.Sleep{Evidence: c.ev, Pos: a.pos(c.line, c.col)}
	if arg0 != nil && arg0.isNum() {
		sl.Seconds = arg0.num
		if math.IsInf(sl.Seconds, 0) || math.IsNaN(sl.Seconds) {
			sl.Seconds = -1
		}
	} else {
		sl.Dynamic = true
	}
	a.f.Sleeps = append(a.f.Sleeps, sl)
	return nil
}

func apiSignalPause(a *analyzer, c *callCtx) *sym {
	if t := c.arg(0, "timeout"); t != nil && t.kind != "none" {
		sl := sdk.Sleep{Evidence: c.ev, Pos: a.pos(c.line, c.col), Seconds: t.num, Dynamic: !t.isNum()}
		a.f.Sleeps = append(a.f.Sleeps, sl)
		return nil
	}
	a.f.Sleeps = append(a.f.Sleeps, sdk.Sleep{Seconds: -1, Evidence: c.ev, Pos: a.pos(c.line, c.col)})
	return nil
}

package executor

import (
	"fmt"

	"github.com/toolwarden/toolwarden/internal/egress"
	"github.com/toolwarden/toolwarden/internal/execution"
)

// egressProxy returns the egress proxy of a record's run, or nil when the
// run gets none: only a run whose scan saw network use and whose policy
// (as stored on the record at scan time) allows some domain has a way out.
// Every other run keeps a network namespace with nothing but its loopback.
func (d *Daemon) egressProxy(rec *execution.Record) (*egress.Proxy, error) {
	if !rec.NetworkUse || len(rec.AllowedDomains) == 0 {
		return nil, nil
	}
	p, err := egress.New(d.cfg.Egress, rec.AllowedDomains, egress.Options{Resolver: d.cfg.EgressResolver})
	if err != nil {
		return nil, fmt.Errorf("egress proxy: %w", err)
	}
	return p, nil
}

// closeEgress stops a run's proxy and puts its connection log on final.
func closeEgress(p *egress.Proxy, final *execution.Record) {
	if p == nil {
		return
	}
	p.Close()
	conns, omitted := p.Connections()
	final.NetworkConnectionsOmitted = omitted
	final.NetworkConnections = make([]execution.NetworkConnection, len(conns))
	for i, c := range conns {
		final.NetworkConnections[i] = execution.NetworkConnection(c)
	}
}

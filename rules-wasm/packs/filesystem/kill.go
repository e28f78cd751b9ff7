package filesystem

import (
	"fmt"
	"strings"

	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/catalog"
	"github.com/toolwarden/toolwarden/sdk"
)

// securityAgents are process names of security and audit agents whose
// killing is defense evasion (besides securityServices, which are also
// matched): EDR sensors, audit daemons, host intrusion detection.
var securityAgents = []string{"falcon", "crowdstrike", "osquery", "auditd", "wazuh", "ossec", "sysdig", "falco",
	"sentinel", "cbagent", "carbonblack", "elastic-agent", "aide", "tripwire", "clamd", "apparmor", "auditbeat",
	"cylance", "sophos", "mdatp", "qualys", "tanium", "rapid7", "sshguard", "fail2ban", "sysmon", "ds_agent",
	"kesl", "esets", "velociraptor", "splunk", "nxlog", "syslog", "journald", "selinux", "firewalld", "nftables",
	"cbdaemon", "cb-psc", "xagt", "taniumclient", "amazon-guardduty", "guardduty", "defender", "trendmicro",
	"nessus", "lacework", "aqua-enforcer", "twistlock", "deepinstinct", "traps_pmd", "cybereason"}

// isSecurityAgent reports a process name or pattern that names a security
// agent.
func isSecurityAgent(s string) bool {
	s = strings.ToLower(s)
	if securityServices[strings.TrimSuffix(s, ".service")] {
		return true
	}
	for _, a := range securityAgents {
		if strings.Contains(s, a) {
			return true
		}
	}
	return false
}

// kindKill: the commands that signal processes, and the lookups whose
// output feeds them.
var (
	kindKill   = catalog.NamesKind("kill", "killall", "killall5", "pkill", "skill", "slay")
	kindLookup = catalog.NamesKind("pgrep", "pidof")
)

// checkMassKill reports killing every process (`kill -9 -1`, `killall5`,
// Python os.kill(-1, …)) and killing security or audit agents (`pkill -f
// falcon-sensor`, `kill $(pgrep osqueryd)`).
func checkMassKill(e *catalog.Env) {
	f := e.Facts
	add := func(ev string, pos sdk.Pos, key, msg string) {
		e.Add(catalog.Finding{Rule: "DEFENSE_EVASION", Evidence: ev, Pos: pos, Key: key, Message: msg,
			Metadata: map[string]any{"kill": key}})
	}
	lookups := map[int]bool{}
	for _, i := range e.Commands(kindLookup) {
		c := &f.Commands[i]
		for _, a := range c.Args {
			if !strings.HasPrefix(a, "-") && isSecurityAgent(a) {
				lookups[c.ID] = true
			}
		}
	}
	for _, i := range e.Commands(kindKill) {
		c := &f.Commands[i]
		switch c.Name {
		case "killall5":
			add(c.Evidence, c.Pos, "all", "Content kills every process (killall5).")
			continue
		case "kill":
			if n := len(c.Args); n >= 2 && c.Args[n-1] == "-1" {
				add(c.Evidence, c.Pos, "all", "Content kills every process it may signal (kill … -1).")
				continue
			}
		}
		for _, a := range c.Args {
			if !strings.HasPrefix(a, "-") && isSecurityAgent(a) {
				add(c.Evidence, c.Pos, a, fmt.Sprintf("Content kills security agent %s.", a))
				break
			}
		}
		for _, src := range c.ArgSources {
			if lookups[src] {
				add(c.Evidence, c.Pos, "agent", "Content kills a security agent found by pgrep/pidof.")
				break
			}
		}
	}
	for i := range f.Calls {
		c := &f.Calls[i]
		if c.Name != "os.kill" && c.Name != "os.killpg" {
			continue
		}
		if len(c.Args) > 0 && c.Args[0].Const && c.Args[0].Str == "-1" {
			add(c.Evidence, c.Pos, "all", fmt.Sprintf("Content kills every process (%s(-1, …)).", c.Name))
		}
	}
}

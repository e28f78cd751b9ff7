package filesystem

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/catalog"
	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/lookup"
	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/match"
	"github.com/toolwarden/toolwarden/sdk"
)

// rcFiles are login and shell start-up files in a home: writing to them
// runs code at every login.
var rcFiles = map[string]bool{
	"/.bashrc": true, "/.bash_profile": true, "/.bash_login": true, "/.bash_logout": true,
	"/.profile": true, "/.zshrc": true, "/.zprofile": true, "/.zshenv": true, "/.zlogin": true,
	"/.kshrc": true, "/.cshrc": true, "/.tcshrc": true, "/.config/fish/config.fish": true,
	"/.xinitrc": true, "/.xprofile": true, "/.pam_environment": true,
	// sourced by the files above on common distributions, or read by the
	// shell or its line editor at every start
	"/.bash_aliases": true, "/.bash_functions": true, "/.zlogout": true, "/.mkshrc": true, "/.inputrc": true,
	"/.xsessionrc": true, "/.config/zsh/.zshrc": true,
}

// persistenceTrees are directories whose contents the system runs on its own.
var persistenceTrees = []string{"/etc/cron", "/var/spool/cron", "/etc/systemd/", "/lib/systemd/",
	"/usr/lib/systemd/", "/etc/init.d/", "/etc/rc.local", "/etc/profile", "/etc/bash.bashrc",
	"/etc/zsh/", "/etc/zshrc", "/etc/anacrontab", "/etc/ld.so.preload", "/etc/update-motd.d/",
	"/Library/LaunchAgents/", "/Library/LaunchDaemons/", "/etc/xdg/autostart/", "/etc/sudoers"}

// homePersistence are home-relative trees with the same effect.
var homePersistence = []string{"/.config/systemd/", "/.config/autostart/", "/Library/LaunchAgents/",
	"/.ssh/rc", "/.ssh/environment", "/.config/fish/conf.d/", "/.config/environment.d/", "/.bashrc.d/"}

// persistenceTarget reports why writing p persists code, or "".
//
// c is match.CleanPath(p), which the caller shares with other checks.
func persistenceTarget(p, c string) string {
	// The base name matters only for authorized_keys(2) and systemd units,
	// which end in s, 2, e or r (or in a slash path.Base drops).
	base := ""
	if n := len(p); n > 0 && strings.IndexByte("s2er/", p[n-1]) >= 0 {
		base = path.Base(p)
	}
	if base == "authorized_keys" || base == "authorized_keys2" {
		return "SSH authorized_keys"
	}
	if _, rel, ok := match.SplitHome(c); ok {
		if rcFiles[rel] {
			return "shell start-up file"
		}
		for _, t := range homePersistence {
			if hasPrefixSlash(rel, t) {
				return "user autostart location"
			}
		}
	}
	if len(c) > 1 && c[0] == '/' && strings.IndexByte("evluL", c[1]) >= 0 {
		// Every tree is under /etc, /var, /lib, /usr or /Library.
		for _, t := range persistenceTrees {
			if hasPrefixSlash(c, t) {
				return "system autostart location"
			}
		}
	}
	if strings.HasSuffix(base, ".service") || strings.HasSuffix(base, ".timer") {
		return "systemd unit"
	}
	return ""
}

// hasPrefixSlash reports whether s, or s with a slash appended, starts
// with t ("/etc/zsh" is in the tree "/etc/zsh/"), without building s+"/".
func hasPrefixSlash(s, t string) bool {
	return strings.HasPrefix(s, t) || (len(t) == len(s)+1 && t[len(s)] == '/' && t[:len(s)] == s)
}

func isWrite(op string) bool {
	switch op {
	case "write", "append", "copy_to", "move", "link", "chmod":
		return true
	}
	return false
}

// checkPersistenceTarget judges a write to a file the system runs on its
// own.
func checkPersistenceTarget(e *catalog.Env, a *access, p, c string) {
	if !isWrite(a.op) || a.dynamic {
		return
	}
	if why := persistenceTarget(p, c); why != "" && !(a.op == "chmod" && why != "SSH authorized_keys") {
		e.Add(catalog.Finding{Rule: "PERSISTENCE", Evidence: a.evidence, Pos: a.pos, Key: p,
			Message:  fmt.Sprintf("Content writes %s %s.", why, p),
			Metadata: map[string]any{"path": p, "kind": why}})
	}
}

// checkPersistence judges the commands and Python calls that schedule or
// install something that runs on its own.
func checkPersistence(e *catalog.Env) {
	for _, i := range e.Commands(kindPersist) {
		c := &e.Facts.Commands[i]
		switch {
		case catalog.Is(c, "crontab"):
			if crontabEdits(c.Args) {
				e.Add(catalog.Finding{Rule: "PERSISTENCE", Evidence: c.Evidence, Pos: c.Pos, Key: "crontab",
					Message: "Content edits the crontab.", Metadata: map[string]any{"command": "crontab"}})
			}
		case catalog.Is(c, "systemctl"):
			if op, _ := catalog.FirstOperand(c.Args, "-H", "--host", "-M", "--machine"); op == "enable" || op == "link" || op == "preset" || op == "edit" {
				e.Add(catalog.Finding{Rule: "PERSISTENCE", Evidence: c.Evidence, Pos: c.Pos, Key: "systemctl",
					Message:  fmt.Sprintf("systemctl %s installs a service that starts on its own.", op),
					Metadata: map[string]any{"command": "systemctl " + op}})
			}
		case catalog.Is(c, "launchctl", "update-rc.d", "chkconfig", "rc-update"):
			op, _ := catalog.FirstOperand(c.Args)
			if op == "list" || op == "print" || op == "--list" || op == "show" {
				continue
			}
			e.Add(catalog.Finding{Rule: "PERSISTENCE", Evidence: c.Evidence, Pos: c.Pos, Key: c.Name,
				Message:  fmt.Sprintf("%s registers a service that starts on its own.", c.Name),
				Metadata: map[string]any{"command": c.Name}})
		case catalog.Is(c, "systemd-run"):
			if opt := systemdRunTimer(c.Args); opt != "" {
				e.Add(catalog.Finding{Rule: "PERSISTENCE", Evidence: c.Evidence, Pos: c.Pos, Key: "systemd-run",
					Message:  fmt.Sprintf("systemd-run %s installs a timer that runs the command later.", opt),
					Metadata: map[string]any{"command": "systemd-run " + opt}})
			}
		case catalog.Is(c, "at", "batch"):
			if !catalog.HasShortFlag(c.Args, 'l') && !catalog.HasShortFlag(c.Args, 'd') {
				e.Add(catalog.Finding{Rule: "PERSISTENCE", Evidence: c.Evidence, Pos: c.Pos, Key: c.Name,
					Message:  fmt.Sprintf("%s schedules a job that runs later.", c.Name),
					Metadata: map[string]any{"command": c.Name}})
			}
		}
	}
	for i := range e.Facts.Calls {
		c := &e.Facts.Calls[i]
		if strings.HasPrefix(c.Name, "crontab.") || strings.HasPrefix(c.Name, "python_crontab") {
			e.Add(catalog.Finding{Rule: "PERSISTENCE", Evidence: c.Evidence, Pos: c.Pos, Key: "crontab",
				Message: "Python edits the crontab.", Metadata: map[string]any{"api": c.Name}})
		}
	}
}

// systemdRunTimers are the systemd-run options that make it create a
// timer unit: the command runs later, on a schedule, on its own.
var systemdRunTimers = []string{"--on-calendar", "--on-active", "--on-boot", "--on-startup",
	"--on-unit-active", "--on-unit-inactive", "--on-timezone-change", "--on-clock-change", "--timer-property"}

// systemdRunTimer returns the timer option among systemd-run arguments
// ("" when none); an option word anywhere counts, so that a value option
// not known here cannot hide it.
func systemdRunTimer(args []string) string {
	for _, a := range args {
		if a == "--" || !strings.HasPrefix(a, "-") {
			continue
		}
		opt, _, _ := strings.Cut(a, "=")
		for _, t := range systemdRunTimers {
			if opt == t {
				return opt
			}
		}
	}
	return ""
}

// crontabEdits reports whether crontab arguments install or remove a
// crontab: anything but a plain listing.
func crontabEdits(args []string) bool {
	if len(args) == 0 {
		return true // reads a new crontab from stdin
	}
	for _, a := range args {
		if a == "-l" || a == "--list" {
			continue
		}
		if a == "-u" {
			continue
		}
		if strings.HasPrefix(a, "-") && a != "-" && strings.ContainsAny(a[1:], "er") {
			return true
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			// A file or "-" (stdin) replaces the crontab, unless it is the
			// user name after -u.
			return !prevIsU(args, a)
		}
	}
	return false
}

func prevIsU(args []string, a string) bool {
	for i := 1; i < len(args); i++ {
		if args[i] == a && args[i-1] == "-u" {
			return true
		}
	}
	return false
}

// historyFiles are shell and tool histories; wiping them hides what ran.
var historyFiles = map[string]bool{"/.bash_history": true, "/.zsh_history": true, "/.history": true,
	"/.sh_history": true, "/.python_history": true, "/.mysql_history": true, "/.psql_history": true,
	"/.lesshst": true, "/.viminfo": true, "/.node_repl_history": true, "/.local/share/fish/fish_history": true}

var logFiles = []string{"/var/log/auth", "/var/log/secure", "/var/log/syslog", "/var/log/messages",
	"/var/log/wtmp", "/var/log/btmp", "/var/log/lastlog", "/var/log/audit", "/var/log/kern", "/var/log/journal"}

// securityServices are services whose stop or disable lowers defenses.
var securityServices = map[string]bool{"firewalld": true, "ufw": true, "apparmor": true, "auditd": true,
	"iptables": true, "nftables": true, "selinux": true, "fail2ban": true, "clamav-daemon": true,
	"clamd": true, "falco": true, "osqueryd": true, "rsyslog": true, "syslog": true, "systemd-journald": true,
	"crowdstrike": true, "falcon-sensor": true, "wazuh-agent": true, "ossec": true, "sshguard": true}

// checkEvasionTarget judges a write to a shell history or a system log.
func checkEvasionTarget(e *catalog.Env, a *access, p string) {
	if !evasionOp(a.op) || a.dynamic {
		return
	}
	if _, rel, ok := match.SplitHome(p); ok && historyFiles[rel] {
		e.Add(catalog.Finding{Rule: "DEFENSE_EVASION", Evidence: a.evidence, Pos: a.pos, Key: p,
			Message: fmt.Sprintf("Content wipes shell history %s.", p), Metadata: map[string]any{"path": p}})
		return
	}
	if !strings.HasPrefix(p, "/var/log/") {
		return // every log file is under it
	}
	for _, l := range logFiles {
		if strings.HasPrefix(p, l) {
			e.Add(catalog.Finding{Rule: "DEFENSE_EVASION", Evidence: a.evidence, Pos: a.pos, Key: p,
				Message: fmt.Sprintf("Content tampers with system log %s.", p), Metadata: map[string]any{"path": p}})
			break
		}
	}
}

// evasionOp reports whether an access of this kind may wipe a history or
// a log: any but reading, listing, naming, copying from and sourcing.
func evasionOp(op string) bool {
	return !(op == "read" || op == "list" || op == "ref" || op == "copy_from" || op == "source")
}

// checkDefenseEvasion judges the assignments and commands that turn off
// history, logging or security controls.
func checkDefenseEvasion(e *catalog.Env) {
	add := func(ev string, pos sdk.Pos, key, msg string, meta map[string]any) {
		e.Add(catalog.Finding{Rule: "DEFENSE_EVASION", Evidence: ev, Pos: pos, Key: key, Message: msg, Metadata: meta})
	}
	for i := range e.Facts.Assignments {
		as := &e.Facts.Assignments[i]
		n := historyVar(as.Name)
		if n == "" {
			continue
		}
		ev := as.Op + " " + as.Name
		if as.Op != "unset" {
			ev = fmt.Sprintf("%s %s=%s", as.Op, as.Name, as.Value)
		}
		switch {
		case n == "HISTFILE" && (as.Op == "unset" || as.Value == "/dev/null" || (as.Value == "" && !as.Dynamic)):
			add(ev, as.Pos, n, "Content disables shell history (HISTFILE).", map[string]any{"variable": n})
		case (n == "HISTSIZE" || n == "HISTFILESIZE" || n == "SAVEHIST") && (as.Value == "0" || as.Op == "unset"):
			add(ev, as.Pos, n, fmt.Sprintf("Content disables shell history (%s).", n), map[string]any{"variable": n})
		case n == "HISTIGNORE" && !as.Dynamic && slices.Contains(strings.Split(as.Value, ":"), "*"):
			add(ev, as.Pos, n, "Content keeps every command out of the shell history (HISTIGNORE=*).", map[string]any{"variable": n})
		}
	}
	checkServiceStop(e)
	for _, i := range e.Commands(kindEvasion) {
		c := &e.Facts.Commands[i]
		name := c.Name
		args := c.Args
		op, _ := catalog.FirstOperand(args)
		is := evasionCasesOf(c)
		switch {
		case is&evHistory != 0 && (catalog.HasShortFlag(args, 'c') || catalog.HasShortFlag(args, 'd') ||
			(catalog.HasShortFlag(args, 'w') || catalog.HasShortFlag(args, 'a')) && hasAny(args, "/dev/null")):
			add(c.Evidence, c.Pos, "history", "Content clears the shell history.", map[string]any{"command": "history"})
		case is&evSet != 0 && hasSeq(args, "+o", "history"):
			add(c.Evidence, c.Pos, "history", "Content turns shell history off.", map[string]any{"command": "set +o history"})
		case is&evSetenforce != 0 && (op == "0" || strings.EqualFold(op, "permissive")):
			add(c.Evidence, c.Pos, name, "Content disables SELinux enforcement.", map[string]any{"command": "setenforce"})
		case is&evUfw != 0 && (op == "disable" || op == "reset"):
			add(c.Evidence, c.Pos, name, "Content disables the ufw firewall.", map[string]any{"command": "ufw " + op})
		case is&evIptables != 0 &&
			(catalog.HasShortFlag(args, 'F', "--flush") || catalog.HasShortFlag(args, 'X', "--delete-chain") ||
				hasSeq(args, "-P", "INPUT", "ACCEPT")):
			add(c.Evidence, c.Pos, name, "Content flushes the firewall rules.", map[string]any{"command": name})
		case is&evNft != 0 && (hasSeq(args, "flush", "ruleset") || hasSeq(args, "flush", "table") ||
			hasSeq(args, "flush", "chain") || hasSeq(args, "delete", "table") || hasSeq(args, "delete", "chain")):
			add(c.Evidence, c.Pos, name, "Content flushes the nftables rule set.", map[string]any{"command": "nft"})
		case is&evAuditctl != 0 && (hasSeq(args, "-e", "0") || catalog.HasShortFlag(args, 'D') || auditSilenced(args)):
			add(c.Evidence, c.Pos, name, "Content disables kernel auditing.", map[string]any{"command": "auditctl"})
		case is&evFirewalld != 0 && firewalldOpened(args):
			add(c.Evidence, c.Pos, name, "Content opens the firewalld firewall to all traffic.", map[string]any{"command": name})
		case is&evAppArmor != 0:
			add(c.Evidence, c.Pos, name, "Content disables AppArmor.", map[string]any{"command": name})
		case is&evSpctl != 0 && hasAny(args, "--master-disable", "--global-disable"),
			is&evCsrutil != 0 && op == "disable":
			add(c.Evidence, c.Pos, name, "Content disables macOS system protection.", map[string]any{"command": name})
		case is&evSystemctl != 0 && stopVerbs[op]:
			for _, a := range args {
				if !strings.HasPrefix(a, "-") && a != op && isSecurityAgent(a) {
					add(c.Evidence, c.Pos, name+a, fmt.Sprintf("Content stops security service %s.", a),
						map[string]any{"command": "systemctl " + op, "service": a})
				}
			}
		case is&evService != 0 && len(args) >= 2 && isSecurityAgent(args[0]) && stopVerbs[args[1]]:
			add(c.Evidence, c.Pos, name+args[0], fmt.Sprintf("Content stops security service %s.", args[0]),
				map[string]any{"command": "service", "service": args[0]})
		case is&evJournalctl != 0 && hasPrefixArg(args, "--vacuum", "--rotate"):
			add(c.Evidence, c.Pos, name, "Content deletes the system journal.", map[string]any{"command": "journalctl"})
		case is&evLn != 0 && len(args) >= 2:
			ops, _ := catalog.Operands(c)
			if len(ops) == 2 && ops[0] == "/dev/null" {
				p := match.CleanPath(normalizeHome(ops[1]))
				if _, rel, ok := match.SplitHome(p); ok && historyFiles[rel] {
					add(c.Evidence, c.Pos, p, fmt.Sprintf("Content discards shell history %s.", p), map[string]any{"path": p})
				}
			}
		case is&evTruncate != 0 && len(args) > 0:
			// Covered by the file access checks above when recorded; the
			// operands are judged here too for robustness.
			ops, _ := catalog.Operands(c)
			for _, o := range ops {
				p := match.CleanPath(normalizeHome(o))
				if _, rel, ok := match.SplitHome(p); ok && historyFiles[rel] {
					add(c.Evidence, c.Pos, p, fmt.Sprintf("Content wipes shell history %s.", p), map[string]any{"path": p})
				}
			}
		}
	}
}

// historyVar returns the upper-cased name of a history setting
// (HISTFILE, HISTSIZE, HISTFILESIZE, SAVEHIST, in any case), or "": the
// only assignments checkDefenseEvasion judges. Most names are ruled out by
// their length and first byte without upper-casing them; the bounds allow
// for "ı" and "ſ", the two-byte letters that upper-case to I and S.
func historyVar(name string) string {
	if len(name) < len("HISTFILE") || len(name) > 2*len("HISTFILESIZE") {
		return ""
	}
	switch name[0] {
	case 'h', 'H', 's', 'S', 0xC4, 0xC5:
	default:
		return ""
	}
	switch n := strings.ToUpper(name); n {
	case "HISTFILE", "HISTSIZE", "HISTFILESIZE", "SAVEHIST", "HISTIGNORE":
		return n
	}
	return ""
}

// The cases of checkDefenseEvasion's switch, by the command names each
// asks Is about.
const (
	evHistory = 1 << iota
	evSet
	evSetenforce
	evUfw
	evIptables
	evNft
	evAuditctl
	evAppArmor
	evSpctl
	evCsrutil
	evSystemctl
	evService
	evJournalctl
	evLn
	evTruncate
	evFirewalld
)

// evasionCases maps each name to its cases; filled at initialization.
var evasionCases = func() *lookup.Table {
	t := &lookup.Table{}
	for bit, names := range map[uint64][]string{
		evHistory: {"history"}, evSet: {"set"}, evSetenforce: {"setenforce"}, evUfw: {"ufw"},
		evIptables: {"iptables", "ip6tables", "iptables-legacy", "iptables-nft"}, evNft: {"nft"},
		evAuditctl: {"auditctl"}, evAppArmor: {"aa-teardown", "aa-disable"}, evSpctl: {"spctl"},
		evCsrutil: {"csrutil"}, evSystemctl: {"systemctl"}, evService: {"service"}, evJournalctl: {"journalctl"},
		evLn: {"ln"}, evTruncate: {"truncate", "shred"}, evFirewalld: {"firewall-cmd", "firewall-offline-cmd"},
	} {
		for _, n := range names {
			t.Add(n, bit)
		}
	}
	return t
}()

// evasionCasesOf returns the cases whose names c may run as: bit evX is
// set exactly when catalog.Is(c, <the names of evX>) holds (the names are
// plain, so the command word needs no glob check), found by one table
// probe per name instead of a string comparison per name and case.
func evasionCasesOf(c *sdk.Command) uint64 {
	k := evasionCases.Get(c.Name)
	for _, n := range c.Candidates {
		k |= evasionCases.Get(n)
	}
	return k
}

// optValues returns the values of option opt in args (`--opt=V` and
// `--opt V`).
func optValues(args []string, opt string) []string {
	var out []string
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, opt+"="); ok {
			out = append(out, v)
		} else if a == opt && i+1 < len(args) {
			out = append(out, args[i+1])
		}
	}
	return out
}

// auditSilenced reports auditctl settings that make the kernel drop or
// skip audit records: a never rule (-a/-A never,… or …,never), failure
// mode silent (-f 0), or no waiting on a full backlog
// (--backlog_wait_time 0).
func auditSilenced(args []string) bool {
	for i, a := range args {
		if (a == "-a" || a == "-A") && i+1 < len(args) {
			for _, part := range strings.Split(args[i+1], ",") {
				if strings.TrimSpace(part) == "never" {
					return true
				}
			}
		}
		if (strings.HasPrefix(a, "-a") || strings.HasPrefix(a, "-A")) && len(a) > 2 && strings.Contains(a, "never") {
			return true
		}
	}
	return hasSeq(args, "-f", "0") || slices.Contains(optValues(args, "--backlog_wait_time"), "0")
}

// firewalldOpened reports firewall-cmd settings that let all traffic in:
// the trusted zone as default, a zone target of ACCEPT, a rich rule that
// accepts without a source or from everywhere, everywhere as a source, an
// interface put in the trusted zone, every port opened, or a
// direct rule flush.
func firewalldOpened(args []string) bool {
	for _, v := range optValues(args, "--set-default-zone") {
		if strings.EqualFold(v, "trusted") {
			return true
		}
	}
	for _, v := range optValues(args, "--set-target") {
		if strings.EqualFold(v, "ACCEPT") {
			return true
		}
	}
	for _, v := range optValues(args, "--add-rich-rule") {
		r := strings.ToLower(v)
		if strings.Contains(r, "accept") && !strings.Contains(r, "port") && !strings.Contains(r, "service") &&
			(!strings.Contains(r, "source") || strings.Contains(r, "0.0.0.0/0") || strings.Contains(r, "::/0")) {
			return true
		}
	}
	for _, v := range optValues(args, "--add-source") {
		if v == "0.0.0.0/0" || v == "::/0" {
			return true
		}
	}
	for _, z := range optValues(args, "--zone") {
		if strings.EqualFold(z, "trusted") && (len(optValues(args, "--add-interface")) > 0 ||
			len(optValues(args, "--change-interface")) > 0) {
			return true
		}
	}
	for _, v := range optValues(args, "--add-port") {
		if p, _, _ := strings.Cut(v, "/"); p == "0-65535" || p == "1-65535" {
			return true
		}
	}
	if hasAny(args, "--direct", "--passthrough") {
		return catalog.HasShortFlag(args, 'F', "--flush") || hasSeq(args, "-P", "INPUT", "ACCEPT")
	}
	return false
}

func hasSeq(args []string, seq ...string) bool {
	for i := 0; i+len(seq) <= len(args); i++ {
		ok := true
		for j := range seq {
			if args[i+j] != seq[j] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func hasAny(args []string, want ...string) bool {
	for _, a := range args {
		for _, w := range want {
			if a == w {
				return true
			}
		}
	}
	return false
}

func hasPrefixArg(args []string, prefixes ...string) bool {
	for _, a := range args {
		for _, p := range prefixes {
			if strings.HasPrefix(a, p) {
				return true
			}
		}
	}
	return false
}

// stopVerbs are the operands of service managers that stop, disable or
// remove a service (systemctl, service, init scripts, rc-service,
// update-rc.d, chkconfig, launchctl, runit's sv, supervisorctl).
var stopVerbs = map[string]bool{"stop": true, "disable": true, "mask": true, "kill": true, "force-stop": true,
	"off": true, "remove": true, "del": true, "delete": true, "unload": true, "bootout": true, "down": true,
	"exit": true, "freeze": true, "force-shutdown": true}

// kindServiceCtl: the service managers other than systemctl and service,
// and SysV init scripts run by path.
var kindServiceCtl = catalog.NewKind(catalog.KindSpec{
	Names: []string{"rc-service", "rc-update", "invoke-rc.d", "update-rc.d", "chkconfig", "launchctl", "sv",
		"initctl", "stop", "supervisorctl", "s6-svc", "svc"},
})

// isInitScript reports a command run by the path of a SysV or BSD init
// script.
func isInitScript(c *sdk.Command) bool {
	return strings.HasPrefix(c.Path, "/etc/init.d/") || strings.HasPrefix(c.Path, "/etc/rc.d/")
}

// checkServiceStop reports a security or audit agent stopped, disabled or
// unloaded through a service manager or its init script
// (`/etc/init.d/auditd stop`, `rc-service falco stop`, `launchctl unload
// …crowdstrike…`, `stop auditd`).
func checkServiceStop(e *catalog.Env) {
	idx := slices.Clone(e.Commands(kindServiceCtl))
	for i := range e.Facts.Commands {
		if isInitScript(&e.Facts.Commands[i]) && !slices.Contains(idx, int32(i)) {
			idx = append(idx, int32(i))
		}
	}
	for _, i := range idx {
		c := &e.Facts.Commands[i]
		name := c.Name
		if isInitScript(c) {
			name = c.Path
		}
		base := name[strings.LastIndexByte(name, '/')+1:]
		stops := base == "stop"
		for _, a := range c.Args {
			if stopVerbs[strings.ToLower(a)] {
				stops = true
			}
		}
		if !stops {
			continue
		}
		agent := ""
		if strings.Contains(name, "/") && isSecurityAgent(base) {
			agent = base
		}
		for _, a := range c.Args {
			if agent == "" && !stopVerbs[strings.ToLower(a)] && isSecurityAgent(a) {
				agent = a
			}
		}
		if agent == "" {
			continue
		}
		e.Add(catalog.Finding{Rule: "DEFENSE_EVASION", Evidence: c.Evidence, Pos: c.Pos, Key: base + agent,
			Message:  fmt.Sprintf("Content stops security service %s.", agent),
			Metadata: map[string]any{"command": base, "service": agent}})
	}
}

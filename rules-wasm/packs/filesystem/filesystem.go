// Package filesystem is the built-in rule pack for file system harm:
// destructive deletes, access to denied (credential) paths, a denied working
// directory, raw block device writes, persistence files and defense evasion
// (history and log wiping, disabling security controls).
package filesystem

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/catalog"
	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/match"
	"github.com/toolwarden/toolwarden/sdk"
)

var ruleIDs = []string{"BASH_RECURSIVE_DELETE", "FILE_DANGEROUS_DELETE", "WORKSPACE_RECURSIVE_DELETE_REVIEW",
	"FILE_SECRET_PATH_ACCESS", "EXECUTION_DENIED_CWD", "BLOCK_DEVICE_WRITE", "PERSISTENCE", "DEFENSE_EVASION",
	"SYSTEM_FILE_WRITE", "OUTSIDE_WORKSPACE_DELETE_REVIEW"}

// Info describes the pack for the host's describe call.
func Info() sdk.PluginInfo {
	return sdk.PluginInfo{Name: "toolwarden-filesystem", Version: catalog.Version, Rules: catalog.Infos(ruleIDs...)}
}

// Scan judges the file system facts of one scan input.
//
// Every file access (recorded, redirected, or derived from a delete
// command) is judged by all access checks as it is found, so no list of
// accesses is built; each rule still reports in the order of its own
// checks, which is all the sorted output depends on.
func Scan(in *sdk.ScanInput) ([]sdk.Finding, error) {
	var env catalog.Env
	if err := env.Init(in); err != nil {
		return nil, fmt.Errorf("filesystem pack: %w", err)
	}
	e := &env
	checkBlockCommands(e)
	judgeAccesses(e)
	checkWalkDeletes(e)
	checkUploads(e)
	checkCwd(e)
	checkPersistence(e)
	checkDefenseEvasion(e)
	checkSysctlWrites(e)
	checkMassKill(e)
	return e.Findings(), nil
}

// The commands each check walks (see catalog.Kind).
var (
	// kindAccess: commands that access files by redirection or delete by
	// name (commandDeletes).
	kindAccess = catalog.NewKind(catalog.KindSpec{Redirected: true, Names: deleters})
	// kindDeleter: the commands commandDeletes derives deletes from.
	kindDeleter = catalog.NamesKind(deleters...)
	kindCd      = catalog.NamesKind("cd", "pushd")
	kindGit     = catalog.NamesKind("git")
	// kindBlock: mkfs*, mkfsLike and dd.
	kindBlock = catalog.NewKind(catalog.KindSpec{Prefixes: []string{"mkfs"},
		Names: append(keys(mkfsLike), "dd")})
	kindPersist = catalog.NamesKind("crontab", "systemctl", "launchctl", "update-rc.d", "chkconfig", "rc-update",
		"at", "batch", "systemd-run")
	kindEvasion = catalog.NamesKind("history", "set", "setenforce", "ufw", "iptables", "ip6tables", "iptables-legacy",
		"iptables-nft", "nft", "auditctl", "aa-teardown", "aa-disable", "spctl", "csrutil", "systemctl", "service",
		"journalctl", "ln", "truncate", "shred", "firewall-cmd", "firewall-offline-cmd")
)

var deleters = []string{"busybox", "toybox", "rm", "rmdir", "unlink", "shred", "srm", "wipe", "git", "find"}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// access is a file access from any source: FileAccess facts, redirections,
// and commands whose operands are plainly paths (rm, find -delete).
type access struct {
	path      string
	op        string
	by        string
	recursive bool
	force     bool
	glob      bool
	dynamic   bool
	mode      string
	owner     string
	// python is set for Python calls; for a recorded FileAccess it is
	// worked out from by, and only for deletes, which alone need it.
	python   bool
	recorded bool
	evidence string
	pos      sdk.Pos
}

func isPythonAPI(by string) bool {
	return strings.Contains(by, ".") || by == "open" || by == "remove" || by == "unlink" || by == "rmtree"
}

// judge runs every access check on one access.
func judge(e *catalog.Env, a *access) {
	checkDelete(e, a)
	checkSystemWrite(e, a)
	checkSecretPath(e, a)
	checkBlockDevice(e, a)
	if !a.dynamic && (isWrite(a.op) || evasionOp(a.op)) {
		// Both remaining checks look at the cleaned path.
		p := normalizeHome(a.path)
		c := match.CleanPath(p)
		checkPersistenceTarget(e, a, p, c)
		checkEvasionTarget(e, a, c)
	}
}

// judgeAccesses judges every file access of the scan, in order: the
// recorded FileAccess facts, then per command its redirections and the
// deletes it makes, then the file accesses of Python calls.
func judgeAccesses(e *catalog.Env) {
	f := e.Facts
	for i := range f.Files {
		fa := &f.Files[i]
		a := access{path: fa.Path, op: fa.Op, by: fa.By, recursive: fa.Recursive, force: fa.Force,
			glob: fa.Glob || match.HasGlob(fa.Path), dynamic: fa.Dynamic, mode: fa.Mode, owner: fa.Owner,
			recorded: true, evidence: fa.Evidence, pos: fa.Pos}
		judge(e, &a)
	}
	for _, i := range e.Commands(kindAccess) {
		c := &f.Commands[i]
		for _, r := range c.Redirects {
			if r.Target == "" || strings.HasPrefix(r.Target, "&") || r.Op == "<<" {
				continue
			}
			op := "write"
			switch r.Op {
			case ">>":
				op = "append"
			case "<", "<<<":
				op = "read"
			}
			if r.Op == "<<<" {
				continue
			}
			a := access{path: r.Target, op: op, by: "redirect", dynamic: r.Dynamic,
				glob: match.HasGlob(r.Target), evidence: c.Evidence, pos: c.Pos}
			judge(e, &a)
		}
		if e.Of(i, kindDeleter) {
			commandDeletes(e, int(i))
		}
	}
	for i := range f.Calls {
		if a, ok := callAccess(&f.Calls[i]); ok {
			judge(e, &a)
		}
	}
}

// commandDeletes derives deletes from rm/rmdir/unlink/shred/find -delete so
// that a delete is judged even when the analyzer recorded no FileAccess.
func commandDeletes(e *catalog.Env, i int) {
	f := e.Facts
	c := &f.Commands[i]
	if catalog.Is(c, "busybox", "toybox") && len(c.Args) > 0 {
		// busybox rm -rf /: the applet is the command.
		u := *c
		u.Name, u.Candidates, u.Args = c.Args[0], nil, c.Args[1:]
		u.DynamicArgs = nil
		for _, d := range c.DynamicArgs {
			if d > 0 {
				u.DynamicArgs = append(u.DynamicArgs, d-1)
			}
		}
		c = &u
	}
	emit := func(a access) { judge(e, &a) }
	switch {
	case catalog.Is(c, "rm", "rmdir", "unlink", "shred", "srm", "wipe"):
		rec := catalog.HasShortFlag(c.Args, 'r', "--recursive") || catalog.HasShortFlag(c.Args, 'R')
		force := catalog.HasShortFlag(c.Args, 'f', "--force")
		if catalog.Is(c, "shred", "srm", "wipe") {
			force = true
		}
		viaFind := catalog.HasReach(c, "find_exec") || catalog.HasReach(c, "xargs")
		nops := 0
		eachOperand(c, func(p string, idx int) {
			nops++
			if p == "{}" || (viaFind && catalog.ArgDynamic(c, idx)) {
				if roots := findRoots(f, i); len(roots) > 0 {
					for _, r := range roots {
						emit(access{path: r, op: "delete", by: c.Name, recursive: rec, force: force,
							glob: match.HasGlob(r), evidence: c.Evidence, pos: c.Pos})
					}
					return
				}
			}
			emit(access{path: p, op: "delete", by: c.Name, recursive: rec, force: force,
				glob: match.HasGlob(p), dynamic: catalog.ArgDynamic(c, idx), evidence: c.Evidence, pos: c.Pos})
		})
		if viaFind && nops == 0 {
			for _, r := range findRoots(f, i) {
				emit(access{path: r, op: "delete", by: c.Name, recursive: rec, force: force,
					glob: match.HasGlob(r), evidence: c.Evidence, pos: c.Pos})
			}
		}
	case catalog.Is(c, "git"):
		// git clean -fd deletes every untracked file and directory.
		if sub, i := catalog.FirstOperand(c.Args, "-C", "-c"); sub == "clean" && catalog.HasShortFlag(c.Args[i+1:], 'f', "--force") &&
			!catalog.HasShortFlag(c.Args[i+1:], 'n', "--dry-run") {
			root := "."
			for k := 0; k+1 < i; k++ {
				if c.Args[k] == "-C" {
					root = c.Args[k+1]
				}
			}
			emit(access{path: root, op: "delete", by: "git clean", recursive: catalog.HasShortFlag(c.Args[i+1:], 'd'),
				force: true, evidence: c.Evidence, pos: c.Pos})
		}
	case catalog.Is(c, "find"):
		for _, a := range c.Args {
			if a == "-delete" {
				for _, r := range rootsOf(c) {
					emit(access{path: r, op: "delete", by: "find", recursive: true,
						glob: match.HasGlob(r), evidence: c.Evidence, pos: c.Pos})
				}
				break
			}
		}
	}
}

// eachOperand calls fn with each argument that is not an option, and its
// index, as catalog.Operands lists them, without building the lists.
func eachOperand(c *sdk.Command, fn func(string, int)) {
	dd := false
	for i, a := range c.Args {
		if !dd && a == "--" {
			dd = true
			continue
		}
		if !dd && strings.HasPrefix(a, "-") && a != "-" {
			continue
		}
		fn(a, i)
	}
}

// findRoots returns what feeds the command at index i its operands: the
// start paths of a find (find -exec, find … | xargs), or the words an
// xargs reads (echo / | xargs rm -rf, xargs rm <<< /).
func findRoots(f *sdk.Facts, i int) []string {
	c := &f.Commands[i]
	for j := i - 1; j >= 0; j-- {
		p := &f.Commands[j]
		if p.Pos.Line != c.Pos.Line && p.Pos.Depth == c.Pos.Depth {
			break
		}
		if catalog.Is(p, "find") {
			return rootsOf(p)
		}
		if catalog.Is(p, "xargs") {
			var words []string
			for _, r := range p.Redirects {
				if r.Op == "<<<" && !r.Dynamic {
					words = append(words, strings.Fields(r.Target)...)
				}
			}
			for s := range catalog.Feeders(f, p) {
				if catalog.Is(s, "echo", "printf") && len(s.DynamicArgs) == 0 {
					ops, _ := catalog.Operands(s)
					for _, o := range ops {
						words = append(words, strings.Fields(o)...)
					}
				}
				if catalog.Is(s, "find") {
					words = append(words, rootsOf(s)...)
				}
			}
			if len(words) > 0 {
				return words
			}
		}
	}
	return nil
}

// cwdAt returns the directory a static `cd` earlier in the same content
// moved to before pos, or "" when unknown (no cd, or a dynamic one).
func cwdAt(e *catalog.Env, pos sdk.Pos) string {
	f := e.Facts
	dir := ""
	for _, i := range e.Commands(kindCd) {
		c := &f.Commands[i]
		if c.Pos.Depth != pos.Depth || c.Pos.Line > pos.Line || (c.Pos.Line == pos.Line && c.Pos.Col >= pos.Col && pos.Col > 0) {
			continue
		}
		if !catalog.Is(c, "cd", "pushd") {
			continue
		}
		ops, idx := catalog.Operands(c)
		switch {
		case len(ops) == 0:
			dir = "~"
		case catalog.ArgDynamic(c, idx[0]):
			dir = ""
		case strings.HasPrefix(ops[0], "/") || strings.HasPrefix(ops[0], "~"):
			dir = match.CleanPath(ops[0])
		case dir != "":
			dir = match.CleanPath(dir + "/" + ops[0])
		}
	}
	return dir
}

func rootsOf(c *sdk.Command) []string {
	var roots []string
	n := 0
	for _, a := range c.Args {
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
			break
		}
		roots = append(roots, a)
		n++
	}
	if len(roots) == 0 {
		roots = []string{"."}
	}
	// one -name filter narrows what -delete and -exec reach (sdk.FindTargets)
	expr := c.Args[n:]
	return sdk.FindTargets(roots, expr, func(i int) bool { return slices.Contains(c.DynamicArgs, n+i) })
}

// Python APIs that touch files, by the argument index of the path. Used
// when the analyzer recorded the call but no FileAccess.
var pyFileAPIs = map[string]string{
	"os.remove": "delete", "os.unlink": "delete", "os.rmdir": "delete", "os.removedirs": "delete",
	"shutil.rmtree": "delete", "open": "read", "io.open": "read", "codecs.open": "read",
	"shutil.copy": "copy_from", "shutil.copy2": "copy_from", "shutil.copyfile": "copy_from",
	"shutil.copytree": "copy_from", "shutil.move": "move", "os.rename": "move",
	"dotenv.load_dotenv": "read", "dotenv.dotenv_values": "read", "load_dotenv": "read",
	"dotenv_values": "read", "os.chmod": "chmod", "os.chown": "chown", "os.listdir": "list",
	"os.scandir": "list", "os.truncate": "write",
}

func callAccess(c *sdk.Call) (access, bool) {
	op, ok := pyFileAPIs[c.Name]
	if !ok {
		return access{}, false
	}
	p, ok := catalog.ArgStr(c, 0)
	if !ok || p == "" {
		return access{}, false
	}
	a := access{path: normalizeHome(p), op: op, by: c.Name, python: true, glob: false, evidence: c.Evidence, pos: c.Pos}
	if c.Name == "shutil.rmtree" || c.Name == "shutil.copytree" || c.Name == "os.removedirs" {
		a.recursive = true
	}
	if op == "chmod" {
		if m, ok := catalog.ArgStr(c, 1); ok {
			a.mode = m
		} else if len(c.Args) > 1 && c.Args[1].Const {
			a.mode = c.Args[1].Str
		}
	}
	return a, true
}

// normalizeHome spells a path under $HOME or ${HOME} with "~"
// (sdk.SpellHome, shared with the host's analyzers).
func normalizeHome(p string) string { return sdk.SpellHome(p) }

// dynamicSystemDelete judges a delete target with an expansion in it by
// what it is when the expansion is empty or arbitrary: "/$X" and "~/$X"
// delete root or home, "/usr/$X" something inside a system tree. A static
// tail after the expansion ("/tmp/$ID/build", "$OUT/x") keeps it specific.
func dynamicSystemDelete(p string) bool {
	pre := staticPrefix(p)
	if pre == "" {
		return false
	}
	rest := p[len(pre):]
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		if tail := strings.Trim(rest[i:], "/*"); tail != "" {
			return false
		}
	}
	c := match.CleanPath(pre)
	if c == "/" || c == "~" {
		return true
	}
	if !strings.HasSuffix(pre, "/") {
		return false // "/usr$X" or "build-$X": a name being completed
	}
	return match.IsSystemTree(c+"/x") && !strings.HasPrefix(c, "/home") && !strings.HasPrefix(c, "/Users")
}

// staticPrefix is the part of a dynamic path before its first expansion.
func staticPrefix(p string) string {
	if i := strings.IndexAny(p, "$`"); i >= 0 {
		return p[:i]
	}
	return p
}

// checkDelete judges a delete: of a system tree or a denied path it is
// denied, any other recursive delete is reviewed.
func checkDelete(e *catalog.Env, a *access) {
	if a.op != "delete" {
		return
	}
	if a.recorded {
		a.python = isPythonAPI(a.by)
	}
	path := normalizeHome(a.path)
	if !strings.HasPrefix(path, "/") && !strings.HasPrefix(path, "~") && !strings.HasPrefix(path, "$") && !a.python {
		if dir := cwdAt(e, a.pos); dir != "" {
			path = match.CleanPath(dir + "/" + path) // cd / && rm -rf *
		}
	}
	system := false
	if a.dynamic {
		system = dynamicSystemDelete(path)
	} else {
		system = match.IsSystemTree(path)
	}
	pat, denied := "", false
	if !a.dynamic {
		pat, denied = e.M.Paths.Match(path, a.glob)
	}
	meta := func() map[string]any {
		m := map[string]any{"path": path}
		if denied {
			m["pattern"] = pat
		}
		return m
	}
	python := a.python && e.FactLang(a.pos) != "bash"
	switch {
	case python && (system || denied):
		e.Add(catalog.Finding{Rule: "FILE_DANGEROUS_DELETE", Evidence: a.evidence, Pos: a.pos, Key: path,
			Message: fmt.Sprintf("Python %s deletes protected path %s.", a.by, path), Metadata: meta()})
	case !python && (a.recursive || a.force) && (system || denied):
		e.Add(catalog.Finding{Rule: "BASH_RECURSIVE_DELETE", Evidence: a.evidence, Pos: a.pos, Key: path,
			Message: fmt.Sprintf("Recursive or forced delete of protected path %s.", path), Metadata: meta()})
	case a.recursive && !a.dynamic && outsideWorkspace(path):
		e.Add(catalog.Finding{Rule: "OUTSIDE_WORKSPACE_DELETE_REVIEW", Evidence: a.evidence, Pos: a.pos,
			Key: path, Message: fmt.Sprintf("Recursive delete of %s, outside the workspace, requires review.", path),
			Metadata: meta()})
	case a.recursive:
		msg := fmt.Sprintf("Recursive delete of %s requires review.", path)
		if a.dynamic {
			msg = fmt.Sprintf("Recursive delete of a path that cannot be resolved statically (%s) requires review.", path)
		}
		e.Add(catalog.Finding{Rule: "WORKSPACE_RECURSIVE_DELETE_REVIEW", Evidence: a.evidence, Pos: a.pos,
			Key: path, Message: msg, Metadata: meta()})
	}
}

// checkWalkDeletes: os.walk over a protected tree feeding deletes: the loop
// deletes the tree.
func checkWalkDeletes(e *catalog.Env) {
	var walkRoot string
	var walk *sdk.Call
	hasDelete := false
	for i := range e.Facts.Calls {
		c := &e.Facts.Calls[i]
		switch c.Name {
		case "os.walk", "os.fwalk", "pathlib.Path.rglob", "glob.glob", "glob.iglob":
			if p, ok := catalog.ArgStr(c, 0); ok && match.IsSystemTree(normalizeHome(p)) {
				walkRoot, walk = normalizeHome(p), c
			}
		case "os.remove", "os.unlink", "os.rmdir", "shutil.rmtree", "pathlib.Path.unlink", "pathlib.Path.rmdir":
			hasDelete = true
		}
	}
	if walk != nil && hasDelete {
		e.Add(catalog.Finding{Rule: "FILE_DANGEROUS_DELETE", Evidence: walk.Evidence, Pos: walk.Pos, Key: walkRoot,
			Message:  fmt.Sprintf("Python walks protected tree %s and deletes what it finds.", walkRoot),
			Metadata: map[string]any{"path": walkRoot}})
	}
}

// printers only name a path in their output; naming is not access.
var printers = map[string]bool{"echo": true, "printf": true, "print": true, "logging.info": true}

// checkSecretPath judges any access of a denied path, or of another
// user's home.
func checkSecretPath(e *catalog.Env, a *access) {
	if a.op == "ref" && (printers[a.by] || gitNamesOnly(e, a)) {
		return
	}
	if a.dynamic && !strings.HasPrefix(a.path, "~") && !strings.HasPrefix(a.path, "/") {
		// Only a static prefix is known; judge it when it is anchored.
		return
	}
	p := normalizeHome(a.path)
	pat, ok := e.M.Paths.Match(p, a.glob)
	if !ok && a.recursive && (a.op == "read" || a.op == "copy_from" || a.op == "chmod" || a.op == "chown") {
		pat, ok = e.M.Paths.MatchTree(p)
	}
	if ok {
		e.Add(catalog.Finding{Rule: "FILE_SECRET_PATH_ACCESS", Evidence: a.evidence, Pos: a.pos, Key: p,
			Message:  fmt.Sprintf("Script references denied path %s.", p),
			Metadata: map[string]any{"path": p, "op": a.op, "pattern": pat}})
		return
	}
	if !strings.HasPrefix(p, "~") {
		return
	}
	if user, other := match.OtherHome(p); other {
		e.Add(catalog.Finding{Rule: "FILE_SECRET_PATH_ACCESS", Evidence: a.evidence, Pos: a.pos, Key: p,
			Message:  fmt.Sprintf("Script accesses another user's home (%s): %s.", user, p),
			Metadata: map[string]any{"path": p, "op": a.op, "user": user}})
	}
}

// checkUploads judges files sent over the network.
func checkUploads(e *catalog.Env) {
	for i := range e.Facts.Network {
		n := &e.Facts.Network[i]
		if n.UploadFrom == "" || n.UploadFrom == "-" {
			continue
		}
		p := normalizeHome(n.UploadFrom)
		if pat, ok := e.M.Paths.Match(p, match.HasGlob(p)); ok {
			e.Add(catalog.Finding{Rule: "FILE_SECRET_PATH_ACCESS", Evidence: n.Evidence, Pos: n.Pos, Key: p,
				Message:  fmt.Sprintf("Script references denied path %s.", p),
				Metadata: map[string]any{"path": p, "pattern": pat, "op": "upload"}})
		}
	}
}

// gitNamesOnly reports whether a path named by git is only matched by
// name (check-ignore, ls-files, status), never read.
func gitNamesOnly(e *catalog.Env, a *access) bool {
	if a.by != "git" {
		return false
	}
	for _, i := range e.Commands(kindGit) {
		c := &e.Facts.Commands[i]
		if c.Pos.Line != a.pos.Line || c.Pos.Depth != a.pos.Depth || !catalog.Is(c, "git") {
			continue
		}
		switch sub, _ := catalog.FirstOperand(c.Args, "-C", "-c"); sub {
		case "check-ignore", "check-attr", "ls-files", "status":
			return true
		}
	}
	return false
}

func checkCwd(e *catalog.Env) {
	cwd := strings.TrimSpace(e.In.Context.Cwd)
	if cwd == "" {
		return
	}
	p := normalizeHome(cwd)
	if pat, ok := e.M.Paths.Match(p, false); ok {
		e.Add(catalog.Finding{Rule: "EXECUTION_DENIED_CWD", Evidence: "cwd: " + cwd, Pos: sdk.Pos{},
			Message:  fmt.Sprintf("Requested working directory %s is a denied path.", cwd),
			Metadata: map[string]any{"cwd": cwd, "pattern": pat}})
	}
}

// blockDevice matches the device-name families of disks, partitions,
// volumes and memory: SCSI/SATA, IDE, virtio, Xen, NVMe, MMC/SD, software
// RAID, device-mapper and LVM, loop, network and ZFS block devices, RAM
// disks, macOS disks, and the persistent names under /dev/disk/by-*.
var blockDevice = regexp.MustCompile(`^/dev/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme[0-9]|mmcblk[0-9]|md[0-9_]|md/|dm-[0-9]|disk[0-9]|rdisk[0-9]|disk/|block/|mapper/|loop[0-9]|sr[0-9]|nbd[0-9]|rbd[0-9]|zd[0-9]|zvol/|ram[0-9]|zram[0-9]|bcache[0-9]|mtdblock[0-9]|ubd[a-z]|fd[0-9]|sg[0-9]|root$|mem$|kmem$|port$)`)

// nonDiskDevices are the /dev entries that are not storage: writing them or
// naming them is no block-device write.
var nonDiskDevices = regexp.MustCompile(`^/dev/(null|zero|full|random|urandom|stdin|stdout|stderr|tty.*|pts/.*|fd/[0-9]+|shm/.*|tcp/.*|udp/.*|console|ptmx|kmsg|log)$`)

// blockTarget classifies the operands of a file-system tool: "device" when
// one names a device (or cannot be told apart from one), "file" when every
// operand is a plain file such as an image in the workspace.
func blockTarget(args []string) string {
	files := 0
	for _, a := range args {
		if a == "" || strings.HasPrefix(a, "-") || strings.Contains(a, "=") {
			continue
		}
		switch {
		case isBlockDevice(a), strings.HasPrefix(a, "/dev/") && !nonDiskDevices.MatchString(a):
			return "device"
		case strings.ContainsAny(a, "$`*?["):
			return "device" // not known statically: fail closed
		case strings.Contains(a, "/") || strings.Contains(a, "."):
			files++
		}
	}
	if files > 0 {
		return "file"
	}
	return "device"
}

// mkfsLike create or destroy file systems and partition tables.
var mkfsLike = map[string]bool{"mke2fs": true, "mkswap": true, "wipefs": true, "fdisk": true,
	"sfdisk": true, "parted": true, "sgdisk": true, "gdisk": true, "cfdisk": true, "blkdiscard": true,
	"newfs": true, "diskutil": true}

// checkBlockCommands judges the commands that create file systems or write
// raw devices.
func checkBlockCommands(e *catalog.Env) {
	for _, i := range e.Commands(kindBlock) {
		c := &e.Facts.Commands[i]
		switch {
		case catalog.NameHasPrefix(c, "mkfs"), catalog.IsIn(c, mkfsLike):
			name := c.Name
			if name == "" && len(c.Candidates) > 0 {
				name = c.Candidates[0]
			}
			if name == "diskutil" && !diskutilErases(c.Args) {
				continue
			}
			if name != "diskutil" && len(c.DynamicArgs) == 0 && blockTarget(c.Args) == "file" {
				// A file system made in a regular file (a disk image): review.
				e.Add(catalog.Finding{Rule: "BLOCK_DEVICE_WRITE", Evidence: c.Evidence, Pos: c.Pos, Key: name,
					Decision: sdk.NeedsHumanReview, Risk: sdk.RiskMedium,
					Message:  fmt.Sprintf("%s writes a file system or partition table into an image file.", name),
					Metadata: map[string]any{"command": name, "target": "file"}})
				continue
			}
			e.Add(catalog.Finding{Rule: "BLOCK_DEVICE_WRITE", Evidence: c.Evidence, Pos: c.Pos, Key: name,
				Message:  fmt.Sprintf("%s creates or destroys a file system or partition table.", name),
				Metadata: map[string]any{"command": name}})
		case catalog.Is(c, "dd"):
			for _, a := range c.Args {
				if strings.HasPrefix(a, "of=") && isBlockDevice(a[3:]) {
					e.Add(catalog.Finding{Rule: "BLOCK_DEVICE_WRITE", Evidence: c.Evidence, Pos: c.Pos, Key: a[3:],
						Message:  fmt.Sprintf("dd writes to block device %s.", a[3:]),
						Metadata: map[string]any{"device": a[3:]}})
				}
			}
		}
	}
}

// isBlockDevice reports whether p names a raw disk or memory device. The
// pattern is anchored at /dev/, so other paths skip the regexp.
func isBlockDevice(p string) bool {
	return strings.HasPrefix(p, "/dev/") && blockDevice.MatchString(p)
}

// checkBlockDevice judges a write to a raw device.
func checkBlockDevice(e *catalog.Env, a *access) {
	switch a.op {
	case "write", "append", "copy_to", "move", "delete":
	default:
		return
	}
	if a.op == "delete" && !a.force {
		return
	}
	if isBlockDevice(a.path) {
		e.Add(catalog.Finding{Rule: "BLOCK_DEVICE_WRITE", Evidence: a.evidence, Pos: a.pos, Key: a.path,
			Message:  fmt.Sprintf("Content writes to block device %s.", a.path),
			Metadata: map[string]any{"device": a.path}})
	}
}

func diskutilErases(args []string) bool {
	for _, a := range args {
		l := strings.ToLower(a)
		if strings.HasPrefix(l, "erase") || strings.HasPrefix(l, "zero") || strings.HasPrefix(l, "partition") || l == "reformat" {
			return true
		}
	}
	return false
}

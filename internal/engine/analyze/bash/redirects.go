package bash

import (
	"path"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/toolwarden/toolwarden/sdk"
)

// Redirections: the file accesses and /dev/tcp connections of a
// statement's redirects, and the uploads a connection's stdin feeds.

// stmtRedirects records the statement's redirections: file accesses,
// /dev/tcp network use, features. It returns the Redirect list for the
// command and the IDs feeding its stdin through `< <(…)`.
func (a *analyzer) stmtRedirects(s *syntax.Stmt, cmdName string, c *ctx) ([]sdk.Redirect, []int) {
	out := a.redirSlab.take(len(s.Redirs))
	var stdin []int
	for _, r := range s.Redirs {
		rd := sdk.Redirect{Op: r.Op.String(), Fd: -1}
		if r.N != nil {
			if n, err := strconv.Atoi(r.N.Value); err == nil {
				rd.Fd = n
			}
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			a.feature("heredoc", r.Pos())
			a.heredocBody(r, true)
			out = append(out, rd)
			continue
		case syntax.WordHdoc:
			a.feature("redirect", r.Pos())
			f := a.expandOne(r.Word, true)
			stdin = append(stdin, f.substIDs()...)
			out = append(out, rd)
			continue
		}
		a.feature("redirect", r.Pos())
		f := a.expandOne(r.Word, true)
		rd.Target, rd.Dynamic = a.resolveLink(normPath(f.s)), f.dyn
		if f.procSubst {
			if r.Op == syntax.RdrIn {
				stdin = append(stdin, f.substIDs()...)
			}
			out = append(out, rd)
			continue
		}
		op := ""
		switch r.Op {
		case syntax.RdrOut, syntax.ClbOut, syntax.RdrAll, syntax.RdrInOut:
			op = "write"
		case syntax.AppOut, syntax.AppAll:
			op = "append"
		case syntax.RdrIn:
			op = "read"
		case syntax.DplOut, syntax.DplIn:
			if isFdTarget(f.s) {
				rd.Target = fdTarget(f.s)
				op = ""
				// A descriptor opened earlier on /dev/tcp: a shell wired
				// to it is a reverse shell; other output sent to it is an
				// upload.
				if n, err := strconv.Atoi(f.s); err == nil {
					if idx, ok := a.tcpFDs[n]; ok && idx < len(a.b.Facts.Network) {
						if isShell(cmdName) {
							a.b.Facts.Network[idx].ExecShell = true
						} else if r.Op == syntax.DplOut && cmdName != "exec" {
							a.markDevUpload(&a.b.Facts.Network[idx], s)
						}
					}
				}
			} else if r.Op == syntax.DplOut {
				op = "write"
			} else {
				op = "read"
			}
		}
		out = append(out, rd)
		if op == "" || f.s == "" {
			continue
		}
		if strings.HasPrefix(f.s, "/dev/tcp/") || strings.HasPrefix(f.s, "/dev/udp/") {
			idx := a.devTCP(s, f, cmdName)
			if op != "read" && rd.Fd <= 1 && cmdName != "exec" && !isShell(cmdName) {
				// cat file > /dev/tcp/h/p sends the output.
				a.markDevUpload(&a.b.Facts.Network[idx], s)
			}
			if rd.Fd > 2 {
				// exec 5<>/dev/tcp/h/p: remember the socket descriptor.
				if a.tcpFDs == nil {
					a.tcpFDs = map[int]int{}
				}
				a.tcpFDs[rd.Fd] = idx
			}
			continue
		}
		if ignoredDevice(f.s) {
			continue
		}
		a.addFile(s, f, op, "redirect", c, fileFlags{})
	}
	return out, stdin
}

// fdTarget is the Redirect.Target of a duplication to descriptor t
// ("&1"), without building the common ones.
func fdTarget(t string) string {
	switch t {
	case "0":
		return "&0"
	case "1":
		return "&1"
	case "2":
		return "&2"
	case "-":
		return "&-"
	}
	return "&" + t
}

func isFdTarget(t string) bool {
	if t == "-" {
		return true
	}
	_, err := strconv.Atoi(t)
	return err == nil
}

func ignoredDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/zero":
		return true
	}
	return strings.HasPrefix(p, "/dev/fd/")
}

// streamUploaders send their stdin to the connection they open.
var streamUploaders = map[string]bool{"nc": true, "ncat": true, "netcat": true, "socat": true, "telnet": true,
	"openssl": true, "ssh": true}

// markUploads completes the network facts a command just produced with
// what it reads on stdin: a raw socket client fed by a pipe or `< file`
// uploads that stream, and curl's `@-` / `-T -` resolve to the file
// that the previous pipeline stage reads.
func (a *analyzer) markUploads(s *syntax.Stmt, netStart int, c *ctx) {
	if netStart >= len(a.b.Facts.Network) {
		return
	}
	from, fed := "", false
	if c.pipe != 0 && c.stage > 0 {
		fed = true
		for i := len(c.earlier) - 1; i >= 0 && from == ""; i-- {
			var filter bool
			from, filter = a.upstreamFile(c.earlier[i])
			if !filter {
				break
			}
		}
	}
	for _, r := range s.Redirs {
		if r.Op == syntax.RdrIn {
			if t, ok := a.staticWord(r.Word); ok && t != "" {
				fed, from = true, normPath(t)
			}
		}
	}
	if !fed {
		return
	}
	for i := netStart; i < len(a.b.Facts.Network); i++ {
		n := &a.b.Facts.Network[i]
		if n.Listen {
			continue
		}
		switch {
		case streamUploaders[n.Via] || n.Via == "dev_tcp":
			n.Upload = true
			if n.UploadFrom == "" || n.UploadFrom == "-" {
				n.UploadFrom = orDash(from)
			}
		case n.Upload && n.UploadFrom == "-" && from != "":
			n.UploadFrom = from
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// upstreamFile returns the file a simple producer stage reads (`cat F`,
// `base64 F`, `tar c F`), whose content flows down the pipe. filter is set
// when the stage only transforms its own stdin (base64, gzip …), so the
// file is further up.
func (a *analyzer) upstreamFile(st *syntax.Stmt) (file string, filter bool) {
	if st == nil {
		return "", false
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return "", false
	}
	fs := a.callWords(call)
	if len(fs) == 0 || fs[0].dyn {
		return "", false
	}
	name := path.Base(fs[0].s)
	switch name {
	case "cat", "base64", "base32", "gzip", "bzip2", "xz", "zstd", "xxd", "tac", "head", "tail", "tar", "zip",
		"openssl", "od", "hexdump", "strings", "rev", "tr", "cut", "sort", "gpg":
	default:
		return "", false
	}
	args := fs[1:]
	if name == "tar" && len(args) > 0 && !strings.HasPrefix(args[0].s, "-") && !strings.ContainsAny(args[0].s, "/.~") {
		args = args[1:]
	}
	if name == "tr" {
		return "", true
	}
	for _, f := range args {
		if !strings.HasPrefix(f.s, "-") && !f.dyn && !strings.Contains(f.s, "=") {
			return normPath(f.s), false
		}
	}
	return "", true
}

// markDevUpload marks a /dev/tcp connection that receives a command's
// output as an upload of the file that command reads (or "-").
func (a *analyzer) markDevUpload(n *sdk.NetworkUse, s *syntax.Stmt) {
	n.Upload = true
	if n.UploadFrom == "" {
		from, _ := a.upstreamFile(s)
		n.UploadFrom = orDash(from)
	}
}

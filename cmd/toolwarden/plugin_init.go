package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// sdkModule is the Go module a plugin builds against.
const sdkModule = "github.com/toolwarden/toolwarden/sdk"

func newPluginInitCmd() *cobra.Command {
	var dir, sdkDir string
	cmd := &cobra.Command{
		Use:   "init NAME",
		Short: "Write a new Go rule plugin module (rules, a test, a manifest and a test corpus)",
		Long: `Init writes a Go module for a rule plugin named NAME into ./NAME (or --dir): main.go registers the
plugin with sdk/rule, rules.go declares one example rule and judges the facts, rules_test.go tests it natively
with go test, manifest.yaml carries the plugin's limits, settings and self-test cases for the server, and cases.jsonl
is a corpus for "toolwarden plugin test". --sdk DIR points the module at a local checkout of the sdk module
(a replace directive), for building without fetching it.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if !pluginNamePattern.MatchString(name) {
				return usageErr(fmt.Errorf("init: plugin name %q: want lower-case letters, digits and dashes, starting with a letter (%s)", name, pluginNamePattern))
			}
			if dir == "" {
				dir = name
			}
			if sdkDir != "" {
				abs, err := filepath.Abs(sdkDir)
				if err != nil {
					return usageErr(fmt.Errorf("init: --sdk: %w", err))
				}
				if _, err := os.Stat(filepath.Join(abs, "go.mod")); err != nil {
					return usageErr(fmt.Errorf("init: --sdk %s is not the sdk module: %w", abs, err))
				}
				sdkDir = abs
			}
			files := pluginTemplate(name, sdkDir)
			if err := writeNewFiles(dir, files); err != nil {
				return usageErr(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote plugin %s in %s: next, toolwarden plugin build %s\n", name, dir, dir)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "directory to write (default ./NAME); must not exist or be empty")
	cmd.Flags().StringVar(&sdkDir, "sdk", "", "use the sdk module from this local directory (replace directive)")
	return cmd
}

// writeNewFiles writes files (relative path → content) under dir, which
// must not exist or be empty: init never overwrites an author's work.
func writeNewFiles(dir string, files map[string]string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("init: %w", err)
	case len(entries) > 0:
		return fmt.Errorf("init: %s exists and is not empty; refusing to overwrite it", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	for rel, content := range files {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644); err != nil {
			return fmt.Errorf("init: write %s: %w", rel, err)
		}
	}
	return nil
}

// pluginTemplate is the module init writes for a plugin called name.
func pluginTemplate(name, sdkDir string) map[string]string {
	replace := ""
	if sdkDir != "" {
		replace = fmt.Sprintf("\nreplace %s => %s\n", sdkModule, sdkDir)
	}
	r := strings.NewReplacer("{{NAME}}", name, "{{PREFIX}}", ruleIDPrefix(name), "{{SDK}}", sdkModule, "{{REPLACE}}", replace)
	out := map[string]string{}
	for path, text := range map[string]string{
		"go.mod":        tmplGoMod,
		"main.go":       tmplMain,
		"rules.go":      tmplRules,
		"rules_test.go": tmplRulesTest,
		"manifest.yaml": tmplManifest,
		"cases.jsonl":   tmplCases,
		".gitignore":    "*.wasm\n*.minisig\n",
	} {
		out[path] = r.Replace(text)
	}
	return out
}

const tmplGoMod = `module example.com/toolwarden-plugins/{{NAME}}

go 1.26

require {{SDK}} v0.0.0
{{REPLACE}}`

const tmplMain = `// Command {{NAME}} is a toolwarden rule plugin. Build it with
//
//	toolwarden plugin build
//
// (GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath); sdk/rule
// supplies the exports of the rule ABI, so this file only registers the rules.
package main

import "{{SDK}}/rule"

func init() { rule.Register(Info(), Scan) }

func main() {}
`

const tmplRules = `package main

import (
	"slices"

	"{{SDK}}"
)

// RuleForbiddenCommand flags a command the deployment does not want agents
// to run. Rule ids are upper case and unique across every loaded plugin.
const RuleForbiddenCommand = "{{PREFIX}}_FORBIDDEN_COMMAND"

// defaultForbidden is used unless the plugin's settings, which the host
// hands over as ScanInput.Config, carry a "forbidden" list.
var defaultForbidden = []string{"telnet", "rlogin"}

// Info declares the plugin and every rule it may report; the host refuses
// findings for rules not declared here.
func Info() sdk.PluginInfo {
	return sdk.PluginInfo{
		Name:    "{{NAME}}",
		Version: "0.1.0",
		Rules: []sdk.RuleInfo{{
			ID:          RuleForbiddenCommand,
			RiskType:    sdk.RiskTypeProcess,
			Risk:        sdk.RiskHigh,
			Decision:    sdk.Deny,
			Description: "runs a command this deployment forbids",
		}},
	}
}

// Scan judges the facts the host's analyzers extracted: commands arrive
// already parsed, de-obfuscated and resolved, so the plugin never parses
// shell itself.
func Scan(in *sdk.ScanInput) ([]sdk.Finding, error) {
	if in.Facts == nil {
		return nil, nil
	}
	forbidden := defaultForbidden
	if list, ok := in.Config["forbidden"].([]any); ok {
		forbidden = forbidden[:0:0]
		for _, v := range list {
			if s, ok := v.(string); ok {
				forbidden = append(forbidden, s)
			}
		}
	}
	var out []sdk.Finding
	for _, c := range in.Facts.Commands {
		if c.Dynamic || !slices.Contains(forbidden, c.Name) {
			continue
		}
		col := c.Pos.Col
		out = append(out, sdk.Finding{
			RuleID:         RuleForbiddenCommand,
			Evidence:       c.Evidence,
			Line:           c.Pos.Line,
			Column:         &col,
			Message:        c.Name + " is forbidden here",
			Recommendation: "use ssh or the deployment's approved tool instead",
		})
	}
	return out, nil
}
`

const tmplRulesTest = `package main

import (
	"testing"

	"{{SDK}}"
)

func TestForbiddenCommand(t *testing.T) {
	in := &sdk.ScanInput{Facts: &sdk.Facts{Commands: []sdk.Command{
		{Name: "ls", Evidence: "ls -la"},
		{Name: "telnet", Evidence: "telnet example.com 23", Pos: sdk.Pos{Line: 2, Col: 1}},
	}}}
	got, err := Scan(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].RuleID != RuleForbiddenCommand || got[0].Line != 2 {
		t.Fatalf("findings = %+v, want one %s on line 2", got, RuleForbiddenCommand)
	}
}

func TestConfigReplacesTheList(t *testing.T) {
	in := &sdk.ScanInput{
		Facts:  &sdk.Facts{Commands: []sdk.Command{{Name: "telnet"}, {Name: "ftp"}}},
		Config: map[string]any{"forbidden": []any{"ftp"}},
	}
	got, err := Scan(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Message != "ftp is forbidden here" {
		t.Fatalf("findings = %+v, want only ftp", got)
	}
}
`

const tmplManifest = `# What the server needs to know beyond describe: limits, failure policy,
# mode, settings and self-test cases (run before the module may activate).
name: {{NAME}}
version: 0.1.0
# deadline: 200ms        # per-call deadline (default: the server's)
# memory_pages: 512      # 64 KiB pages per instance (default: the host cap)
failure_policy: fail_closed  # fail_open only where the server allows it
mode: enforce                # monitor: findings recorded, decision unaffected
settings:                    # handed to the plugin as ScanInput.Config
  forbidden: [telnet, rlogin]
tests:
  - name: telnet is forbidden
    language: bash
    content: telnet example.com 23
    expect: deny
    rules: [{{PREFIX}}_FORBIDDEN_COMMAND]
  - name: plain listing
    language: bash
    content: ls -la
    expect: allow
`

const tmplCases = `{"name": "telnet is forbidden", "content": "telnet example.com 23", "language": "bash", "decision": "deny", "rules": ["{{PREFIX}}_FORBIDDEN_COMMAND"]}
{"name": "hidden behind sh -c", "content": "sh -c 'telnet 10.0.0.1'", "language": "bash", "decision": "deny", "rules": ["{{PREFIX}}_FORBIDDEN_COMMAND"]}
{"name": "plain listing", "content": "ls -la", "language": "bash", "decision": "allow", "rules": []}
{"name": "python subprocess", "content": "import subprocess\nsubprocess.run(['telnet', 'example.com'])", "language": "python", "decision": "deny", "rules": ["{{PREFIX}}_FORBIDDEN_COMMAND"]}
`

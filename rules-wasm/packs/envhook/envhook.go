// Package envhook is the built-in rule pack for environment variables that
// change what an interpreter or tool runs: a request that sets BASH_ENV runs
// the file it names before any command, LD_PRELOAD loads a library into
// every process, PYTHONPATH puts a staged module in front of the standard
// library, GIT_SSH_COMMAND runs a program on every fetch. None of that code
// is in the scanned content, so setting such a name is denied
// (ENV_INTERPRETER_HOOK) unless the policy lists it in allowed_env_names.
// A static command line the content itself assigns to a command-valued
// name (sdk.IsCommandEnvName: `PAGER=cat git log`) is analyzed as the code
// it is and judged by it instead.
package envhook

import (
	"fmt"
	"strings"

	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/catalog"
	"github.com/toolwarden/toolwarden/sdk"
)

// Rule is the rule id of this pack.
const Rule = "ENV_INTERPRETER_HOOK"

// Info describes the pack for the host's describe call.
func Info() sdk.PluginInfo {
	return sdk.PluginInfo{Name: "toolwarden-envhook", Version: catalog.Version, Rules: catalog.Infos(Rule)}
}

// Scan judges the request's env names and the content's assignments.
func Scan(in *sdk.ScanInput) ([]sdk.Finding, error) {
	var env catalog.Env
	if err := env.Init(in); err != nil {
		return nil, fmt.Errorf("envhook pack: %w", err)
	}
	e := &env
	allowed := e.Policy.AllowedEnvNames
	for _, name := range in.Context.EnvKeys {
		if IsHook(name) && !listed(allowed, name) {
			e.Add(catalog.Finding{Rule: Rule, Key: "env:" + name, Evidence: "env " + name,
				Message:  fmt.Sprintf("The request sets %s, which makes %s run code that is not in the scanned content.", name, hookWhat(name)),
				Metadata: map[string]any{"variable": name, "source": "request_env"}})
		}
	}
	for _, a := range e.Facts.Assignments {
		if a.Op == "unset" || a.Op == "alias" || !IsHook(a.Name) || listed(allowed, a.Name) {
			continue
		}
		if sdk.IsCommandEnvName(a.Name) && !a.Dynamic && a.Value != "" && e.Lang == "bash" {
			// The command the program will run is in the content: the
			// analyzer analyzed it as nested code, judged by what it runs.
			continue
		}
		e.Add(catalog.Finding{Rule: Rule, Pos: a.Pos, Key: "set:" + a.Name, Evidence: a.Name + "=" + a.Value,
			Message:  fmt.Sprintf("The content sets %s, which makes %s run code that is not in the scanned content.", a.Name, hookWhat(a.Name)),
			Metadata: map[string]any{"variable": a.Name, "source": "content"}})
	}
	for i := range e.Facts.Commands {
		c := &e.Facts.Commands[i]
		if c.Name != "env" {
			continue
		}
		// env NAME=VALUE cmd: the wrapper's assignments reach the command.
		for _, arg := range c.Args {
			name, _, ok := strings.Cut(arg, "=")
			if !ok || strings.HasPrefix(arg, "-") || !IsHook(name) || listed(allowed, name) {
				continue
			}
			e.Add(catalog.Finding{Rule: Rule, Pos: c.Pos, Key: "set:" + name, Evidence: c.Evidence,
				Message:  fmt.Sprintf("The content sets %s through env, which makes %s run code that is not in the scanned content.", name, hookWhat(name)),
				Metadata: map[string]any{"variable": name, "source": "content"}})
		}
	}
	return e.Findings(), nil
}

func listed(allowed []string, name string) bool {
	for _, a := range allowed {
		if a == name {
			return true
		}
	}
	return false
}

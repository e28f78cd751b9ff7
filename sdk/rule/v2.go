package rule

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime/debug"

	"github.com/toolwarden/toolwarden/sdk"
	"github.com/toolwarden/toolwarden/sdk/layout"
)

// ConfigureInput is the JSON document of ABI v2's configure export: the
// effective policy and this plugin's settings, sent once per instance and
// again only when either changes.
type ConfigureInput struct {
	Policy *sdk.Policy    `json:"policy"`
	Config map[string]any `json:"config,omitempty"`
}

// The configured policy and settings every v2 scan judges under. Guarded
// by mu, like the decoders.
var (
	configured bool
	confPolicy *sdk.Policy
	confConfig map[string]any
)

// Configure installs the policy and settings of a configure call (ABI v2).
// It decodes with encoding/json: it runs once per policy version, not per
// scan. The values are the kit's own copies; scans see them as
// ScanInput.Policy and ScanInput.Config.
func Configure(doc []byte) error {
	var c ConfigureInput
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&c); err != nil {
		return fmt.Errorf("configure: decode: %w", err)
	}
	c.Config = plainNumbers(c.Config)
	mu.Lock()
	defer mu.Unlock()
	configured, confPolicy, confConfig = true, c.Policy, c.Config
	return nil
}

// plainNumbers turns the json.Numbers of a settings map into float64, as
// ABI v1's decoder gives them, so a pack reads settings alike in both ABIs.
func plainNumbers(m map[string]any) map[string]any {
	for k, v := range m {
		m[k] = plainValue(v)
	}
	return m
}

func plainValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := x.Float64()
		return f
	case map[string]any:
		return plainNumbers(x)
	case []any:
		for i := range x {
			x[i] = plainValue(x[i])
		}
	}
	return v
}

// The v2 codecs, reused from scan to scan: the decoder's arenas hold the
// previous scan's records, so a warm scan allocates no facts. Guarded by mu.
var (
	layoutDec layout.Decoder
	layoutEnc layout.Encoder
)

// HandleV2 is Handle for ABI v2: it reads the layout of an sdk.ScanInput
// in place, judges it under the configured policy and settings, and
// appends the layout of the sdk.ScanOutput to dst. Like Handle it never
// panics: every failure is ScanOutput.Error. Exported so the native build
// and tests run exactly what the scan_v2 export runs.
func HandleV2(dst, input []byte) []byte {
	mu.Lock()
	defer mu.Unlock()
	out := handleV2(input)
	b, err := layoutEnc.AppendScanOutput(dst, &out)
	if err != nil {
		out = sdk.ScanOutput{Error: fmt.Sprintf("encode scan output: %v", err)}
		b, _ = layoutEnc.AppendScanOutput(dst[:0], &out)
	}
	return b
}

func handleV2(input []byte) (out sdk.ScanOutput) {
	defer func() {
		if r := recover(); r != nil {
			layoutDec = layout.Decoder{}
			out = sdk.ScanOutput{Error: fmt.Sprintf("rule panicked: %v\n%s", r, debug.Stack())}
		}
	}()
	if !registered {
		return sdk.ScanOutput{Error: "scan: no rule pack registered (call rule.Register from init)"}
	}
	if !configured {
		// Fail closed: judging without the policy would apply none.
		return sdk.ScanOutput{Error: "scan: the host did not call configure first"}
	}
	in, err := layoutDec.DecodeScanInput(input)
	if err != nil {
		return sdk.ScanOutput{Error: fmt.Sprintf("scan: decode input: %v", err)}
	}
	in.Policy, in.Config = confPolicy, confConfig
	findings, err := scanFn(in)
	if err != nil {
		return sdk.ScanOutput{Error: fmt.Sprintf("scan: %v", err)}
	}
	return sdk.ScanOutput{Findings: findings}
}

// HandleV2Error appends the layout of an output that reports only msg.
func HandleV2Error(dst []byte, msg string) []byte {
	mu.Lock()
	defer mu.Unlock()
	b, _ := layoutEnc.AppendScanOutput(dst, &sdk.ScanOutput{Error: msg})
	return b
}

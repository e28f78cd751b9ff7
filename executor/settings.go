package executor

import (
	"fmt"
	"math"
	"time"

	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/file"
	"github.com/knadh/koanf/providers/rawbytes"
	"github.com/knadh/koanf/v2"

	"github.com/toolwarden/toolwarden/reduction"
)

// Configuration-file keys the executor reads, named as in the
// execution-governance design so one file serves both.
const (
	KeyToolTimeoutMinutes     = "agent.tool_timeout_minutes"
	KeyNoOutputTimeoutSeconds = "agent.shell_no_output_timeout_seconds"
	KeyReductionMaxLength     = "multi_agent.eino_middleware.reduction_max_length_for_trunc"
	noOutputDisabledNote      = "0 disables the no-output timeout"
)

// LoadConfigFile reads the run defaults of a YAML configuration file into a
// Config (Timeout, NoOutputTimeout, MaxResultBytes); absent keys stay zero
// and take the defaults in New. Other sections of the file (the server's,
// security.process_isolation for isolation.LoadConfigFile) are left alone,
// but a key the executor reads with the wrong type or an impossible value
// is an error naming the key: a typo must not silently fall back to a
// default.
func LoadConfigFile(path string) (Config, error) {
	k := koanf.New(".")
	if err := k.Load(file.Provider(path), yaml.Parser()); err != nil {
		return Config{}, fmt.Errorf("load executor config %s: %w", path, err)
	}
	cfg, err := configFromKoanf(k)
	if err != nil {
		return Config{}, fmt.Errorf("load executor config %s: %w", path, err)
	}
	return cfg, nil
}

// ParseConfig is LoadConfigFile for a YAML document in memory.
func ParseConfig(doc []byte) (Config, error) {
	k := koanf.New(".")
	if err := k.Load(rawbytes.Provider(doc), yaml.Parser()); err != nil {
		return Config{}, fmt.Errorf("parse executor config: %w", err)
	}
	cfg, err := configFromKoanf(k)
	if err != nil {
		return Config{}, fmt.Errorf("parse executor config: %w", err)
	}
	return cfg, nil
}

func configFromKoanf(k *koanf.Koanf) (Config, error) {
	var cfg Config
	if v, ok, err := number(k, KeyToolTimeoutMinutes); err != nil {
		return cfg, err
	} else if ok {
		if v <= 0 {
			return cfg, fmt.Errorf("%s: must be positive, got %v", KeyToolTimeoutMinutes, v)
		}
		cfg.Timeout = time.Duration(v * float64(time.Minute))
	}
	if v, ok, err := number(k, KeyNoOutputTimeoutSeconds); err != nil {
		return cfg, err
	} else if ok {
		switch {
		case v < 0:
			return cfg, fmt.Errorf("%s: must not be negative (%s), got %v", KeyNoOutputTimeoutSeconds, noOutputDisabledNote, v)
		case v == 0:
			cfg.NoOutputTimeout = -1
		default:
			cfg.NoOutputTimeout = time.Duration(v * float64(time.Second))
		}
	}
	if v, ok, err := number(k, KeyReductionMaxLength); err != nil {
		return cfg, err
	} else if ok {
		if v != math.Trunc(v) || v < reduction.MinMaxLength || v > math.MaxInt32 {
			return cfg, fmt.Errorf("%s: want an integer from %d to %d, got %v", KeyReductionMaxLength, reduction.MinMaxLength, math.MaxInt32, v)
		}
		cfg.MaxResultBytes = int(v)
	}
	return cfg, nil
}

// number reads key as a finite number.
func number(k *koanf.Koanf, key string) (float64, bool, error) {
	if !k.Exists(key) {
		return 0, false, nil
	}
	var f float64
	switch v := k.Get(key).(type) {
	case int:
		f = float64(v)
	case int64:
		f = float64(v)
	case uint64:
		f = float64(v)
	case float64:
		f = v
	default:
		return 0, false, fmt.Errorf("%s: want a number, got %T", key, v)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false, fmt.Errorf("%s: want a finite number, got %v", key, f)
	}
	return f, true, nil
}

package isolation

import (
	"context"
	"fmt"
	"os"
)

func modeName(mode string) string {
	if mode == "" {
		return ModeAuto
	}
	return mode
}

// normalizePortable validates the mode and fills the limit defaults, for
// the backends of hosts without cgroups.
func normalizePortable(cfg Config) (Config, error) {
	switch cfg.Mode {
	case "":
		cfg.Mode = ModeAuto
	case ModeAuto, ModeRequired, ModeProcessGroup:
	default:
		return cfg, fmt.Errorf("isolation: unknown mode %q (want auto, required or process_group)", cfg.Mode)
	}
	lim, err := effectiveLimits(cfg.Limits)
	if err != nil {
		return cfg, err
	}
	cfg.Limits = lim
	if cfg.WatchdogPath == "" {
		exe, err := os.Executable()
		if err != nil {
			return cfg, fmt.Errorf("isolation: find own binary for the shim and watchdog: %w", err)
		}
		cfg.WatchdogPath = exe
	}
	return cfg, nil
}

// checkPortable is Check for hosts without cgroups: open, probe one run,
// report the layers and every reason a layer is missing. probe is the
// run that must exit 0.
func checkPortable(ctx context.Context, cfg Config, probe Spec) (Report, error) {
	cfg, err := normalizePortable(cfg)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Checked: true, Mode: cfg.Mode, Limits: cfg.Limits, RequiredMet: cfg.Mode != ModeRequired}
	b, err := Open(ctx, cfg)
	if err != nil {
		rep.Reasons = append(rep.Reasons, err.Error())
		return rep, nil
	}
	defer b.Close()
	rep.Backend = b.Name()
	if r, ok := b.(Reasoner); ok {
		rep.Reasons = append(rep.Reasons, r.Reasons()...)
	}
	p, err := b.Start(ctx, probe)
	if err != nil {
		rep.Reasons = append(rep.Reasons, "probe: "+err.Error())
		return rep, nil
	}
	if _, err := p.Wait(); err != nil {
		rep.Reasons = append(rep.Reasons, "probe: "+err.Error())
	}
	rep.Layers = p.Layers()
	return rep, nil
}

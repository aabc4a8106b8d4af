package main

import (
	"errors"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/replay"
)

// hypothesisFlags are the flags that state a hypothesis, shared by
// falsification, stop-damage, replay and watch: which runs are compared and
// what a window is judged on.
type hypothesisFlags struct {
	control, treatment, until, metric string
	tolerance, max, min               string
	fs                                *pflag.FlagSet
}

// hypothesisHelp is the flags' part of each command's --help.
const hypothesisHelp = `A hypothesis compares a baseline with a treatment, window by window. By
default the baseline is the run with role control and the treatment the run
with role experiment; --control and --treatment name any two runs (RUN, or
EXPERIMENT/RUN for a run of another experiment in the database), and
--baseline-until splits one run in time (a duration from t = 0 such as 2m,
or the first event of a type such as action_start, or TYPE:SUBJECT): the
part before is the baseline, the rest the treatment, with windows counted
within each part.

--metric judges each window on ok_share (default), error_rate, p50, p90,
p95, p99, p99.9, max, mean (latency, ms; quantiles are the nearest rank,
the ceil(q n)-th smallest latency of the window's n) or throughput (req/s,
duration windows). The baseline is the mean of the baseline windows'
values. Thresholds: --margin for shares (baseline - margin for ok_share,
+ margin for error_rate); --tolerance 20% (baseline x 1.2; x 0.8 for
throughput) or 50ms (baseline + 50 ms); --max 250ms or --max 1% (an
absolute SLO where higher is worse), --min 99% or --min 100/s (where lower
is worse). Every comparison is exact: a window at the threshold holds.`

// add registers the flags; sweep makes the thresholds comma lists. live
// (rewind watch, whose log is the treatment) leaves out --treatment.
func (h *hypothesisFlags) add(fs *pflag.FlagSet, sweep, live bool) {
	h.fs = fs
	fs.StringVar(&h.control, "control", "", "the baseline run: RUN or EXPERIMENT/RUN (default: the run with role control)")
	if !live {
		fs.StringVar(&h.treatment, "treatment", "", "the treatment run: RUN or EXPERIMENT/RUN (default: the run with role experiment)")
	}
	fs.StringVar(&h.until, "baseline-until", "", "split one run: the baseline before DURATION (2m) or EVENT (action_start), the treatment after")
	fs.StringVar(&h.metric, "metric", "ok_share", "what a window is judged on: "+strings.Join(hypothesis.Metrics, ", "))
	many := ""
	if sweep {
		many = ", swept (comma-separated)"
	}
	fs.StringVar(&h.tolerance, "tolerance", "", "threshold relative to the baseline: 20% or 50ms"+many)
	fs.StringVar(&h.max, "max", "", "absolute threshold where higher is worse: 250ms, 1%"+many)
	fs.StringVar(&h.min, "min", "", "absolute threshold where lower is worse: 99%, 100/s"+many)
}

// read reads the hypothesis, then its thresholds (see bounds).
func (h *hypothesisFlags) read(margin string, sweep bool) (hypothesis.Hypothesis, []hypothesis.Bound, error) {
	hy, err := h.hypothesis()
	if err != nil {
		return hy, nil, err
	}
	bounds, err := h.bounds(margin, sweep)
	return hy, bounds, err
}

func (h *hypothesisFlags) hypothesis() (hypothesis.Hypothesis, error) {
	hy := hypothesis.Hypothesis{Control: h.control, Treatment: h.treatment, BaselineUntil: h.until, Metric: h.metric}
	if err := hypothesis.CheckMetric(h.metric); err != nil {
		return hy, usagef("--%v", err)
	}
	return hy, nil
}

// bounds reads --tolerance, --max or --min (at most one; a comma list when
// sweep), and --margin or --margins when margin names the flag that was
// given. None given: nil.
func (h *hypothesisFlags) bounds(margin string, sweep bool) ([]hypothesis.Bound, error) {
	var given []string
	for _, k := range []string{"tolerance", "max", "min", margin} {
		if k != "" && h.fs.Changed(k) && h.fs.Lookup(k).Value.String() != "" {
			given = append(given, k)
		}
	}
	switch {
	case len(given) == 0:
		return nil, nil
	case len(given) > 1:
		return nil, usagef("--%s and --%s: give one threshold form", given[0], given[1])
	}
	kind := given[0]
	text := h.fs.Lookup(kind).Value.String()
	parts := []string{text}
	if sweep {
		parts = strings.Split(text, ",")
	}
	boundKind := strings.TrimSuffix(kind, "s") // --margins gives margins
	var out []hypothesis.Bound
	for _, p := range parts {
		b, err := hypothesis.ParseBound(boundKind, strings.TrimSpace(p), h.metric)
		if err != nil {
			return nil, usageError{asGiven(err, boundKind, kind)}
		}
		out = append(out, b)
	}
	return out, nil
}

// noWait is what --max holds when given without a value: rewind replay's
// older spelling of --fast (the help shows it as --max[="no-wait"]).
const noWait = "no-wait"

// maxAsNoWait lets rewind replay keep --max with no value as "do not
// wait" while --max VALUE is the threshold: pflag reads an optional value
// only after "=", so a value after a space is left as the one argument.
// It reports whether --max meant "do not wait".
func (h *hypothesisFlags) maxAsNoWait() (bool, error) {
	if h.max != noWait {
		return false, nil
	}
	switch h.fs.NArg() {
	case 0:
		h.max = ""
		return true, nil
	case 1:
		h.max = h.fs.Arg(0)
		return false, nil
	}
	return false, usagef("--max takes one value (250ms, 1%%), got %d arguments", h.fs.NArg())
}

// stopFlags choose the stop criterion of replay and watch: the
// hypothesis's K consecutive falsified windows (default), or the first
// burn-rate alert (--stop-on burn-rate), with the flags of analyze
// burn-rate.
type stopFlags struct {
	on, slo, rules, good, step string
	partial                    bool
	fs                         *pflag.FlagSet
}

const stopHelp = `--stop-on burn-rate stops where the first multi-window burn-rate alert
fires instead (the rules of 'rewind analyze burn-rate': --slo, --rules,
--step, --partial); the windows are still shown, judged by the hypothesis
when a baseline is at hand.`

func (s *stopFlags) add(fs *pflag.FlagSet, good bool) {
	s.fs = fs
	fs.StringVar(&s.on, "stop-on", "windows", "the stop criterion: windows (K consecutive falsified windows) or burn-rate")
	fs.StringVar(&s.slo, "slo", "", "with --stop-on burn-rate: the SLO, `PERCENT` such as 99.9%")
	fs.StringVar(&s.rules, "rules", "", "with --stop-on burn-rate: `SHORT/LONG>FACTOR,...` (default: 5m/1h>14.4,30m/6h>6,6h/3d>1)")
	fs.StringVar(&s.step, "step", "", "with --stop-on burn-rate: evaluate every `DURATION` of test time (default: at every change)")
	fs.BoolVar(&s.partial, "partial", false, "with --stop-on burn-rate: evaluate windows that reach before the run's start")
	if good {
		fs.StringVar(&s.good, "good", "", "with --stop-on burn-rate: a SQL boolean that makes a request good (default: outcome = 'ok')")
	}
}

// burn reads the flags: nil for the window stop.
func (s *stopFlags) burn() (*replay.BurnConfig, error) {
	switch s.on {
	case "windows":
		for _, f := range []string{"slo", "rules", "step", "partial", "good"} {
			if s.fs.Lookup(f) != nil && s.fs.Changed(f) {
				return nil, usagef("--%s is for --stop-on burn-rate", f)
			}
		}
		return nil, nil
	case "burn-rate":
	default:
		return nil, usagef("--stop-on %q: want windows or burn-rate", s.on)
	}
	if s.slo == "" {
		return nil, usagef("--stop-on burn-rate needs --slo, e.g. --slo 99.9%%")
	}
	var c replay.BurnConfig
	var err error
	if c.SLO, c.Rules, err = burnRules(s.slo, s.rules); err != nil {
		return nil, err
	}
	if c.Step, err = optionalDuration("step", s.step); err != nil {
		return nil, err
	}
	c.Partial = s.partial
	return &c, nil
}

// burnRules reads --slo and --rules (none: nil, the default rules) as
// analyze burn-rate, the report and --stop-on burn-rate take them.
func burnRules(slo, rules string) (hypothesis.Decimal, []hypothesis.BurnRule, error) {
	s, err := hypothesis.ParseSLO(slo)
	if err != nil {
		return s, nil, usagef("--slo: %v", err)
	}
	if rules == "" {
		return s, nil, nil
	}
	r, err := hypothesis.ParseBurnRules(rules)
	if err != nil {
		return s, nil, usagef("--rules: %v", err)
	}
	return s, r, nil
}

// asGiven names parameter p in err by the flag that gave it (--margins
// gives margin), the others by the flags table.
func asGiven(err error, p, flag string) error {
	return errors.New(param.Say(err, func(q string) string {
		if q == p {
			return "--" + flag
		}
		return flagName(q)
	}))
}

package main

import (
	"errors"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rewind-dev/rewind/analyze"
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
// (rewind watch, whose log is the treatment) leaves out --treatment and
// --baseline-until.
func (h *hypothesisFlags) add(fs *pflag.FlagSet, sweep, live bool) {
	h.fs = fs
	fs.StringVar(&h.control, "control", "", "the baseline run: RUN or EXPERIMENT/RUN (default: the run with role control)")
	if !live {
		fs.StringVar(&h.treatment, "treatment", "", "the treatment run: RUN or EXPERIMENT/RUN (default: the run with role experiment)")
		fs.StringVar(&h.until, "baseline-until", "", "split one run: the baseline before DURATION (2m) or EVENT (action_start), the treatment after")
	}
	fs.StringVar(&h.metric, "metric", "ok_share", "what a window is judged on: "+strings.Join(analyze.Metrics, ", "))
	many := ""
	if sweep {
		many = ", swept (comma-separated)"
	}
	fs.StringVar(&h.tolerance, "tolerance", "", "threshold relative to the baseline: 20% or 50ms"+many)
	fs.StringVar(&h.max, "max", "", "absolute threshold where higher is worse: 250ms, 1%"+many)
	fs.StringVar(&h.min, "min", "", "absolute threshold where lower is worse: 99%, 100/s"+many)
}

func (h *hypothesisFlags) hypothesis() (analyze.Hypothesis, error) {
	hy := analyze.Hypothesis{Control: h.control, Treatment: h.treatment, BaselineUntil: h.until, Metric: h.metric}
	if err := analyze.CheckMetric(h.metric); err != nil {
		return hy, usagef("--%v", err)
	}
	return hy, nil
}

// bounds reads --tolerance, --max or --min (at most one; a comma list when
// sweep), and --margin or --margins when margin names the flag that was
// given. None given: nil.
func (h *hypothesisFlags) bounds(margin string, sweep bool) ([]analyze.Bound, error) {
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
	var out []analyze.Bound
	for _, p := range parts {
		b, err := analyze.ParseBound(boundKind, strings.TrimSpace(p), h.metric)
		if err != nil {
			// Name the flag as given (--margins, not --margin).
			return nil, usageError{errors.New(strings.Replace(err.Error(), "--"+boundKind+" ", "--"+kind+" ", 1))}
		}
		out = append(out, b)
	}
	return out, nil
}

// noWait is what --max holds when given without a value: rewind replay's
// older spelling of --fast.
const noWait = "\x00no-wait"

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

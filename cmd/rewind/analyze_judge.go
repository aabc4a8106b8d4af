package main

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/store"
)

const judgeUsage = `Usage: rewind analyze judge [flags]

Kayenta's canary judge (NetflixACAJudge), exactly: per metric, the values of
each step (default 60s, Kayenta's step; or --step-requests N) of every run
with role control against every run with role experiment, NaNs removed (or
replaced by 0), optionally outliers removed (IQR, factor 3), then a
Mann-Whitney test (confidence 0.98): High when the interval lies above
0.25·|estimate| and the effect size (mean ratio, or CLES) reaches the
allowed increase, Low likewise below; Pass otherwise; Nodata without data.
Groups score their share of Pass; the summary is the weighted sum (weights
as given, groups without one share what is left of 100), rounded to 2
decimals, 0 when a critical metric fails or half the metrics are Nodata;
Pass at --pass, Marginal at --marginal, else Fail. With --interval, a
judgement every interval after --warmup, over all steps since the warm-up
(or the last --lookback): the note says at which interval the canary would
have failed. docs/judge.md has every rule and where it comes from.

Metrics: mean, p50, p90, p95, p99, p99.9, max (latency, ms), error_rate,
ok_share (share), throughput (req/s). Lists take METRIC=VALUE entries; a
bare VALUE applies to every metric.

Columns: interval, metric, groups, classification (High, Low, Pass, Nodata,
NodataFailMetric, Error), critical, decided_by (the gate that decided),
control_n, experiment_n (steps judged), lower, upper (the interval of the
shift experiment - control), estimate, bound (tolerance·|estimate|),
effect_size, mean_ratio, reason (Kayenta's). Then, per interval: from_ms,
until_ms, score, classification, group_scores, reason. With --by, both per
group, each group judged as a log of its own (docs/by.md).

Examples:
  rewind analyze judge --step 1s
  rewind analyze judge --step 1s --direction increase --critical error_rate --weights latency=60,errors=40
  rewind analyze judge --step 1s --interval 5s --warmup 5s --scores
  rewind analyze judge --step-requests 20 --metrics p95,error_rate --effect-size cles
  rewind analyze judge --step 30s --by name --scores`

func init() {
	registerAnalysis(analysisCommand{name: "judge", summary: "Kayenta's canary judge: Mann-Whitney per metric, group scores, the weighted summary", run: runJudge})
}

// judgeFlags are the flags' text, read into JudgeOptions by options.
type judgeFlags struct {
	metrics, direction, groups, critical, mustHaveData, muted, weights string
	nan, outliers, effect, step, interval, warmup, lookback            string
	outlierFactor, allowedInc, allowedDec, criticalInc, criticalDec    float64
	stepN                                                              int64
	scores                                                             bool
}

func runJudge(ctx context.Context, e *env, args []string) error {
	var f judgeFlags
	var o analyze.JudgeOptions
	a, fs := newAnalysis(e, "judge", judgeUsage, &o.Experiment)
	fs.StringVar(&f.step, "step", "60s", "step `DURATION`: one value per step and side")
	fs.Int64Var(&f.stepN, "step-requests", 0, "steps of `N` requests instead (in request order)")
	fs.StringVar(&f.metrics, "metrics", "mean,p50,p95,p99,error_rate", "the metrics judged")
	fs.StringVar(&f.direction, "direction", "either", "the change that fails: increase, decrease or either (METRIC=DIR,...)")
	fs.StringVar(&f.groups, "group", "", "METRIC=GROUP,... (default: latency, errors, throughput)")
	fs.StringVar(&f.critical, "critical", "", "critical metrics `METRIC,...`: a High or Low fails the canary")
	fs.StringVar(&f.mustHaveData, "must-have-data", "", "metrics `METRIC,...` whose missing data counts as a failure (NodataFailMetric)")
	fs.StringVar(&f.muted, "muted", "", "metrics `METRIC,...` classified but left out of the score")
	fs.StringVar(&f.weights, "weights", "", "group weights in percent `GROUP=W,...` (not normalised, as Kayenta)")
	fs.Float64Var(&o.Pass, "pass", 95, "summary score at or above which the canary passes")
	fs.Float64Var(&o.Marginal, "marginal", 75, "summary score at or above which it is Marginal (else Fail)")
	fs.Float64Var(&o.Confidence, "confidence", 0.98, "the Mann-Whitney confidence interval's level (Kayenta's default 0.98)")
	fs.StringVar(&f.nan, "nan", "remove", "NaN strategy: remove or replace (by 0)")
	fs.StringVar(&f.outliers, "outliers", "keep", "outlier strategy: keep or remove (IQR detector, reduced sensitivity)")
	fs.Float64Var(&f.outlierFactor, "outlier-factor", 3, "the IQR detector's factor")
	fs.StringVar(&f.effect, "effect-size", "meanRatio", "effect-size measure: meanRatio or cles")
	fs.Float64Var(&f.allowedInc, "allowed-increase", -1, "effect size at or above which an increase fails (default 1, CLES 0.5)")
	fs.Float64Var(&f.allowedDec, "allowed-decrease", -1, "effect size at or below which a decrease fails (default 1, CLES 0.5)")
	fs.Float64Var(&f.criticalInc, "critical-increase", -1, "effect size from which a critical metric's High is critical (default 1, CLES 0.5)")
	fs.Float64Var(&f.criticalDec, "critical-decrease", -1, "effect size to which a critical metric's Low is critical (default 1, CLES 0.5)")
	fs.StringVar(&f.interval, "interval", "", "judge every `DURATION` after the warm-up (default: once, over every step)")
	fs.StringVar(&f.warmup, "warmup", "", "leave out the steps of the first `DURATION`")
	fs.StringVar(&f.lookback, "lookback", "", "judge each interval over the last `DURATION` only (default: every step since the warm-up)")
	fs.BoolVar(&f.scores, "scores", false, "print only the intervals' scores")
	addBy(fs, &o.By)
	if err := a.parse(args); err != nil {
		return err
	}
	if err := f.options(&o); err != nil {
		return err
	}
	// pick prints the metrics' rows then the scores, or the scores only
	pick := func(m, s *analyze.Result, err error) (*analyze.Result, *analyze.Result, error) {
		if err != nil || f.scores {
			return s, nil, err
		}
		return m, s, nil
	}
	a.eng.remote = func(r *analyze.Remote) (*analyze.Result, *analyze.Result, error) {
		return pick(analyze.JudgeOn(r, o))
	}
	return a.runTwo(ctx, func(q store.Querier) (*analyze.Result, *analyze.Result, error) {
		return pick(analyze.Judge(q, o))
	})
}

func (f judgeFlags) options(o *analyze.JudgeOptions) error {
	var err error
	if f.stepN < 0 {
		return usagef("--step-requests %d: want a positive number of requests", f.stepN)
	}
	o.StepN = f.stepN
	if o.Step, err = positiveDuration("step", f.step); err != nil {
		return err
	}
	if o.Interval, err = optionalDuration("interval", f.interval); err != nil {
		return err
	}
	if o.Warmup, err = optionalDuration("warmup", f.warmup); err != nil {
		return err
	}
	if o.Lookback, err = optionalDuration("lookback", f.lookback); err != nil {
		return err
	}
	if o.Metrics, err = f.metricJudges(); err != nil {
		return err
	}
	o.Weights, err = weightList(f.weights)
	return err
}

// metricJudges builds each metric's configuration from the flags.
func (f judgeFlags) metricJudges() ([]analyze.MetricJudge, error) {
	names := splitList(f.metrics)
	if len(names) == 0 {
		return nil, usagef("--metrics: name at least one metric")
	}
	dirs, err := perMetric("direction", f.direction, names)
	if err != nil {
		return nil, err
	}
	groups, err := perMetric("group", f.groups, names)
	if err != nil {
		return nil, err
	}
	sets := map[string][]string{}
	for flag, s := range map[string]string{"critical": f.critical, "must-have-data": f.mustHaveData, "muted": f.muted} {
		for _, n := range splitList(s) {
			if !slices.Contains(names, n) {
				return nil, usagef("--%s: %q is not among --metrics %s", flag, n, f.metrics)
			}
		}
		sets[flag] = splitList(s)
	}
	if f.nan != "remove" && f.nan != "replace" {
		return nil, usagef("--nan %q: want remove or replace", f.nan)
	}
	if f.outliers != "keep" && f.outliers != "remove" {
		return nil, usagef("--outliers %q: want keep or remove", f.outliers)
	}
	if f.effect != "meanRatio" && f.effect != "cles" {
		return nil, usagef("--effect-size %q: want meanRatio or cles", f.effect)
	}
	if !(f.outlierFactor > 0) {
		return nil, usagef("--outlier-factor %v: want a factor above 0", f.outlierFactor)
	}
	var out []analyze.MetricJudge
	for _, n := range names {
		m := analyze.DefaultMetricJudge(n, analyze.JudgeGroup(n))
		if g := groups[n]; g != "" {
			m.Groups = []string{g}
		}
		switch d := analyze.Direction(dirs[n]); d {
		case "", analyze.Either, analyze.Increase, analyze.Decrease:
			if d != "" {
				m.Direction = d
			}
		default:
			return nil, usagef("--direction %q: want increase, decrease or either", dirs[n])
		}
		m.Critical = slices.Contains(sets["critical"], n)
		m.MustHaveData = slices.Contains(sets["must-have-data"], n)
		m.Muted = slices.Contains(sets["muted"], n)
		m.ReplaceNaN, m.RemoveOutlier, m.OutlierFactor, m.CLES = f.nan == "replace", f.outliers == "remove", f.outlierFactor, f.effect == "cles"
		m.AllowedIncrease, m.AllowedDecrease = unset(f.allowedInc), unset(f.allowedDec)
		m.CriticalIncrease, m.CriticalDecrease = unset(f.criticalInc), unset(f.criticalDec)
		out = append(out, m)
	}
	return out, nil
}

// unset maps a flag's -1 (not given) to NaN: the measure's default.
func unset(v float64) float64 {
	if v < 0 {
		return math.NaN()
	}
	return v
}

// perMetric reads VALUE (every metric) or METRIC=VALUE,... entries.
func perMetric(flag, s string, names []string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range splitList(s) {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			for _, n := range names {
				out[n] = p
			}
			continue
		}
		if !slices.Contains(names, k) {
			return nil, usagef("--%s %q: %q is not among the metrics %s", flag, s, k, strings.Join(names, ","))
		}
		out[k] = v
	}
	return out, nil
}

func weightList(s string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, p := range splitList(s) {
		k, v, ok := strings.Cut(p, "=")
		w, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil || w < 0 {
			return nil, usagef("--weights %q: want GROUP=PERCENT,... such as latency=60,errors=40", s)
		}
		out[k] = w
	}
	return out, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

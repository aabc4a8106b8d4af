package report

import (
	"database/sql"
	"math"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/store"
)

// The report on an engine (docs/scale.md): BuildOn builds the same
// document as Build, its sections calling the analyses' …On functions, and
// its own reads of requests made reduce steps that bring back rows per
// run, side or bucket (analyze.Remote's Report… steps), which the
// report's SQL finishes in the in-memory database. A section with no
// reduce steps yet refuses the whole report, naming itself, whenever the
// log would show it: a report is never printed with a section missing or
// computed some other way.

// BuildOn is Build with the per-request work on r's engine.
func BuildOn(r *analyze.Remote, o Options) (Document, error) {
	o.remote = r
	return Build(r.Querier(), o)
}

// onEngine runs the steps every section on an engine reads: the runs'
// counts and the events'.
func (o Options) onEngine(e store.Experiment) error {
	if o.remote == nil {
		return nil
	}
	if err := o.remote.NoRequests("report"); err != nil {
		return err
	}
	if err := o.remote.ReportRuns(e.Name); err != nil {
		return err
	}
	return o.remote.ReportEvents(e.Name)
}

// notOnEngine refuses the report on the engine for a section (or a part of
// one) that has no reduce steps.
func (o Options) notOnEngine(section, missing string) error {
	return o.remote.NotOnEngine("report's "+section, missing)
}

// runTotal sums a column of _report_runs over the rows where (a filter
// over its columns, "true" for every run).
func runTotal(q store.Querier, col, where string, args ...any) (int64, error) {
	var n int64
	err := q.QueryRow(`SELECT coalesce(sum(`+col+`), 0)::BIGINT FROM _report_runs WHERE `+where, args...).Scan(&n)
	return n, err
}

// hasTags is hypothesis.HasTags of the experiment role: on an engine, from
// the runs' step.
func (o Options) hasTags(q store.Querier, e store.Experiment) (bool, error) {
	if o.remote == nil {
		return hypothesis.HasTags(q, hypothesis.Side{Experiment: e.Name, Role: "experiment"})
	}
	var b bool
	err := q.QueryRow(`SELECT coalesce(bool_or(tagged), false) FROM _report_runs WHERE role = 'experiment'`).Scan(&b)
	return b, err
}

// timedRows counts the experiment's rows with t_ms.
func (o Options) timedRows(q store.Querier, e store.Experiment) (int64, error) {
	if o.remote == nil {
		var n int64
		err := q.QueryRow(`SELECT count(*) FROM requests WHERE experiment = ? AND t_ms IS NOT NULL`, e.Name).Scan(&n)
		return n, err
	}
	return runTotal(q, "timed", "true")
}

// The analyses the sections call, on the engine when the report is.

func (o Options) blastRadius(q store.Querier, bo analyze.BlastRadiusOptions) (*analyze.Result, error) {
	if o.remote != nil {
		return analyze.BlastRadiusOn(o.remote, bo)
	}
	return analyze.BlastRadius(q, bo)
}

func (o Options) falsification(q store.Querier, fo analyze.FalsificationOptions) (*analyze.Result, error) {
	if o.remote != nil {
		return analyze.FalsificationOn(o.remote, fo)
	}
	return analyze.Falsification(q, fo)
}

func (o Options) stopDamage(q store.Querier, so analyze.StopDamageOptions) (*analyze.Result, error) {
	if o.remote != nil {
		return analyze.StopDamageOn(o.remote, so)
	}
	return analyze.StopDamage(q, so)
}

func (o Options) thresholds(q store.Querier, to analyze.ThresholdsOptions) (*analyze.Result, error) {
	if o.remote != nil {
		return analyze.ThresholdsOn(o.remote, to)
	}
	return analyze.Thresholds(q, to)
}

func (o Options) burnRate(q store.Querier, bo analyze.BurnRateOptions) (*analyze.Result, error) {
	if o.remote != nil {
		return analyze.BurnRateOn(o.remote, bo)
	}
	return analyze.BurnRate(q, bo)
}

func (o Options) peaks(q store.Querier, po analyze.PeaksOptions) (*analyze.Result, error) {
	if o.remote != nil {
		return analyze.PeaksOn(o.remote, po)
	}
	return analyze.Peaks(q, po)
}

func (o Options) amplification(q store.Querier, ao analyze.AmplificationOptions) (*analyze.Result, error) {
	if o.remote != nil {
		return analyze.AmplificationOn(o.remote, ao)
	}
	return analyze.Amplification(q, ao)
}

func (o Options) retries(q store.Querier, ro analyze.RetriesOptions) (*analyze.Result, error) {
	if o.remote != nil {
		return analyze.RetriesOn(o.remote, ro)
	}
	return analyze.Retries(q, ro)
}

// resolveSides is hypothesis.ResolveSides, over the runs the engine counts
// on an engine.
func (o Options) resolveSides(q store.Querier, e store.Experiment) (hypothesis.Sides, error) {
	if o.remote != nil {
		return o.remote.ResolveSides(e, o.Hypothesis, true)
	}
	return hypothesis.ResolveSides(q, e, o.Hypothesis, true)
}

// remoteSideStats is readSideStats from the sides' step and, for sides
// with latencies, the latency groups' step (_report_side_latency: the
// quantiles picked exactly, the largest, the mean from the sum, within
// 1e-12 of the local floating-point sum).
func (o Options) remoteSideStats(q store.Querier, ctl, exp hypothesis.Side) (sideStats, sideStats, error) {
	if err := o.remote.ReportSides(ctl, exp); err != nil {
		return sideStats{}, sideStats{}, err
	}
	var lat int64
	if err := q.QueryRow(`SELECT coalesce(sum(latencies), 0)::BIGINT FROM _report_sides`).Scan(&lat); err != nil {
		return sideStats{}, sideStats{}, err
	}
	latency := `(SELECT NULL::VARCHAR AS grp, NULL::DOUBLE AS p0, NULL::DOUBLE AS p1, NULL::DOUBLE AS p2, NULL::DOUBLE AS max_ms, NULL::DOUBLE AS mean_ms)`
	if lat > 0 {
		if err := o.remote.ReportLatency("_report_side_latency", analyze.SideLatencyRows(ctl, exp), []float64{0.5, 0.95, 0.99}); err != nil {
			return sideStats{}, sideStats{}, err
		}
		latency = `(SELECT grp, p0, p1, p2, max_ms, sum_ms::DOUBLE / n AS mean_ms FROM _report_side_latency)`
	}
	read := func(side string) (sideStats, error) {
		var v [9]sql.NullFloat64
		err := q.QueryRow(`SELECT requests::DOUBLE, (ok / nullif(outcome_requests, 0))::DOUBLE,
			(not_ok / nullif(outcome_requests, 0))::DOUBLE, l.p0, l.p1, l.p2, l.max_ms, l.mean_ms,
			(requests / nullif((max_t_ms - min_t_ms) / 1000, 0))::DOUBLE
			FROM _report_sides s LEFT JOIN `+latency+` l ON l.grp = s.side WHERE side = ?`, side).Scan(&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8])
		f := func(i int) float64 {
			if v[i].Valid {
				return v[i].Float64
			}
			return math.NaN()
		}
		return sideStats{f(0), f(1), f(2), f(3), f(4), f(5), f(6), f(7), f(8)}, err
	}
	c, err := read("control")
	if err != nil {
		return c, c, err
	}
	x, err := read("experiment")
	return c, x, err
}

// remoteSideRuns is sideRuns from the runs' step: the runs of a role, or
// the one run a side names (a part of a split run has rows: the sides were
// resolved).
func remoteSideRuns(q store.Querier, s hypothesis.Side) ([]string, error) {
	if s.Run != "" {
		return store.QueryStrings(q, `SELECT run FROM _report_runs WHERE run = ? GROUP BY run ORDER BY min(min_seq), run`, s.Run)
	}
	return store.QueryStrings(q, `SELECT run FROM _report_runs WHERE role = ? GROUP BY run ORDER BY min(min_seq), run`, s.Role)
}

// remoteStartFault is startFault's times from the position step.
func (o Options) remoteStartFault(q store.Querier, side hypothesis.Side, pos int64, label string) (fault, error) {
	f := fault{Label: label, FromMs: math.NaN(), ToMs: math.NaN(), FromPos: pos}
	if err := o.remote.ReportFromPos(side, pos); err != nil {
		return f, err
	}
	var from, to sql.NullFloat64
	if err := q.QueryRow(`SELECT from_t_ms, to_t_ms FROM _report_from_pos`).Scan(&from, &to); err != nil {
		return f, err
	}
	if from.Valid && to.Valid {
		f.FromMs, f.ToMs = from.Float64, to.Float64
	}
	return f, nil
}

// remoteWindowStart is windowStart from the experiment role's windows,
// computed on the engine (the verdict's falsification judged them there
// and brought back only its counts).
func (o Options) remoteWindowStart(e store.Experiment, window int64) (sql.NullFloat64, error) {
	return analyze.WindowStartOn(o.remote, e.Name, o.Window, window)
}

package analyze

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// ThresholdsOptions steer Thresholds.
type ThresholdsOptions struct {
	Experiment string
	// Thresholds to evaluate; none means those the k6 log recorded with
	// its metrics (the script's options.thresholds).
	Thresholds []Threshold
	// Every is the time between evaluations: k6 evaluates every 2 s
	// (internal/metrics/engine.thresholdsRate), the default.
	Every time.Duration
	// Window, when set, evaluates each threshold over tumbling windows of
	// this length instead of cumulatively; Sliding ends a window at every
	// evaluation (every Every) instead.
	Window  time.Duration
	Sliding bool
	// Duration is the test's length (its end and the time counter rates
	// divide by); default: from the run's first request to its last sample.
	Duration time.Duration
}

// DefaultEvery is k6's threshold evaluation interval.
const DefaultEvery = 2 * time.Second

// specs checks o's evaluation ticks against experiment exp (unless few:
// fewTicks knows them to be few) and reads the thresholds (o's, or those
// the log recorded) with their metrics' kinds into the specs the library's
// macros take: the part Thresholds and ThresholdsOn share.
func (o ThresholdsOptions) specs(db store.Querier, exp string, few bool) ([]Threshold, string, error) {
	if !few {
		if err := o.checkTicks(db, exp); err != nil {
			return nil, "", err
		}
	}
	ts := o.Thresholds
	if len(ts) == 0 {
		var err error
		if ts, err = recordedThresholds(db, exp); err != nil {
			return nil, "", err
		}
	}
	kinds, err := metricKinds(db, exp)
	if err != nil {
		return nil, "", err
	}
	specs, err := thresholdSpecs(ts, kinds)
	return ts, specs, err
}

// Thresholds replays k6 thresholds over a recorded log: per run and
// threshold, the verdict k6 prints, when it first failed and when an
// abortOnFail threshold aborts the run; with Window, when a window first
// breaks each threshold. Both count the requests that failed until then.
func Thresholds(db store.Querier, o ThresholdsOptions) (*Result, error) {
	e, err := store.FindExperiment(db, o.Experiment)
	if err != nil {
		return nil, store.WithSuitable(db, err, "t_ms IS NOT NULL")
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	if err := checkExpansion(db, e.Name, "thresholds"); err != nil {
		return nil, err
	}
	few, err := o.fewTicks(db)
	if err != nil {
		return nil, err
	}
	ts, specs, err := o.specs(db, e.Name, few)
	if err != nil {
		return nil, err
	}
	if err := requireThresholdLatency(db, e.Name, ts); err != nil {
		return nil, err
	}
	notes, err := timeNotes(db, e.Name, o)
	if err != nil {
		return nil, err
	}
	return o.finish(db, e.Name, specs, notes)
}

// finish runs the thresholds' query over specs for experiment exp, the
// notes first and the aborts' after them: the end Thresholds and
// ThresholdsOn share.
func (o ThresholdsOptions) finish(db store.Querier, exp, specs string, notes []*param.Error) (*Result, error) {
	units := map[string]string{"value": Measured} // its unit is the metric's: ms, a share or a count
	for c, u := range store.Units(o.macro()) {
		if c != "value" {
			units[c] = u
		}
	}
	res, err := Query(db, o.name(), units, o.sql(specs), exp)
	if err != nil {
		return nil, err
	}
	res.Notes = append(notes, abortNotes(res)...)
	return res, nil
}

func (o ThresholdsOptions) check() error {
	if o.Every < 0 || o.Window < 0 || o.Duration < 0 {
		return fmt.Errorf("every, window and duration must be positive")
	}
	if o.Sliding && o.Window == 0 {
		return param.Errorf("window", "sliding windows need a window length ({window} 30s)")
	}
	if o.Window > 0 {
		for _, t := range o.Thresholds {
			if t.AbortOnFail {
				return fmt.Errorf("threshold %s: abortOnFail applies to k6's cumulative evaluation, not to windows", t)
			}
		}
	}
	return nil
}

func (o ThresholdsOptions) name() string {
	if o.Window > 0 {
		return "threshold-windows"
	}
	return "thresholds"
}

// macro is the library macro o.sql calls.
func (o ThresholdsOptions) macro() string {
	if o.Window > 0 {
		return "threshold_windows"
	}
	return "thresholds"
}

func (o ThresholdsOptions) sql(specs string) string {
	every := o.Every
	if every == 0 {
		every = DefaultEvery
	}
	duration := sqllit.MsOrNull(o.Duration)
	if o.Window > 0 {
		return fmt.Sprintf(`SELECT * FROM threshold_windows(?, %s, %s, sliding := %t, every_ms := %s, duration_ms := %s)`,
			specs, sqllit.Ms(o.Window), o.Sliding, sqllit.Ms(every), duration)
	}
	return fmt.Sprintf(`SELECT * FROM thresholds(?, %s, every_ms := %s, duration_ms := %s)`,
		specs, sqllit.Ms(every), duration)
}

// recordedWhere picks the k6_metric events that carry thresholds.
const recordedWhere = `experiment = ? AND type = 'k6_metric' AND json_array_length(attrs -> 'thresholds') > 0`

// RecordsThresholds reports whether the experiment's k6 log recorded
// thresholds: those Thresholds evaluates when given none.
func RecordsThresholds(db store.Querier, exp string) (bool, error) {
	var n int64
	err := db.QueryRow(`SELECT count(*) FROM events WHERE `+recordedWhere, exp).Scan(&n)
	return n > 0, err
}

// recordedThresholds reads the thresholds k6 wrote with each metric's
// definition (its Metric records, kept as k6_metric events).
func recordedThresholds(db store.Querier, exp string) ([]Threshold, error) {
	rows, err := db.Query(`SELECT subject, (attrs -> 'thresholds')::VARCHAR FROM events
		WHERE `+recordedWhere+` ORDER BY seq`, exp)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Threshold
	for rows.Next() {
		var metric, raw string
		if err := rows.Scan(&metric, &raw); err != nil {
			return nil, err
		}
		var list []json.RawMessage
		if err := json.Unmarshal([]byte(raw), &list); err != nil {
			return nil, fmt.Errorf("metric %s: recorded thresholds: %w", metric, err)
		}
		for _, item := range list {
			expr := string(item)
			var text string
			if json.Unmarshal(item, &text) == nil {
				expr = text
			}
			t, err := ParseThreshold(metric + ": " + expr)
			if err != nil {
				return nil, fmt.Errorf("recorded with the k6 log: %w", err)
			}
			out = append(out, t)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, param.Errorf("threshold", "experiment %q records no k6 thresholds: give one, e.g. {threshold} 'http_req_duration: p(95)<200'", exp)
	}
	return out, nil
}

// requestMetrics come from the request rows of any log.
var requestMetrics = []string{"http_req_duration", "http_req_failed", "http_reqs"}

// metricKinds maps the metrics the experiment has to their k6 types: the
// request metrics, and k6's own metrics (defined or sampled in its log).
func metricKinds(db store.Querier, exp string) (map[string]string, error) {
	kinds := map[string]string{}
	for _, m := range requestMetrics {
		kinds[m] = k6Builtin[m]
	}
	rows, err := db.Query(`SELECT subject, max(state) FILTER (WHERE type = 'k6_metric') FROM events
		WHERE experiment = ? AND type IN ('k6_metric', 'k6_point') AND subject IS NOT NULL GROUP BY subject`, exp)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var kind sql.NullString
		if err := rows.Scan(&name, &kind); err != nil {
			return nil, err
		}
		kinds[name] = kind.String
		if b, ok := k6Builtin[name]; ok && kind.String == "" {
			kinds[name] = b
		}
	}
	return kinds, rows.Err()
}

// thresholdSpecs checks each threshold against its metric's type and writes
// the specs argument of the thresholds macros.
func thresholdSpecs(ts []Threshold, kinds map[string]string) (string, error) {
	parts := make([]string, len(ts))
	for i, t := range ts {
		kind, ok := kinds[t.Base]
		if !ok {
			return "", fmt.Errorf("threshold %s: no metric %q in this experiment (have: %s)", t, t.Base, strings.Join(sortedKeys(kinds), ", "))
		}
		if kind == "" {
			return "", fmt.Errorf("threshold %s: the log does not say what type of metric %s is", t, t.Base)
		}
		if !t.fits(kind) {
			return "", fmt.Errorf("threshold %s: %s does not apply to %s, a %s (want %s)",
				t, t.aggText(), t.Base, kind, strings.Join(k6Aggregations[kind], " or "))
		}
		q := "NULL::DOUBLE"
		if t.Agg == "p" || t.Agg == "med" {
			q = doubleLit(t.P / 100) // as k6: TrendSink.P(AggregationValue / 100)
		}
		parts[i] = fmt.Sprintf("{id: %d, name: %s, metric: %s, tags: %s, kind: '%s', agg: '%s', q: %s, op: '%s', vd: %s, vx: '%s'::DECIMAL(38,9), abort: %t, delay_ns: %s, source: %s}",
			i+1, sqllit.String(t.Metric), sqllit.String(t.Base), tagsLit(t.Tags), kind, t.Agg, q, t.Op,
			doubleLit(t.Value), exactDecimal(t.Value), t.AbortOnFail, delayLit(t), sqllit.String(t.Source))
	}
	return "[" + strings.Join(parts, ", ") + "]", nil
}

func (t Threshold) aggText() string {
	if t.Agg == "p" {
		return "p(" + strconv.FormatFloat(t.P, 'g', -1, 64) + ")"
	}
	return t.Agg
}

func delayLit(t Threshold) string {
	if !t.HasDelay {
		return "NULL::BIGINT"
	}
	return strconv.FormatInt(int64(t.Delay), 10) + "::BIGINT"
}

// doubleLit writes f so that DuckDB reads back the same double.
func doubleLit(f float64) string { return "'" + exactDecimal(f) + "'::DOUBLE" }

func tagsLit(tags []Tag) string {
	parts := make([]string, len(tags))
	for i, g := range tags {
		parts[i] = fmt.Sprintf("{k: %s, v: %s}", sqllit.String(g.K), sqllit.String(g.V))
	}
	return "[" + strings.Join(parts, ", ") + "]::STRUCT(k VARCHAR, v VARCHAR)[]"
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// timeNotes says what the evaluation leaves out or cannot do: rows without
// t_ms, and windows longer than a run.
// The rows without t_ms are counted with the condition in the scan, where
// DuckDB skips every segment whose statistics hold no NULL, and a timed
// row is looked for until the first (a count of every row's t_ms was a
// pass over the experiment, issue 41).
func timeNotes(db store.Querier, exp string, o ThresholdsOptions) ([]*param.Error, error) {
	var untimed int64
	var timed bool
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM requests WHERE t_ms IS NULL AND experiment = ?),
			EXISTS (SELECT 1 FROM requests WHERE t_ms IS NOT NULL AND experiment = ?)`, exp, exp).Scan(&untimed, &timed); err != nil {
		return nil, err
	}
	var n int64
	if timed {
		n = 1 // timeNotesOf tells only whether there is one
	}
	return timeNotesOf(db, exp, o, untimed, n)
}

// timeNotesOf is timeNotes with the experiment's request rows without and
// with t_ms counted.
func timeNotesOf(db store.Querier, exp string, o ThresholdsOptions, untimed, timed int64) ([]*param.Error, error) {
	if timed == 0 {
		return nil, fmt.Errorf("experiment %q has no t_ms: thresholds are evaluated over test time and need send times", exp)
	}
	var notes []*param.Error
	if untimed > 0 {
		notes = append(notes, param.Textf("%d request rows without t_ms are left out", untimed))
	}
	if o.Window == 0 {
		return notes, nil
	}
	duration := sqllit.MsOrNull(o.Duration)
	rows, err := db.Query(`SELECT run, greatest(dur_ns, last_ns) FROM _th_runs(?, `+duration+`) WHERE greatest(dur_ns, last_ns) < ? ORDER BY run`, exp, int64(o.Window))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var run string
		var ns int64
		if err := rows.Scan(&run, &ns); err != nil {
			return nil, err
		}
		notes = append(notes, param.Textf("run %s lasts %s, less than the %s window: its only window is the run so far",
			run, time.Duration(ns).Round(time.Millisecond), hypothesis.ShortDuration(o.Window)))
	}
	return notes, rows.Err()
}

// abortNotes names, per run, the threshold that aborts it: the verdict
// columns are then those of that moment.
func abortNotes(r *Result) []*param.Error {
	iRun, iAbort, iMetric, iTh := r.Col("run"), r.Col("abort_ms"), r.Col("metric"), r.Col("threshold")
	if iAbort < 0 {
		return nil
	}
	var notes []*param.Error
	for i := 0; i < len(r.Rows); {
		j, first := i, -1
		for ; j < len(r.Rows) && r.Rows[j][iRun] == r.Rows[i][iRun]; j++ {
			if at, ok := r.Rows[j][iAbort].(float64); ok && (first < 0 || at < r.Rows[first][iAbort].(float64)) {
				first = j
			}
		}
		if first >= 0 {
			row := r.Rows[first]
			notes = append(notes, param.Textf("run %v: k6 aborts the test at %s ms of test time, when %v: %v fails; samples, value and pass are what it prints then",
				row[iRun], strconv.FormatFloat(row[iAbort].(float64), 'f', -1, 64), row[iMetric], row[iTh]))
		}
		i = j
	}
	return notes
}

// requireThresholdLatency refuses a threshold on http_req_duration, the
// request rows' latency, over runs that carry none.
func requireThresholdLatency(db store.Querier, exp string, ts []Threshold) error {
	for _, t := range ts {
		if t.Base == "http_req_duration" {
			return hypothesis.RequireLatency(db, param.Errorf("threshold", "threshold %s", t.String()), "judge http_req_failed or http_reqs instead", "experiment = ?", exp)
		}
	}
	return nil
}

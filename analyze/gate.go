package analyze

import (
	"database/sql"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// GateOptions steer Gate: a canary gate controller's definition, read from
// the user's own YAML file, replayed over the recorded log.
type GateOptions struct {
	Experiment string
	Kind       string // argo, flagger or keptn
	File       string // the definition's file name, for errors
	Data       []byte // its content
	// Metrics binds a gate's metric (Argo metric, Flagger custom metric,
	// Keptn SLI) to a rewind metric (GateMetrics).
	Metrics map[string]string
	Role    string        // the rows read; "" = role experiment when the log has it, else every row
	Start   time.Duration // test time at which the analysis starts
	Until   time.Duration // test time the replay ends; 0 = the last t_ms rounded up to a second
	Every   time.Duration // Keptn: the evaluation window (default 1m)
}

// GateMetrics are the rewind metrics a gate's metric can be bound to.
var GateMetrics = []string{"requests", "ok_share", "error_rate", "ok_percent", "error_percent", "throughput",
	"mean", "p50", "p90", "p95", "p99", "p99.9", "max"}

// gateWindow is one measurement's span of test time, [from, until) in ms.
type gateWindow struct{ from, until float64 }

// gateValues are queries/gate.sql's integers for one window.
type gateValues struct {
	requests, ok, latN int64
	latSum             *big.Int
	q                  [6]sql.NullInt64 // p50 p90 p95 p99 p99.9 max, µs
}

// value is the metric over the window, exactly; ok is false when the window
// has nothing to measure it on (no request, or no latency).
func (v gateValues) value(metric string, w gateWindow) (*big.Rat, bool) {
	r := func(a, b int64) (*big.Rat, bool) {
		if b == 0 {
			return nil, false
		}
		return big.NewRat(a, b), true
	}
	switch metric {
	case "requests":
		return big.NewRat(v.requests, 1), true
	case "ok_share":
		return r(v.ok, v.requests)
	case "error_rate":
		return r(v.requests-v.ok, v.requests)
	case "ok_percent":
		return r(100*v.ok, v.requests)
	case "error_percent":
		return r(100*(v.requests-v.ok), v.requests)
	case "throughput":
		ms, _ := new(big.Rat).SetString(strconv.FormatFloat(w.until-w.from, 'f', -1, 64))
		return new(big.Rat).Quo(big.NewRat(v.requests*1000, 1), ms), ms.Sign() > 0
	case "mean":
		if v.latN == 0 {
			return nil, false
		}
		return new(big.Rat).SetFrac(v.latSum, big.NewInt(v.latN*1000)), true
	}
	i := slices.Index([]string{"p50", "p90", "p95", "p99", "p99.9", "max"}, metric)
	if i < 0 || !v.q[i].Valid {
		return nil, false
	}
	return big.NewRat(v.q[i].Int64, 1000), true
}

// gateSource reads windows from queries/gate.sql, caching them: the Argo
// replay asks again as its schedule settles.
type gateSource struct {
	db        store.Querier
	exp, role string // role "" = every row
	cache     map[gateWindow]gateValues
	remote    *Remote // the engine that reads the requests, or nil (db reads them)
}

func (s *gateSource) fetch(ws []gateWindow) error {
	var from, until []string
	asked := map[gateWindow]bool{}
	for _, w := range ws {
		if _, ok := s.cache[w]; !ok && !asked[w] {
			asked[w] = true
			from = append(from, strconv.FormatFloat(w.from, 'f', -1, 64))
			until = append(until, strconv.FormatFloat(w.until, 'f', -1, 64))
		}
	}
	if len(from) == 0 {
		return nil
	}
	if s.remote != nil {
		if err := s.remote.gateWindowsOn(s.exp, s.role, from, until); err != nil {
			return err
		}
	}
	role := "NULL"
	if s.role != "" {
		role = sqllit.String(s.role)
	}
	rows, err := s.db.Query(fmt.Sprintf(`SELECT requests, ok, lat_n, coalesce(lat_sum_us, 0)::VARCHAR, p50_us, p90_us, p95_us, p99_us, p999_us, max_us
		FROM gate(?, %s, [%s]::DOUBLE[], [%s]::DOUBLE[])`, role, strings.Join(from, ", "), strings.Join(until, ", ")), s.exp)
	if err != nil {
		return err
	}
	defer rows.Close()
	for i := 0; rows.Next(); i++ {
		var v gateValues
		var sum string
		if err := rows.Scan(&v.requests, &v.ok, &v.latN, &sum, &v.q[0], &v.q[1], &v.q[2], &v.q[3], &v.q[4], &v.q[5]); err != nil {
			return err
		}
		v.latSum, _ = new(big.Int).SetString(sum, 10)
		f, _ := strconv.ParseFloat(from[i], 64)
		u, _ := strconv.ParseFloat(until[i], 64)
		s.cache[gateWindow{f, u}] = v
	}
	return rows.Err()
}

// hurt counts the requests before a moment, and those not answered ok.
func (s *gateSource) hurt(untilMs float64) (requests, notOK int64, err error) {
	if s.remote != nil {
		return s.remote.gateHurtOn(s.exp, s.role, untilMs)
	}
	role := "NULL"
	if s.role != "" {
		role = sqllit.String(s.role)
	}
	err = s.db.QueryRow(fmt.Sprintf(`SELECT requests, not_ok FROM _gate_hurt(?, %s, %s)`, role,
		strconv.FormatFloat(untilMs, 'f', -1, 64)), s.exp).Scan(&requests, &notOK)
	return requests, notOK, err
}

// gateDecision is what a replay concludes: the decision and its moment
// (NaN when the log ended first).
type gateDecision struct {
	decision string
	at       float64
	evals    int
	reason   string
}

// Gate replays the gate definition over the experiment's log: one row per
// measurement (or check, or objective), and the decision.
func Gate(db store.Querier, o GateOptions) (measurements, decision *Result, err error) {
	e, err := store.FindExperiment(db, o.Experiment)
	if err != nil {
		return nil, nil, err
	}
	return gateReplay(&gateSource{db: db, exp: e.Name, role: o.Role, cache: map[gateWindow]gateValues{}}, o)
}

// gateReplay replays o's gate over src's windows.
func gateReplay(src *gateSource, o GateOptions) (measurements, decision *Result, err error) {
	end, err := src.resolve(o)
	if err != nil {
		return nil, nil, err
	}
	if start := msOf(o.Start); start >= end {
		return nil, nil, param.Errorf("start", "{start} %s ms is at or after the replay's end, %s ms: nothing to measure", hypothesis.TrimFloat(start), hypothesis.TrimFloat(end))
	}
	measurements = &Result{Name: "gate", Columns: gateColumns()}
	var d gateDecision
	switch o.Kind {
	case "argo":
		d, err = replayArgo(src, o, end, measurements)
	case "flagger":
		d, err = replayFlagger(src, o, end, measurements)
	case "keptn":
		d, err = replayKeptn(src, o, end, measurements)
	default:
		err = fmt.Errorf("gate kind %q: want argo, flagger or keptn", o.Kind)
	}
	if err != nil {
		return nil, nil, err
	}
	decision, err = src.decisionResult(o.Kind, d, end)
	return measurements, decision, err
}

// resolve picks the rows read and the replay's end (ms), in one scan.
func (s *gateSource) resolve(o GateOptions) (float64, error) {
	hasExp, lastExp, lastAll, lastRole, err := s.lastTimes()
	if err != nil {
		return 0, err
	}
	last := lastRole
	switch {
	case s.role == "" && hasExp:
		s.role, last = "experiment", lastExp
	case s.role == "":
		last = lastAll
	}
	if !last.Valid {
		return 0, fmt.Errorf("experiment %q has no requests with t_ms%s: a gate replays test time", s.exp, map[bool]string{true: " with role " + s.role}[s.role != ""])
	}
	if o.Until > 0 {
		return msOf(o.Until), nil
	}
	return math.Floor(last.Float64/1000)*1000 + 1000, nil
}

// lastTimes is resolve's scan: whether the experiment has a row of role
// experiment, and the last t_ms of that role, of every row and of s.role.
func (s *gateSource) lastTimes() (hasExp bool, lastExp, lastAll, lastRole sql.NullFloat64, err error) {
	if s.remote != nil {
		return s.remote.lastTimes(s.exp, s.role)
	}
	err = s.db.QueryRow(`SELECT coalesce(bool_or(role = 'experiment'), false), max(t_ms) FILTER (WHERE role = 'experiment'),
		max(t_ms), max(t_ms) FILTER (WHERE role = ?) FROM requests WHERE experiment = ?`, s.role, s.exp).Scan(&hasExp, &lastExp, &lastAll, &lastRole)
	return hasExp, lastExp, lastAll, lastRole, err
}

func gateColumns() []Column {
	return []Column{{"evaluation", ""}, {"at_ms", "ms"}, {"metric", ""}, {"from_ms", "ms"}, {"until_ms", "ms"},
		{"requests", "requests"}, {"value", ""}, {"result", ""}, {"state", ""}}
}

// gateRow is one measurement's row; value nil when there was none.
func gateRow(eval int, at float64, metric string, w gateWindow, v gateValues, value *big.Rat, result, state string) []any {
	var val any
	if value != nil {
		f, _ := value.Float64()
		val = f
	}
	return []any{int64(eval), at, metric, w.from, w.until, v.requests, val, result, state}
}

func (s *gateSource) decisionResult(kind string, d gateDecision, end float64) (*Result, error) {
	res := &Result{Name: "gate decision", Columns: []Column{{"gate", ""}, {"decision", ""}, {"at_ms", "ms"},
		{"evaluations", ""}, {"requests_before", "requests"}, {"not_ok_before", "requests"}, {"reason", ""}}}
	var at any
	until := end
	if !math.IsNaN(d.at) {
		at, until = d.at, d.at
	}
	n, bad, err := s.hurt(until)
	if err != nil {
		return nil, err
	}
	res.Rows = append(res.Rows, []any{kind, d.decision, at, int64(d.evals), n, bad, d.reason})
	if math.IsNaN(d.at) {
		res.Notes = append(res.Notes, param.Textf("the log ends (%s ms) before the gate decides: %s", hypothesis.TrimFloat(end), d.decision))
	} else {
		res.Notes = append(res.Notes, param.Textf("the gate would have decided %s at %s ms, after %d requests of which %d not ok", d.decision, hypothesis.TrimFloat(d.at), n, bad))
	}
	return res, nil
}

// bindMetric finds the rewind metric a gate's metric is bound to.
func bindMetric(o GateOptions, name, what string) (string, error) {
	m, ok := o.Metrics[name]
	if !ok {
		return "", param.Errorf("metric", "%s %q has no rewind metric: bind it with {metric} %s=METRIC (METRIC one of %s)", what, name, name, strings.Join(GateMetrics, ", "))
	}
	if !slices.Contains(GateMetrics, m) {
		return "", param.Errorf("metric", "{metric} %s=%s: unknown metric, want one of %s", name, m, strings.Join(GateMetrics, ", "))
	}
	return m, nil
}

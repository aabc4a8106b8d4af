package analyze

import (
	"fmt"
	"strconv"
	"strings"
)

// BlastRadiusOptions steer BlastRadius. Zero values take the experiment's
// stored parameters: "planned" (a SQL predicate) and "start".
type BlastRadiusOptions struct {
	Experiment string
	Planned    string // SQL boolean over the request columns, e.g. tag_hash(20260731, req) < 0.05
	Start      int64  // position in the experiment run where the experiment starts
	StartSet   bool
}

var blastUnits = map[string]string{
	"planned": "requests", "measured": "requests", "window_requests": "requests", "multiplier": "x",
	"damaged": "requests", "control_damaged": "requests", "control_requests": "requests",
}

// BlastRadius compares the planned blast radius with the measured one.
func BlastRadius(db Querier, o BlastRadiusOptions) (*Result, error) {
	e, err := FindExperiment(db, o.Experiment)
	if err != nil {
		return nil, err
	}
	start := o.Start
	if !o.StartSet {
		if s, ok := e.Number("start"); ok {
			start = int64(s)
		}
	}
	pred, stored := o.Planned, false
	if pred == "" {
		pred, _ = e.Text("planned")
		stored = true
	}
	var planned any // NULL when there is no plan: multiplier stays NULL
	if pred != "" {
		n, err := plannedCount(db, pred, stored, e, start)
		if err != nil {
			return nil, err
		}
		planned = n
	}
	return query(db, "blast-radius", blastUnits, `SELECT * FROM blast_radius(?, ?, ?)`, e.Name, start, planned)
}

// FalsificationOptions steer Falsification.
type FalsificationOptions struct {
	Experiment string
	Window     Window    // default: the experiment's stored window
	Margins    []float64 // default 0, 0.05, 0.10, 0.20
}

// DefaultMargins are the margins the seed sweeps.
var DefaultMargins = []float64{0, 0.05, 0.10, 0.20}

var falsUnits = map[string]string{
	"margin": "share", "baseline": "share",
}

// Falsification sweeps the steady-state hypothesis over margins.
func Falsification(db Querier, o FalsificationOptions) (*Result, error) {
	e, w, err := experimentWindow(db, o.Experiment, o.Window)
	if err != nil {
		return nil, err
	}
	margins := o.Margins
	if len(margins) == 0 {
		margins = DefaultMargins
	}
	for _, m := range margins {
		if err := checkMargin(m); err != nil {
			return nil, err
		}
	}
	n, ms := w.args()
	q := fmt.Sprintf(`SELECT * FROM falsification(?, size_n := ?, size_ms := ?, margins := %s)`, decimalList(margins))
	return query(db, "falsification", falsUnits, q, e.Name, n, ms)
}

// StopDamageOptions steer StopDamage.
type StopDamageOptions struct {
	Experiment string
	Window     Window
	Margin     float64 // default 0.10
	MarginSet  bool
	Ks         []int64 // default 1, 2, 3, 4
}

var stopUnits = map[string]string{
	"damage_until_stop": "requests",
	"extra_over_k1":     "requests", "total_damage": "requests",
}

// StopDamage sweeps the stop criterion "k consecutive falsified windows".
func StopDamage(db Querier, o StopDamageOptions) (*Result, error) {
	e, w, err := experimentWindow(db, o.Experiment, o.Window)
	if err != nil {
		return nil, err
	}
	margin := 0.10
	if o.MarginSet {
		margin = o.Margin
	} else if m, ok := e.Number("margin"); ok {
		margin = m
	}
	if err := checkMargin(margin); err != nil {
		return nil, err
	}
	ks := o.Ks
	if len(ks) == 0 {
		ks = []int64{1, 2, 3, 4}
	}
	parts := make([]string, len(ks))
	for i, k := range ks {
		if k < 1 {
			return nil, fmt.Errorf("k %d: want 1 or more consecutive windows", k)
		}
		parts[i] = strconv.FormatInt(k, 10)
	}
	n, ms := w.args()
	q := fmt.Sprintf(`SELECT * FROM stop_damage(?, size_n := ?, size_ms := ?, margin := %s, ks := [%s])`,
		decimalLit(margin), strings.Join(parts, ", "))
	return query(db, "stop-damage", stopUnits, q, e.Name, n, ms)
}

func experimentWindow(db Querier, name string, flag Window) (Experiment, Window, error) {
	e, err := FindExperiment(db, name)
	if err != nil {
		return e, Window{}, err
	}
	w, err := windowFor(e, flag)
	if err != nil {
		return e, w, err
	}
	if err := needRoles(db, e.Name); err != nil {
		return e, w, err
	}
	if w.Ms > 0 {
		var timed int64
		if err := db.QueryRow(`SELECT count(t_ms) FROM requests WHERE experiment = ?`, e.Name).Scan(&timed); err != nil {
			return e, w, err
		}
		if timed == 0 {
			return e, w, fmt.Errorf("experiment %q has no t_ms: duration windows need send times; use a count window such as --window 40", e.Name)
		}
	}
	return e, w, nil
}

// needRoles checks that the experiment has a control and an experiment run.
func needRoles(db Querier, exp string) error {
	var control, experiment int64
	err := db.QueryRow(`SELECT count(*) FILTER (WHERE role = 'control'), count(*) FILTER (WHERE role = 'experiment')
		FROM requests WHERE experiment = ?`, exp).Scan(&control, &experiment)
	if err != nil {
		return err
	}
	if control == 0 || experiment == 0 {
		return fmt.Errorf("experiment %q needs a run with role control and one with role experiment (has %d control and %d experiment requests)",
			exp, control, experiment)
	}
	return nil
}

// checkMargin accepts shares in [0, 1) with at most 6 decimals: the SQL
// compares in millionths, so a finer margin would be rounded.
func checkMargin(m float64) error {
	s := decimalLit(m)
	_, frac, _ := strings.Cut(s, ".")
	if m < 0 || m >= 1 || len(frac) > 6 {
		return fmt.Errorf("margin %s: want a share in [0, 1) with at most 6 decimals, e.g. 0.05", strconv.FormatFloat(m, 'g', -1, 64))
	}
	return nil
}

// decimalLit writes a margin as an exact SQL decimal literal: the shortest
// decimal that reads back as the same float, so 0.1 is 0.1 and not
// 0.1000000000000000055.
func decimalLit(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

func decimalList(fs []float64) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = decimalLit(f) + "::DECIMAL(18,6)"
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

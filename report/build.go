package report

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/store"
)

// Options steer Build. Zero values take the experiment's stored
// parameters, as the analyses do.
type Options struct {
	Experiment string
	Planned    string            // blast-radius plan, a SQL boolean (default: the stored 'planned')
	Window     hypothesis.Window // default: the experiment's stored window
	Margin     float64           // timeline threshold below the baseline; default 0.10 (or the stored 'margin')
	MarginSet  bool
	StopAfter  int64  // consecutive falsified windows that stop, marked on the timeline; default 1
	Source     string // where the log came from, for the subtitle; optional
	// Thresholds are k6 thresholds for the thresholds section (none: those
	// the k6 log recorded, if any).
	Thresholds []analyze.Threshold
	// SLO, when set, adds the burn-rate section: its rules (default
	// hypothesis.DefaultBurnRules), what makes a request good (default
	// outcome = 'ok') and the budget's period (default 30 days), as in
	// `rewind analyze burn-rate`.
	SLO       hypothesis.Decimal
	BurnRules []hypothesis.BurnRule
	Good      string
	Period    time.Duration
	// Version and Date, when set, go into the footer: which rewind made
	// the report, and when (callers pass a fixed date for reproducible
	// output, e.g. from SOURCE_DATE_EPOCH).
	Version string
	Date    time.Time
	// Progress, when set, is called after each section with the sections done
	// and the total, so a long report can show a bar.
	Progress func(done, total int)
	// Hypothesis names the sides and the metric the timeline follows and
	// the delta table compares (default: role control against role
	// experiment, ok_share); Bound is its threshold (nil: the margin for a
	// share metric, else hypothesis.DefaultTolerance), drawn as the line.
	Hypothesis hypothesis.Hypothesis
	Bound      *hypothesis.Bound
	// Start, when StartSet, is the treatment run's position where the
	// fault starts (--start); it wins over the shading's other sources.
	Start    int64
	StartSet bool
	// Name, when set, writes each parameter a note or hint suggests
	// ({window}, {planned}) as the caller spells it: the CLI names its
	// flags. Unset, the report names the parameters as the library does.
	Name func(param string) string
	// roles maps a role to the key (and so the colour) of its series: the
	// role's run when it has one, else the role itself.
	roles map[string]string
	chart *chartContext // the sides and the fault window every chart shares
	// remote, when set, is the engine the per-request work runs on (BuildOn).
	remote *analyze.Remote
}

// say is a note's text, its parameters written {name} in format and named
// as o.Name says; only the format is rewritten, never a value.
func (o Options) say(format string, args ...any) string {
	return param.Textf(format, args...).Say(o.paramName)
}

// paramName is a parameter as o.Name says, or as the library names it.
func (o Options) paramName(p string) string {
	if o.Name == nil {
		return p
	}
	return o.Name(p)
}

// sectionFunc builds one report section; nil means the experiment lacks what
// the section needs, and the report leaves it out.
type sectionFunc func(q store.Querier, e store.Experiment, o Options) (*Section, error)

// reportSections are the report's parts in order. Each calls the same
// analysis functions as `rewind analyze`, so both show the same numbers.
var reportSections = []struct {
	name  string
	build sectionFunc
}{
	{"verdict", verdictSection},
	{"overview", overviewSection},
	{"control vs experiment", deltaSection},
	{"blast radius", blastSection},
	{"falsification", falsificationSection},
	{"stop-damage", stopDamageSection},
	{"thresholds", thresholdsSection},
	{"burn rate", burnRateSection},
	{"timeline", timelineSection},
	{"resolution", resolutionSection},
	{"latency", latencySection},
	{"amplification", amplificationSection},
	{"retries", retriesSection},
}

// Build assembles the report of one experiment: a section for each
// analysis the log supports.
func Build(q store.Querier, o Options) (Document, error) {
	e, err := store.FindExperiment(q, o.Experiment)
	if err != nil {
		return Document{}, err
	}
	if !o.MarginSet {
		o.Margin = hypothesis.DefaultMargin
		if m, ok := e.Number("margin"); ok {
			o.Margin = m
		}
	}
	if o.StopAfter <= 0 {
		o.StopAfter = 1
	}
	doc := Document{Title: "rewind report: " + e.Name, Subtitle: subtitle(e, o), Null: "-", Footer: footer(o)}
	if err := o.onEngine(e); err != nil {
		return doc, err
	}
	if doc.Keys, o.roles, err = runKeys(q, o, e.Name); err != nil {
		return doc, err
	}
	if o.chart, err = newChartContext(q, e, o); err != nil {
		return doc, err
	}
	for i, s := range reportSections {
		sec, err := s.build(q, e, o)
		var refused *analyze.NotOnEngineError
		if errors.As(err, &refused) {
			return doc, err // it names what is refused
		}
		if err != nil {
			return doc, fmt.Errorf("report section %s: %w", s.name, err)
		}
		if sec != nil {
			doc.Sections = append(doc.Sections, *sec)
		}
		if sec != nil && s.name == "latency" {
			// The dots' classes come right after the runs, so that ok and
			// error never share a colour with a run or with each other.
			doc.Keys = append(doc.Keys, "ok", "error")
		}
		if o.Progress != nil {
			o.Progress(i+1, len(reportSections))
		}
	}
	return doc, nil
}

// runKeys lists the experiment's runs in the order of the overview table:
// each run keeps the colour of its place there in every chart. It also maps
// each role to the key of its series (roleKey).
func runKeys(q store.Querier, o Options, exp string) ([]string, map[string]string, error) {
	sql := `SELECT run, coalesce(role, '') AS role FROM requests WHERE experiment = ?
		GROUP BY ALL ORDER BY min(seq), run`
	if o.remote != nil {
		sql = `SELECT run, coalesce(role, '') AS role FROM _report_runs WHERE ? IS NOT NULL
		GROUP BY ALL ORDER BY min(min_seq), run`
	}
	r, err := analyze.Query(q, "runs", nil, sql, exp)
	if err != nil {
		return nil, nil, err
	}
	var runs []string
	perRole := map[string][]string{}
	for _, row := range r.Rows {
		run, role := fmt.Sprint(row[0]), fmt.Sprint(row[1])
		runs = append(runs, run)
		perRole[role] = append(perRole[role], run)
	}
	roles := map[string]string{}
	for role, rs := range perRole {
		roles[role] = role
		if len(rs) == 1 {
			roles[role] = rs[0]
		}
	}
	return runs, roles, nil
}

// roleKey is the series key of a role's run (see runKeys).
func (o Options) roleKey(role string) string {
	if k, ok := o.roles[role]; ok {
		return k
	}
	return role
}

// footer says which rewind made the report and when (UTC, RFC 3339).
func footer(o Options) string {
	if o.Version == "" && o.Date.IsZero() {
		return ""
	}
	s := "Made by rewind"
	if o.Version != "" {
		s += " " + o.Version
	}
	if !o.Date.IsZero() {
		s += " on " + o.Date.UTC().Format(time.RFC3339)
	}
	return s
}

func subtitle(e store.Experiment, o Options) string {
	s := "experiment " + e.Name
	if o.Source != "" {
		s += ", from " + o.Source
	}
	return s
}

// shown is a table cell formatted the way `rewind analyze` prints it (shares
// as %, ratios with ×) that still counts as a number, so it right-aligns.
type shown struct {
	text string
	f    float64
}

func (s shown) String() string   { return s.text }
func (s shown) Float64() float64 { return s.f }

// resultTable turns an analysis result into a report table with the cells
// and headers of `rewind analyze`'s table format.
func resultTable(r *analyze.Result, caption string) Table {
	t := Table{Caption: caption}
	for _, c := range r.Columns {
		t.Columns = append(t.Columns, Column{Name: c.Name, Unit: c.Unit})
	}
	for _, row := range r.Rows {
		cells := make([]Value, len(row))
		for i, v := range row {
			cells[i] = v
			if f, ok := v.(float64); ok {
				cells[i] = shown{analyze.Human(f, r.Columns[i].Unit), f}
			}
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// column returns a result column as floats; NULL becomes NaN (a gap).
func column(r *analyze.Result, name string) []float64 {
	i := r.Col(name)
	out := make([]float64, len(r.Rows))
	for j, row := range r.Rows {
		out[j] = math.NaN()
		if i >= 0 {
			out[j] = number(row[i])
		}
	}
	return out
}

func number(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return math.NaN()
}

// overviewSection lists the runs and the parameters stored with the
// experiment; every report has it. A log without outcomes (e.g. bare counts
// per t_ms) gets NULL ok, not a misleading 0 %.
func overviewSection(q store.Querier, e store.Experiment, o Options) (*Section, error) {
	sql := `
		SELECT run, role, sum(count)::BIGINT AS requests,
		       CASE WHEN count(outcome) > 0 THEN coalesce(sum(count) FILTER (WHERE outcome = 'ok'), 0) END::BIGINT AS ok,
		       (ok / sum(count))::DOUBLE AS ok_share
		FROM requests WHERE experiment = ? GROUP BY ALL ORDER BY min(seq), run`
	if o.remote != nil { // the same over the runs' step (one row per run and role)
		sql = `
		SELECT run, role, sum(requests)::BIGINT AS requests,
		       CASE WHEN sum(outcomes) > 0 THEN coalesce(sum(ok_requests), 0) END::BIGINT AS ok,
		       (ok / sum(requests))::DOUBLE AS ok_share
		FROM _report_runs WHERE ? IS NOT NULL GROUP BY ALL ORDER BY min(min_seq), run`
	}
	runs, err := analyze.Query(q, "runs", map[string]string{"ok_share": "share"}, sql, e.Name)
	if err != nil {
		return nil, err
	}
	sec := &Section{Title: "Experiment", Tables: []Table{resultTable(runs, "Runs")}}
	if len(e.Params) > 0 {
		t := Table{Caption: "Stored parameters", Columns: []Column{{Name: "parameter"}, {Name: "value"}}}
		for _, k := range slices.Sorted(maps.Keys(e.Params)) {
			t.Rows = append(t.Rows, []Value{k, paramValue(e.Params[k])})
		}
		sec.Tables = append(sec.Tables, t)
	}
	return sec, nil
}

// paramValue keeps a number a number, so that it right-aligns.
func paramValue(v any) Value {
	switch v.(type) {
	case nil, float64, string, bool:
		return v
	}
	return fmt.Sprint(v)
}

// hasRoles reports whether the experiment has requests in each role.
func hasRoles(q store.Querier, o Options, exp string, roles ...string) (bool, error) {
	for _, r := range roles {
		var n int64
		var err error
		if o.remote != nil {
			n, err = runTotal(q, "n_rows", "role = ?", r)
		} else {
			err = q.QueryRow(`SELECT count(*) FROM requests WHERE experiment = ? AND role = ?`, exp, r).Scan(&n)
		}
		if err != nil {
			return false, err
		}
		if n == 0 {
			return false, nil
		}
	}
	return true, nil
}

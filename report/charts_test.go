package report_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/report"
	"github.com/rewind-dev/rewind/store"
)

// The chart rules of issue 28, each over a bundled or real fixture: both
// sides on one axis, a delta table, the timeline following the
// hypothesis's metric with its threshold, the fault window shaded, and
// ok-share axes from a rounded bound.

// buildFrom ingests paths into a new database and builds its report.
func buildFrom(t *testing.T, in ingest.Options, o report.Options, paths ...string) (report.Document, *store.DB) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "rewind.duckdb"), store.Options{Mode: store.Write})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := ingest.Files(ctx, db, in, paths); err != nil {
		t.Fatal(err)
	}
	doc, err := report.Build(db, o)
	if err != nil {
		t.Fatal(err)
	}
	return doc, db
}

const chaosLog = "../fixtures/chaos/gunluk.json"

// TestTimelineOverlaysSides: the chaos log's control and experiment runs on
// one chart, one X and one Y scale, the experiment drawn last.
func TestTimelineOverlaysSides(t *testing.T) {
	doc, _ := buildFrom(t, ingest.Options{}, report.Options{}, chaosLog)
	charts := section(t, doc, "Timeline").Charts
	if len(charts) != 1 {
		t.Fatalf("timeline: %d charts, want one with both sides", len(charts))
	}
	c := charts[0]
	if got := keys(c); !slices.Equal(got, []string{"control", "experiment"}) {
		t.Fatalf("timeline series keys %q, want control, experiment", got)
	}
	if !slices.Equal(c.Series[0].X, c.Series[1].X) || len(c.Series[0].X) != 10 {
		t.Errorf("timeline X: control %v, experiment %v; want the same ten windows", c.Series[0].X, c.Series[1].X)
	}
}

// TestDeltaTable: per metric the control, the experiment and their
// difference, against the overview's Runs table (the same numbers, read
// independently).
func TestDeltaTable(t *testing.T) {
	doc, _ := buildFrom(t, ingest.Options{}, report.Options{}, chaosLog)
	runs := section(t, doc, "Experiment").Tables[0]
	share := map[string]float64{}
	for _, row := range runs.Rows {
		share[fmt.Sprint(row[1])] = row[4].(interface{ Float64() float64 }).Float64()
	}
	d := section(t, doc, "Control vs experiment").Tables[0]
	got := map[string][]string{}
	for _, row := range d.Rows {
		cells := make([]string, len(row)-1)
		for i, v := range row[1:] {
			cells[i] = report.FormatValue(v)
		}
		got[fmt.Sprint(row[0])] = cells
	}
	ctl, exp := share["control"], share["experiment"]
	want := []string{"share", analyze.Human(ctl, "share"), analyze.Human(exp, "share"),
		fmt.Sprintf("%+.2f pp", 100*(exp-ctl)), fmt.Sprintf("%+.2f %%", 100*(exp-ctl)/ctl)}
	if diff := cmp.Diff(want, got["ok_share"]); diff != "" {
		t.Errorf("ok_share row (-want +got):\n%s", diff)
	}
	if _, ok := got["p95"]; ok {
		t.Error("a log without latencies has a p95 row")
	}
}

// checkoutCanary is the latency canary of fixtures/hypotheses: baseline
// against canary, judged on p95 per 10 s window.
func checkoutCanary(t *testing.T, bound string) report.Document {
	t.Helper()
	kind, text, _ := strings.Cut(bound, " ")
	b, err := hypothesis.ParseBound(kind, text, "p95")
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := buildFrom(t, ingest.Options{}, report.Options{Window: hypothesis.Window{Ms: 10000},
		Hypothesis: hypothesis.Hypothesis{Metric: "p95"}, Bound: &b}, "../fixtures/hypotheses/checkout.ndjson")
	return doc
}

// TestTimelineFollowsMetric: with --metric p95 the timeline draws p95 per
// window for both sides, and the SLO (--max 250ms) is the line on the
// timeline and on every latency chart of a latency over time.
func TestTimelineFollowsMetric(t *testing.T) {
	doc := checkoutCanary(t, "max 250ms")
	tl := section(t, doc, "Timeline")
	c := tl.Charts[0]
	if c.YLabel != "p95 latency (ms)" || len(c.Series) != 2 || len(c.HLines) != 1 || c.HLines[0].Y != 250 {
		t.Fatalf("timeline: want p95 of both sides with the 250 ms line, got y %q, %d series, lines %+v", c.YLabel, len(c.Series), c.HLines)
	}
	// The drawn canary values are the table's p95 column.
	table := tl.Tables[0]
	col := slices.IndexFunc(table.Columns, func(c report.Column) bool { return c.Name == "p95" })
	if col < 0 || table.Columns[col].Unit != "ms" {
		t.Fatalf("timeline table columns %+v: want p95 (ms)", table.Columns)
	}
	for i, row := range table.Rows {
		if v := row[col].(interface{ Float64() float64 }).Float64(); v != c.Series[1].Y[i] {
			t.Fatalf("window %d: drawn %v, table %v", i+1, c.Series[1].Y[i], v)
		}
	}
	lines := 0
	for _, lc := range section(t, doc, "Latency").Charts {
		if lc.Kind == report.KindPoints || !strings.Contains(lc.YLabel, "latency") {
			continue
		}
		if len(lc.HLines) != 1 || lc.HLines[0].Y != 250 {
			t.Errorf("latency chart %q: lines %+v, want the 250 ms SLO", lc.Title, lc.HLines)
		}
		lines++
	}
	if lines != 3 { // each run's percentiles and the p95 of both runs
		t.Errorf("%d latency charts with the SLO, want 3", lines)
	}
}

// TestRelativeLatencyLine: a relative bound (--tolerance 20%) is drawn at
// its value over the control's baseline, the threshold that
// analyze falsification reports for the same hypothesis.
func TestRelativeLatencyLine(t *testing.T) {
	doc := checkoutCanary(t, "tolerance 20%")
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "rewind.duckdb"), store.Options{Mode: store.Write})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := ingest.Files(ctx, db, ingest.Options{}, []string{"../fixtures/hypotheses/checkout.ndjson"}); err != nil {
		t.Fatal(err)
	}
	b, _ := hypothesis.ParseBound("tolerance", "20%", "p95")
	f, err := analyze.Falsification(db, analyze.FalsificationOptions{Window: hypothesis.Window{Ms: 10000},
		Hypothesis: hypothesis.Hypothesis{Metric: "p95"}, Bounds: []hypothesis.Bound{b}})
	if err != nil {
		t.Fatal(err)
	}
	want := f.Rows[0][f.Col("threshold")].(float64)
	for _, title := range []string{"Timeline", "Latency"} {
		for _, c := range section(t, doc, title).Charts {
			if c.Kind != report.KindPoints && strings.Contains(c.YLabel, "latency") && (len(c.HLines) != 1 || c.HLines[0].Y != want) {
				t.Errorf("%s chart %q: lines %+v, want the threshold %v", title, c.Title, c.HLines, want)
			}
		}
	}
}

// TestShadingFromStart: the chaos log stores start = 200 (DENEY_BASI) and
// windows of 40: the fault runs from window 6 to the last, 10; --start 300
// moves it to window 8.
func TestShadingFromStart(t *testing.T) {
	for _, c := range []struct {
		o        report.Options
		from, to float64
	}{{report.Options{}, 6, 10}, {report.Options{Start: 300, StartSet: true}, 8, 10}} {
		doc, _ := buildFrom(t, ingest.Options{}, c.o, chaosLog)
		bands := section(t, doc, "Timeline").Charts[0].Bands
		if len(bands) != 1 || bands[0].From != c.from || bands[0].To != c.to || !strings.Contains(bands[0].Label, "fault window") {
			t.Errorf("start %d: bands %+v, want the fault window from window %v to %v", c.o.Start, bands, c.from, c.to)
		}
	}
}

// TestShadingFromChaosToolkit: a real Chaos Toolkit journal (docker stop
// redis, then start it again) ingested with a load log of the same
// minutes into one experiment. Every time chart of the treatment shades
// the first action's start to the last action's end, in the journal's own
// times; the control's charts are not shaded.
func TestShadingFromChaosToolkit(t *testing.T) {
	journal := "../ingest/testdata/real/chaostoolkit/redis-stop-completed/input.json"
	// The journal: action parar_container_redis starts at
	// 00:12:46.074813, iniciar_container_redis ends at 00:12:47.130052.
	origin := time.Date(2025, 4, 26, 0, 12, 45, 0, time.UTC)
	from := float64(time.Date(2025, 4, 26, 0, 12, 46, 74813000, time.UTC).Sub(origin)) / float64(time.Second)
	to := float64(time.Date(2025, 4, 26, 0, 12, 47, 130052000, time.UTC).Sub(origin)) / float64(time.Second)
	doc, _ := buildFrom(t, ingest.Options{Experiment: "redis"}, report.Options{Window: hypothesis.Window{Ms: 500}},
		writeRedisLoad(t, origin), journal)
	shaded, plain := 0, 0
	for _, s := range doc.Sections {
		for _, c := range s.Charts {
			if c.XLabel != "t (s)" {
				continue
			}
			if strings.HasPrefix(c.Title, "Run control") {
				plain++
				if len(c.Bands) != 0 {
					t.Errorf("%q (control) is shaded: %+v", c.Title, c.Bands)
				}
				continue
			}
			shaded++
			if len(c.Bands) != 1 || c.Bands[0].From != from || c.Bands[0].To != to || !strings.Contains(c.Bands[0].Label, "Chaos Toolkit") {
				t.Errorf("%q: bands %+v, want the actions' span %v to %v s", c.Title, c.Bands, from, to)
			}
		}
	}
	if shaded != 5 || plain != 3 { // experiment: rate, dots, percentiles, two overlays
		t.Errorf("%d shaded and %d plain time charts, want 5 and 3", shaded, plain)
	}
	tl := section(t, doc, "Timeline").Charts[0].Bands
	// 500 ms windows from t = 0: the actions span windows 3 (1.0-1.5 s) to 5.
	if len(tl) != 1 || tl[0].From != 3 || tl[0].To != 5 {
		t.Errorf("timeline bands %+v, want windows 3 to 5", tl)
	}
}

// writeRedisLoad writes a generated load log beside the journal's minutes:
// a control and an experiment run at 20 requests/s from origin for 3 s,
// the experiment's requests failing while redis is stopped.
func writeRedisLoad(t *testing.T, origin time.Time) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"record":"run","experiment":"redis","run":"control","role":"control"}` + "\n")
	b.WriteString(`{"record":"run","experiment":"redis","run":"experiment","role":"experiment"}` + "\n")
	for _, run := range []string{"control", "experiment"} {
		for i := range 60 {
			ts := origin.Add(time.Duration(i) * 50 * time.Millisecond)
			outcome := "ok"
			if run == "experiment" && i >= 22 && i < 42 {
				outcome = "error"
			}
			fmt.Fprintf(&b, `{"run":%q,"req":%d,"ts":%q,"latency_ms":%d,"outcome":%q}`+"\n",
				run, i, ts.Format(time.RFC3339Nano), 20+i%7, outcome)
		}
	}
	path := filepath.Join(t.TempDir(), "load.ndjson")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestShareAxisFromRoundedBound: the chaos timeline's ok share (60 % to
// 100 %, threshold 86 %) is drawn from 60 %, a multiple of 10 %, to 100 %
// as given; the latency log's (88 % to 100 %, threshold 89.5 %) from 80 %.
func TestShareAxisFromRoundedBound(t *testing.T) {
	chaos, _ := buildFrom(t, ingest.Options{}, report.Options{}, chaosLog)
	for _, c := range []struct {
		doc  report.Document
		want [2]float64
	}{{chaos, [2]float64{60, 100}}, {latencyReport(t), [2]float64{80, 100}}} {
		tl := section(t, c.doc, "Timeline").Charts[0]
		if tl.YRange != c.want || !tl.YFixed {
			t.Errorf("%s: ok share axis %v (fixed %v), want %v fixed", c.doc.Title, tl.YRange, tl.YFixed, c.want)
		}
	}
	lat := section(t, latencyReport(t), "Latency").Charts
	if ok := lat[len(lat)-1]; ok.YRange != [2]float64{80, 100} || !ok.YFixed {
		t.Errorf("%q: axis %v, want 80 to 100 fixed", ok.Title, ok.YRange)
	}
}

// TestShadingFromRunParams: a storm run stores its own fault window
// (fault_from_ms 20, fault_to_ms 40): its rate chart shades 0.02 s to
// 0.04 s; the run without one is not shaded.
func TestShadingFromRunParams(t *testing.T) {
	doc, _ := buildFrom(t, ingest.Options{}, report.Options{}, "../fixtures/storm/tiny.ndjson")
	got := map[string][]report.Band{}
	for _, c := range section(t, doc, "Resolution").Charts {
		got[c.Title] = c.Bands
	}
	want := map[string][]report.Band{
		"Run a": {{Label: "fault window (the run's stored fault_from_ms to fault_to_ms)", From: 0.02, To: 0.04}},
		"Run b": nil,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resolution bands (-want +got):\n%s", diff)
	}
}

// TestSLOLine: --slo 99% is a line at 99 % on the ok-share charts (the
// timeline, the ok share of every run), inside their axis.
func TestSLOLine(t *testing.T) {
	doc, _ := buildFrom(t, ingest.Options{}, report.Options{SLO: "0.99"}, "testdata/latency.ndjson")
	tl := section(t, doc, "Timeline").Charts[0]
	lat := section(t, doc, "Latency").Charts
	for _, c := range []report.Chart{tl, lat[len(lat)-1]} {
		i := slices.IndexFunc(c.HLines, func(l report.Line) bool { return strings.HasPrefix(l.Label, "SLO") })
		if i < 0 || c.HLines[i].Y != 99 || c.YRange[1] != 100 || c.YRange[0] > 99 {
			t.Errorf("%q: lines %+v on %v, want the SLO at 99 within the axis", c.Title, c.HLines, c.YRange)
		}
	}
}

// TestVerdictFollowsHypothesis: with --metric p95 --max 250ms the verdict,
// the stop-damage section and the timeline judge the same hypothesis: the
// verdict's stop is the timeline's mark and stop-damage's k = 1 row.
func TestVerdictFollowsHypothesis(t *testing.T) {
	doc := checkoutCanary(t, "max 250ms")
	stop := section(t, doc, "Timeline").Charts[0].VMarks[0].X
	v := section(t, doc, "Verdict").Tables[0]
	if got, want := fmt.Sprint(v.Rows[1][1]), fmt.Sprintf("fires at window %d", int64(stop)); got != want {
		t.Errorf("verdict stop %q, want %q (the timeline's)", got, want)
	}
	if !strings.Contains(fmt.Sprint(v.Rows[0][2]), "p95 > 250 ms") {
		t.Errorf("verdict detail %q does not judge p95 against 250 ms", v.Rows[0][2])
	}
	sd := section(t, doc, "Stop-damage").Tables[0]
	if got := sd.Rows[0][1]; got != int64(stop) {
		t.Errorf("stop-damage k = 1 stops at %v, want window %v", got, stop)
	}
}

package report_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/internal/golden"
	"github.com/rewind-dev/rewind/report"
	"github.com/rewind-dev/rewind/store"
)

// TestVerdictGoldens renders the verdict that leads the report of each
// bundled fixture, against testdata/verdict/NAME.txt (go test -run
// Verdict -update rewrites them).
func TestVerdictGoldens(t *testing.T) {
	for _, c := range fixtureReports(t) {
		t.Run(c.name, func(t *testing.T) {
			doc := c.build(t)
			if len(doc.Sections) == 0 || doc.Sections[0].Title != "Verdict" {
				t.Fatalf("the report does not lead with the verdict: %q", titles(doc))
			}
			var buf bytes.Buffer
			doc.Sections = doc.Sections[:1]
			doc.Title, doc.Subtitle = "", ""
			if err := report.RenderText(&buf, doc); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "testdata/verdict/"+c.name+".txt", buf.Bytes())
		})
	}
}

// TestHintsNameParameters: a hint names the parameters it suggests as
// Options.Name says, or, unset, as the library does; the values given with
// them (window=40) are never renamed.
func TestHintsNameParameters(t *testing.T) {
	in := ingest.Options{Experiment: "checkout", Roles: map[string]string{"baseline": "control", "chaos": "experiment"}}
	_, db := buildFrom(t, in, report.Options{}, "../fixtures/k6/baseline.json", "../fixtures/k6/chaos.json")
	for _, c := range []struct {
		name func(string) string
		want string
	}{
		{nil, "give window 40 (requests) or window 10s, or store one with set window=40 at ingest. " +
			"The blast-radius section is left out: the log tags no requests and has no plan; give planned 'SQL boolean' (or store it with set planned=…) to compare."},
		{func(p string) string { return "-" + strings.ToUpper(p) }, "give -WINDOW 40 (requests) or -WINDOW 10s, or store one with -SET window=40 at ingest."},
	} {
		doc, err := report.Build(db, report.Options{Name: c.name})
		if err != nil {
			t.Fatal(err)
		}
		if note := doc.Sections[0].Note; !strings.Contains(note, c.want) {
			t.Errorf("verdict note %q, want it to hold %q", note, c.want)
		}
	}
}

// fixtureReport is the report of a bundled fixture, with options.
type fixtureReport struct {
	name  string
	in    ingest.Options
	paths []string
	opts  report.Options
}

// fixtureReports are the reports of every bundled fixture that the verdict
// goldens and the JSON test read.
func fixtureReports(t *testing.T) []fixtureReport {
	return []fixtureReport{
		{"chaos", ingest.Options{}, []string{"../fixtures/chaos/gunluk.json"}, report.Options{Planned: "tag_hash(20260731, req) < 0.05"}},
		{"chaos-one-window", ingest.Options{}, []string{"../fixtures/chaos/gunluk.json"}, report.Options{Window: hypothesis.Window{N: 400}, Planned: "tag_hash(20260731, req) < 0.05"}},
		{"chaos-k2-no-plan", ingest.Options{}, []string{"../fixtures/chaos/gunluk.json"}, report.Options{StopAfter: 2}},
		{"k6-checkout", ingest.Options{Experiment: "checkout", Roles: map[string]string{"baseline": "control", "chaos": "experiment"}},
			[]string{"../fixtures/k6/baseline.json", "../fixtures/k6/chaos.json"}, report.Options{Window: hypothesis.Window{N: 20}}},
		{"k6-checkout-no-window", ingest.Options{Experiment: "checkout", Roles: map[string]string{"baseline": "control", "chaos": "experiment"}},
			[]string{"../fixtures/k6/baseline.json", "../fixtures/k6/chaos.json"}, report.Options{}},
		{"k6-checkout-burn-rate", ingest.Options{Experiment: "checkout", Roles: map[string]string{"baseline": "control", "chaos": "experiment"}},
			[]string{"../fixtures/k6/baseline.json", "../fixtures/k6/chaos.json"},
			report.Options{Window: hypothesis.Window{N: 20}, SLO: "0.99", BurnRules: []hypothesis.BurnRule{mustRules(t, "1s/5s>10")[0], mustRules(t, "5s/10s>2")[0]}}},
		{"k6-thresholds-recorded", ingest.Options{}, []string{"../ingest/testdata/real/k6/error-502-checks/input.json"}, report.Options{}},
		{"k6-thresholds-given", ingest.Options{}, []string{"../ingest/testdata/real/k6/error-502-checks/input.json"},
			report.Options{Thresholds: mustThresholds(t, "iterations: count>=8", "http_req_duration: p(99)<5000")}},
		{"hypotheses-checkout", ingest.Options{}, []string{"../fixtures/hypotheses/checkout.ndjson"}, report.Options{Window: hypothesis.Window{Ms: 10000}}},
		{"peaks", ingest.Options{}, []string{"../fixtures/peaks/sekil1.csv"}, report.Options{}},
		{"storm", ingest.Options{}, []string{"../fixtures/storm/tiny.ndjson"}, report.Options{}},
		{"retry", ingest.Options{}, []string{"../fixtures/retry/tiny.ndjson"}, report.Options{}},
		{"live-experiment", ingest.Options{}, []string{"../fixtures/chaos/live-experiment.ndjson"}, report.Options{}},
		// A real nginx log without a plan, with a fault from 15 s to 30 s
		// (fixtures/changes): the verdict names the incident found and
		// judges it; with rules short enough to fit the 40 s run, the burn
		// rate fires in it.
		{"nginx-fault", ingest.Options{LogFormat: nginxFaultFormat}, []string{"../fixtures/changes/access.log.gz"}, report.Options{}},
		{"nginx-fault-burn-rate", ingest.Options{LogFormat: nginxFaultFormat}, []string{"../fixtures/changes/access.log.gz"},
			report.Options{SLO: "0.99", BurnRules: mustRules(t, "2s/10s>10")}},
	}
}

const nginxFaultFormat = `$msec $status $request_time "$request" $request_id`

// build ingests the fixture into a new database and builds its report.
func (c fixtureReport) build(t *testing.T) report.Document {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rewind.duckdb")
	ctx := context.Background()
	db, err := store.Open(ctx, path, store.Options{Mode: store.Write})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := ingest.Files(ctx, db, c.in, c.paths); err != nil {
		t.Fatal(err)
	}
	o := c.opts
	o.Name = asFlag
	doc, err := report.Build(db, o)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// asFlag names a parameter as the CLI's flag, so that the goldens read as
// the CLI's report.
func asFlag(p string) string { return "--" + p }

func mustRules(t *testing.T, s string) []hypothesis.BurnRule {
	t.Helper()
	r, err := hypothesis.ParseBurnRules(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustThresholds(t *testing.T, specs ...string) []analyze.Threshold {
	t.Helper()
	var out []analyze.Threshold
	for _, s := range specs {
		th, err := analyze.ParseThreshold(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, th)
	}
	return out
}

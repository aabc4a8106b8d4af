package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/internal/progress"
	rpt "github.com/rewind-dev/rewind/report" // "report" is cli.go's error printer
	"github.com/rewind-dev/rewind/store"
)

const reportUsage = `Usage: rewind report [flags] [FILE...]

A report of one experiment: a section for each analysis the log supports
(blast radius, falsification sweep, stop-damage, the timeline of ok share
per window with the stop marked as 'rewind replay' decides it, the 100 ms vs
1 s resolution comparison with its peaks, amplification, retries), with the
same numbers as 'rewind analyze'. Printed as text, with --format json as
one JSON object (the verdict first, numbers as numbers), or with --html
written as one self-contained page with charts (no network needed to view
it). FILE arguments are ingested into --db first (an identical file is
skipped), so one command goes from a log to a report; the report itself is
built from a read-only, sandboxed open, as rewind sql's.

The timeline follows the hypothesis: --metric (p95 for a latency canary),
--control/--treatment or --baseline-until, and a threshold (--margin,
--tolerance, --max 250ms as an SLO, --min), drawn as a line on the timeline
and, for a latency metric, on the latency charts. The fault window is shaded
on every time chart of the treatment: from --start (a request position),
else the Chaos Toolkit actions ingested with the log, else the stored
affected interval or start.

--html - writes the page to stdout. --html never overwrites the database or
an input, and replaces an existing file only when it is a page rewind wrote;
--force replaces any other file. The page is written whole or not at all.

A k6 log's recorded thresholds (or --threshold) add a thresholds section,
--slo a burn-rate section (--rules, --good, --period as in 'rewind analyze
burn-rate'); the verdict that opens the report gives their answers. The
footer names the rewind version and the date (SOURCE_DATE_EPOCH when set).

Examples:
  rewind report --planned 'tag_hash(20260731, req) < 0.05' fixtures/chaos/gunluk.json
  rewind report --metric p95 --max 250ms --window 10s --html canary.html fixtures/hypotheses/checkout.ndjson
  rewind report --html chaos.html
  rewind report --db storm.duckdb --experiment storm --window 1s
  rewind report --format json | jq -r '.verdict.answers[] | .question + ": " + .verdict'
  rewind report --slo 99% --rules '1s/5s>10' --threshold 'http_req_failed: rate<0.01'`

type reportOptions struct {
	hyp    hypothesisFlags // the timeline's hypothesis (readHypothesis)
	db     dbFlags
	html   string
	format string
	force  bool
	window string
	slo    reportSLOFlags
	lib    rpt.Options
}

func init() {
	register(command{name: "report", summary: "a text or self-contained HTML report of an experiment", run: runReport})
}

func runReport(ctx context.Context, e *env, args []string) error {
	var o reportOptions
	fs := newFlags(e, "report", reportUsage)
	o.db.add(fs, false)
	o.hyp.add(fs, false, false)
	fs.Int64Var(&o.lib.Start, "start", 0, "the treatment run's position where the fault starts, shaded on the charts (default: the stored 'start' or the Chaos Toolkit actions)")
	fs.StringVar(&o.html, "html", "", "write an HTML page to `FILE` (- for stdout) instead of text to stdout")
	fs.StringVarP(&o.format, "format", "f", "table", "output format: table (the text report) or json (the same sections as one JSON object, the verdict first)")
	fs.BoolVar(&o.force, "force", false, "replace an existing --html file that is not a page rewind wrote (never the database or an input)")
	fs.StringVar(&o.lib.Planned, "planned", "", "the blast-radius plan: a SQL boolean over request columns (default: the stored 'planned')")
	addWindow(fs, &o.window)
	fs.Float64Var(&o.lib.Margin, "margin", hypothesis.DefaultMargin, "timeline and stop-damage margin below the baseline, as a share")
	fs.Int64Var(&o.lib.StopAfter, "stop-after", 1, "consecutive falsified windows that stop the experiment (the timeline's mark)")
	o.slo.add(fs)
	var eng engineFlags
	eng.add(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if eng.on() && fs.Changed("db") {
		return usagef("--spark reads a dataset, not a database: give --dataset PATH instead of --db")
	}
	if eng.on() && o.db.dataset == "" {
		return usagef("--spark reads a dataset: give --dataset PATH too")
	}
	if err := o.slo.read(fs, &o.lib); err != nil {
		return err
	}
	var err error
	if o.lib.Window, err = windowFlag(o.window); err != nil {
		return err
	}
	if o.lib.StopAfter < 1 {
		return usagef("--stop-after %d: want 1 or more consecutive windows", o.lib.StopAfter)
	}
	o.lib.MarginSet = fs.Changed("margin")
	if err := o.readHypothesis(fs); err != nil {
		return err
	}
	o.lib.Experiment = o.db.experiment
	o.lib.Source = strings.Join(fs.Args(), ", ")
	if o.lib.Source == "" {
		o.lib.Source = o.db.db
	}
	if fs.Changed("html") && o.html == "" {
		return usagef(`--html "": want a FILE, or - for stdout`)
	}
	if err := o.checkFormat(fs); err != nil {
		return err
	}
	if o.html != "" && o.html != "-" {
		protected := dbGuards(o.db.db)
		for _, f := range fs.Args() {
			protected = append(protected, guarded{f, "an input of this report"})
		}
		if err := checkOutput(fs, "html", o.html, htmlPage, o.force, protected...); err != nil {
			return err // before anything is ingested
		}
	}
	if err := ingestForReport(ctx, e, &o.db, fs.Args()); err != nil {
		return err
	}
	if eng.on() {
		return eng.report(ctx, e, &o)
	}
	db, err := o.db.openRead(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	return writeReport(ctx, e, &o, func(lib rpt.Options) (rpt.Document, error) {
		return rpt.Build(store.WithContext(ctx, db), lib)
	})
}

// readHypothesis reads the hypothesis flags the timeline and the latency
// charts follow; --margin stays the report's margin for a share metric.
func (o *reportOptions) readHypothesis(fs *pflag.FlagSet) error {
	var bounds []hypothesis.Bound
	var err error
	if o.lib.Hypothesis, bounds, err = o.hyp.read("margin", false); err != nil {
		return err
	}
	if len(bounds) == 1 && bounds[0].Kind != "margin" {
		o.lib.Bound = &bounds[0]
	}
	if o.lib.StartSet = fs.Changed("start"); o.lib.StartSet && o.lib.Start < 0 {
		return usagef("--start %d: want a position, 0 or more", o.lib.Start)
	}
	return nil
}

// reportFormats are the values of report's --format.
var reportFormats = []string{"table", "json"}

// checkFormat refuses a --format the report has no writer for: a report
// is sections of tables, not one table (csv), and --html is a format of its
// own.
func (o *reportOptions) checkFormat(fs *pflag.FlagSet) error {
	switch {
	case o.format == "csv":
		return usagef("--format csv: a report is many tables, not one; want table or json (each analysis prints csv: rewind analyze NAME --format csv)")
	case !slices.Contains(reportFormats, o.format):
		return usagef("--format %q: want table or json", o.format)
	case o.html != "" && fs.Changed("format"):
		return usagef("--format with --html: the page is its own format; give one of them")
	}
	return nil
}

// ingestForReport ingests files (if any) into the database. It closes the
// writable open before the report is built, so the report's queries (the
// --planned predicate among them) run in the read-only sandbox.
func ingestForReport(ctx context.Context, e *env, d *dbFlags, files []string) error {
	if len(files) == 0 {
		return nil
	}
	if err := d.noDataset("files to ingest"); err != nil {
		return err
	}
	db, err := d.opts.open(ctx, d.db, true)
	if err != nil {
		return err
	}
	defer db.Close()
	results, err := ingest.Files(ctx, db, ingest.Options{}, files)
	if err != nil {
		return err
	}
	// stdout is the report, so what ingest did goes to stderr, in the
	// words rewind ingest uses.
	if err := printIngested(e.stderr, e.stderr, results, "table"); err != nil {
		return err
	}
	return db.Close()
}

// writeReport builds the report (build: on a database, or on an engine)
// and prints or writes it.
func writeReport(ctx context.Context, e *env, o *reportOptions, build func(rpt.Options) (rpt.Document, error)) error {
	var bar *progress.Bar // by section; nil until the total is known
	o.lib.Progress = func(done, total int) {
		if bar == nil {
			bar = progress.New(e.stderr, e.stderrTTY, int64(total), "report", "sections")
		}
		bar.Set(int64(done))
	}
	o.lib.Name = flagName // the notes' hints name the flags to give
	doc, err := build(o.lib)
	bar.Finish()
	if err != nil {
		return explain(err, "rewind report")
	}
	switch o.html {
	case "":
		if o.format == "json" {
			return rpt.RenderJSON(e.stdout, doc)
		}
		return rpt.RenderText(e.stdout, doc)
	case "-":
		return rpt.RenderHTML(e.stdout, doc)
	}
	if err := writeOutput(o.html, func(w io.Writer) error { return rpt.RenderHTML(w, doc) }); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	fmt.Fprintf(e.stdout, "wrote %s (%d sections)\n", o.html, len(doc.Sections))
	return nil
}

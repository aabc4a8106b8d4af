package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/ingest/format/clf/logformat"
	"github.com/rewind-dev/rewind/internal/progress"
	"github.com/rewind-dev/rewind/store"

	"github.com/spf13/pflag"
)

const ingestUsage = `Usage: rewind ingest [flags] FILE|FOLDER|-...

Load request logs into the database, in one transaction: when a file is bad,
nothing of this ingest is loaded and the error names file:line:field.
Reads the files load-test, chaos and tracing tools write as they are (k6,
Vegeta, JMeter, Gatling, Locust, HAR, OpenTelemetry, Chaos Toolkit; nginx,
Apache, Traefik, Caddy and Envoy access logs) and rewind's canonical NDJSON, JSON, CSV, Parquet and Arrow,
detected from content (--from overrides; 'rewind ingest --formats' lists
them), gzip- or zstd-compressed or not. "-" reads standard input; a folder
loads every file in it whose format is recognised; a quoted glob is
expanded. Without --experiment each file is its own experiment, named from
the file; with it, the files are the runs of that experiment, named from
the files where their rows name none. Standard input is called --name, else
stdin-1, stdin-2... Rows of two files never merge without a word: a name
made from a file that another file's rows already hold takes a suffix
(results-2) and a warning, rows that name another file's run are refused
unless --append joins them, and a second control or experiment run from
another file is refused unless --role gives it that role. Re-ingesting an
identical file does nothing and says so.

Each file gets a line on stdout saying what it gave; --format json (one
JSON array) or csv makes it a record per file with the keys path, format,
compression, experiment, rows, events, resolution_ms, skipped and why.

Examples:
  rewind ingest fixtures/chaos/gunluk.json
  rewind ingest --experiment checkout --role baseline=control --role chaos=experiment baseline.json chaos.json journal.json
  rewind ingest results/
  rewind ingest --format json results/ | jq '.[] | select(.skipped)'
  rewind ingest /var/log/nginx/access.log
  rewind ingest --log-format '%h %l %u %t "%r" %>s %O "%{Referer}i" "%{User-Agent}i" %D' /var/log/apache2/access.log
  rewind ingest --server lighttpd --log-format 'accesslog.format = "%h %l %u %t \"%r\" %>s %b %D"' access.log
  rewind ingest --map ts=time --map latency_ms='duration / 1e6' --time-is end service.log
  k6 run --out json=- script.js | rewind ingest --from k6 --name checkout-k6.json -
  rewind ingest --map latency_ms=elapsed --map "outcome=CASE WHEN success THEN 'ok' ELSE 'error' END" log.csv
  rewind ingest --set 'planned=tag_hash(20260731, req) < 0.05' fixtures/chaos/gunluk.json`

type ingestOptions struct {
	db, dataset, experiment, run, name, from, okStatus string
	logFormat, server, timeIs, maxRecord, format       string
	maxRatio                                           int64
	set, maps, roles                                   []string
	replace, append, listFormats                       bool
}

func init() {
	register(command{name: "ingest", summary: "load request logs into the database", run: runIngest})
}

func runIngest(ctx context.Context, e *env, args []string) error {
	o, open, fs := ingestFlags(e)
	if err := parse(fs, args); err != nil {
		return err
	}
	if o.listFormats {
		for _, f := range ingest.FormatTable(flagName) {
			fmt.Fprintf(e.stdout, "%-13s %s\n", f[0], f[1])
		}
		return nil
	}
	if err := o.check(fs); err != nil {
		return err
	}
	opts, err := o.options(e)
	if err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError{hinted{fmt.Errorf("no file to ingest"), "rewind ingest FILE..."}}
	}
	if dir, ok, err := datasetArg(fs.Args(), o.dataset != ""); err != nil || ok {
		if err != nil {
			return err
		}
		return loadDataset(ctx, e, fs, open, o.db, dir)
	}
	if err := ingest.CheckArgs(fs.Args()); err != nil {
		return err // before the database is opened, so a typo creates no file
	}
	if o.dataset != "" {
		return convertFiles(ctx, e, fs, open, opts, *o)
	}
	return ingestInto(ctx, e, fs, open, opts, o)
}

func ingestFlags(e *env) (*ingestOptions, *openFlags, *pflag.FlagSet) {
	o := &ingestOptions{}
	fs := newFlags(e, "ingest", ingestUsage)
	fs.StringVar(&o.db, "db", store.DefaultDB, "database file (created when missing)")
	fs.StringVar(&o.dataset, "dataset", "", "write the files into the Parquet dataset in `DIR` (created when missing), each file its own parts, instead of a database")
	fs.StringVarP(&o.experiment, "experiment", "e", "", "experiment name for every row (default: the row's, else the file name); the files become its runs")
	fs.StringVar(&o.run, "run", "", "run name for rows that give none")
	fs.StringVar(&o.name, "name", "", `what standard input ("-") is called in results and the files table (default: stdin-N)`)
	fs.StringVar(&o.from, "from", "", "input format (default: detected; see --formats)")
	fs.StringVar(&o.logFormat, "log-format", "", "a text access log's layout: the server's own format line, as its configuration writes it (implies --from clf)")
	fs.StringVar(&o.server, "server", "", "the server whose language --log-format is in: "+logformat.ServerNames+" (default: nginx or Apache, told by the line)")
	fs.StringVar(&o.timeIs, "time-is", "start", "what a mapped ts is: start, or end (then start = end - latency)")
	fs.StringArrayVar(&o.maps, "map", nil, "set COLUMN from a SQL expression over the file's own fields, COLUMN=EXPR (repeatable)")
	fs.StringVar(&o.okStatus, "ok-status", ingest.DefaultOkStatus, "HTTP statuses that are ok where a file gives no outcome, e.g. 200-299,404")
	fs.BoolVar(&o.replace, "replace", false, "a file ingested before whose content changed: load it instead of the earlier content")
	fs.BoolVar(&o.append, "append", false, "join what is there: a changed file's new content is added to the earlier, a file's rows join the experiment or run of its name")
	fs.StringArrayVar(&o.roles, "role", nil, "give run RUN the role ROLE (control or experiment), RUN=ROLE (repeatable)")
	fs.StringArrayVar(&o.set, "set", nil, "store KEY=VALUE with the experiment (repeatable), e.g. window=40, planned=SQL")
	fs.StringVar(&o.maxRecord, "max-record", "64MiB", "refuse a record (a line; a CSV record) longer than SIZE; a format read as one document (JSON array, HAR, OTLP, Chaos Toolkit) may be 16 times as long")
	fs.Int64Var(&o.maxRatio, "max-ratio", ingest.DefaultMaxRatio, "refuse a .gz or .zst that decompresses to more than N times its size (past its first 64 MiB)")
	fs.BoolVar(&o.listFormats, "formats", false, "list the formats rewind reads, in detection order, and exit")
	fs.StringVarP(&o.format, "format", "f", "table", "output format of the line per file: table (a sentence), json or csv")
	open := &openFlags{}
	open.add(fs)
	return o, open, fs
}

// check reads what the flags say of the output and the layout: the
// output format, an empty --log-format.
func (o *ingestOptions) check(fs *pflag.FlagSet) error {
	if err := checkRowFormat(o.format); err != nil {
		return err
	}
	if fs.Changed("log-format") && strings.TrimSpace(o.logFormat) == "" {
		return usagef("--log-format is empty: give the server's format line, e.g. --log-format '%%h %%l %%u %%t \"%%r\" %%>s %%b %%D'")
	}
	return nil
}

// ingestInto loads the files into the database, which a failed first
// ingest leaves behind no more.
func ingestInto(ctx context.Context, e *env, fs *pflag.FlagSet, open *openFlags, opts ingest.Options, o *ingestOptions) (err error) {
	db, err := open.open(ctx, o.db, true)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			db.Discard()
		} else {
			db.Close()
		}
	}()
	bar := progressBars(e, &opts)
	results, err := ingest.Files(ctx, db, opts, fs.Args())
	bar.finish()
	if err != nil {
		return ingestError(fs, err)
	}
	return printIngested(e.stdout, e.stderr, results, o.format)
}

// fileBars draws one progress bar per file, its total the file's size in
// bytes, on a terminal.
type fileBars struct {
	bar   *progress.Bar
	total int64
}

func progressBars(e *env, opts *ingest.Options) *fileBars {
	b := &fileBars{}
	if e.stderrTTY {
		opts.Progress = func(done, total int64) {
			if b.bar == nil || total != b.total {
				b.bar.Finish()
				b.bar, b.total = progress.NewBytes(e.stderr, e.stderrTTY, total, "ingest"), total
			}
			b.bar.Set(done)
		}
	}
	return b
}

func (b *fileBars) finish() { b.bar.Finish() }

// ingestError is an ingest's error, with the command that would work
// where the library names a parameter to change (ingest.HintedError).
func ingestError(fs *pflag.FlagSet, err error) error {
	var h *ingest.HintedError
	if errors.As(err, &h) {
		return hinted{err, rerun(fs, strings.TrimPrefix(flagName(h.Param), "--"), h.Value)}
	}
	return err
}

// options turns the flags into ingest options; a bad value is a usage error.
func (o *ingestOptions) options(e *env) (ingest.Options, error) {
	if o.from != "" && !slices.Contains(ingest.Formats, o.from) {
		return ingest.Options{}, usagef("--from %q: want one of %s", o.from, strings.Join(ingest.Formats, ", "))
	}
	if o.replace && o.append {
		return ingest.Options{}, usagef("--replace and --append exclude each other")
	}
	if _, ok := logformat.Servers[o.server]; o.server != "" && !ok {
		return ingest.Options{}, usagef("--server %q: want one of %s", o.server, logformat.ServerNames)
	}
	if o.timeIs != "start" && o.timeIs != "end" {
		return ingest.Options{}, usagef("--time-is %q: want start or end", o.timeIs)
	}
	params, err := keyValues(o.set, "--set", "KEY=VALUE")
	if err != nil {
		return ingest.Options{}, err
	}
	roles, err := keyValues(o.roles, "--role", "RUN=ROLE")
	if err != nil {
		return ingest.Options{}, err
	}
	opts := ingest.Options{Roles: roles, Experiment: o.experiment, Run: o.run, Name: o.name, From: o.from, Params: params, OkStatus: o.okStatus, LogFormat: o.logFormat, Server: o.server, TimeIs: o.timeIs,
		Replace: o.replace, Append: o.append, Stdin: e.stdin}
	if _, err := ingest.ParseStatusRanges(o.okStatus); err != nil {
		return opts, usageError{err}
	}
	if opts.MaxRecord, err = ingest.ParseSize(o.maxRecord); err != nil {
		return opts, usagef("--max-record %v", err)
	}
	if opts.MaxRatio = o.maxRatio; o.maxRatio < 1 {
		return opts, usagef("--max-ratio %d: want 1 or more", o.maxRatio)
	}
	for _, m := range o.maps {
		mp, err := ingest.ParseMap(m)
		if err != nil {
			return opts, usageError{err}
		}
		opts.Maps = append(opts.Maps, mp)
	}
	return opts, nil
}

// printIngested says what each file gave on out, and its warnings on
// warn (report prints the same lines, both on stderr): a sentence a file,
// or with json and csv a record a file.
func printIngested(out, warn io.Writer, results []ingest.Result, format string) error {
	for _, r := range results {
		for _, w := range r.Warnings {
			fmt.Fprintf(warn, "Warning: %s\n", cleanLines(r.Path+": "+flagged(w)))
		}
	}
	if !isData(format) {
		for _, r := range results {
			fmt.Fprintln(out, cleanLines(ingestedLine(r)))
		}
		return nil
	}
	rw, err := analyze.NewRowWriter(out, format, ingestedColumns)
	if err != nil {
		return err
	}
	for _, r := range results {
		res := any(r.ResolutionMs)
		if r.ResolutionMs == 0 {
			res = nil // no times
		}
		why := ""
		if r.Why != nil {
			why = flagged(r.Why)
		}
		row := []any{r.Path, r.Format, r.Compression, r.Experiment, r.Rows, r.Events, res, r.Skipped, why}
		if err := rw.Row(row); err != nil {
			return err
		}
	}
	return rw.Close()
}

var ingestedColumns = []analyze.Column{{Name: "path"}, {Name: "format"}, {Name: "compression"}, {Name: "experiment"},
	{Name: "rows"}, {Name: "events"}, {Name: "resolution_ms"}, {Name: "skipped"}, {Name: "why"}}

// ingestedLine is one file's line: what was loaded, or why nothing was.
func ingestedLine(r ingest.Result) string {
	if r.Skipped {
		if r.Rows == 0 && r.Experiment == "" {
			return fmt.Sprintf("%s: skipped: %s", r.Path, flagged(r.Why))
		}
		return fmt.Sprintf("%s: %s (experiment %s, %s): nothing to do", r.Path, flagged(r.Why), r.Experiment, hypothesis.Plural(r.Rows, "row"))
	}
	format := r.Format
	if r.Compression != "" {
		format += " (" + r.Compression + ")"
	}
	line := fmt.Sprintf("%s: %s, experiment %s: %s", r.Path, format, r.Experiment, hypothesis.Plural(r.Rows, "row"))
	if r.Events > 0 {
		line += ", " + hypothesis.Plural(int64(r.Events), "event")
	}
	return line
}

func keyValues(pairs []string, flag, want string) (map[string]string, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	m := map[string]string{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usagef("%s %q: want %s", flag, p, want)
		}
		m[strings.TrimSpace(k)] = v
	}
	return m, nil
}

package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/internal/progress"
)

const ingestUsage = `Usage: rewind ingest [flags] FILE...

Load request logs into the database, in one transaction: when a file is bad,
nothing of this ingest is loaded and the error names file:line:field.
Formats: the chaos seed's gunluk.json, canonical NDJSON (.ndjson, .jsonl),
JSON arrays, CSV with a header, Parquet, Arrow IPC; detected from content
and extension. Re-ingesting an identical file does nothing and says so.

Examples:
  rewind ingest fixtures/chaos/gunluk.json
  rewind ingest --set 'planned=tag_hash(20260731, req) < 0.05' fixtures/chaos/gunluk.json
  rewind ingest --db storm.duckdb storm.ndjson
  rewind ingest --experiment canary --run baseline --from csv requests.txt`

type ingestOptions struct {
	db, experiment, run, from string
	set                       []string
}

func init() {
	register(command{name: "ingest", summary: "load request logs into the database", run: runIngest})
}

func runIngest(ctx context.Context, e *env, args []string) error {
	var o ingestOptions
	fs := newFlags(e, "ingest", ingestUsage)
	fs.StringVar(&o.db, "db", analyze.DefaultDB, "database file (created when missing)")
	fs.StringVarP(&o.experiment, "experiment", "e", "", "experiment name for every row (default: the row's, else the file name)")
	fs.StringVar(&o.run, "run", "", "run name for rows that give none")
	fs.StringVar(&o.from, "from", "", "input format: "+strings.Join(ingest.Formats, ", ")+" (default: detected)")
	fs.StringArrayVar(&o.set, "set", nil, "store KEY=VALUE with the experiment (repeatable), e.g. window=40, planned=SQL")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError{hinted{fmt.Errorf("no file to ingest"), "rewind ingest FILE..."}}
	}
	params, err := keyValues(o.set)
	if err != nil {
		return err
	}
	db, err := analyze.Open(ctx, o.db, true)
	if err != nil {
		return err
	}
	defer db.Close()
	var bar *progress.Bar // one per file: the total is the file's size in bytes
	var barTotal int64
	results, err := ingest.Files(ctx, db, ingest.Options{
		Experiment: o.experiment, Run: o.run, From: o.from, Params: params,
		Progress: func(done, total int64) {
			if bar == nil || total != barTotal {
				bar.Finish()
				bar, barTotal = progress.New(e.stderr, e.stderrTTY, total, "ingest"), total
			}
			bar.Set(done)
		},
	}, fs.Args())
	bar.Finish()
	if err != nil {
		return err
	}
	for _, r := range results {
		if r.Skipped {
			fmt.Fprintf(e.stdout, "%s: already ingested (experiment %s, %d rows): nothing to do\n", r.Path, r.Experiment, r.Rows)
			continue
		}
		fmt.Fprintf(e.stdout, "%s: %s, experiment %s: %d rows", r.Path, r.Format, r.Experiment, r.Rows)
		if r.Events > 0 {
			fmt.Fprintf(e.stdout, ", %d events", r.Events)
		}
		fmt.Fprintln(e.stdout)
	}
	return nil
}

func keyValues(pairs []string) (map[string]string, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	m := map[string]string{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usagef("--set %q: want KEY=VALUE", p)
		}
		m[strings.TrimSpace(k)] = v
	}
	return m, nil
}

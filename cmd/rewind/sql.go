package main

import (
	"context"
	"fmt"

	"github.com/rewind-dev/rewind/analyze"
	"github.com/rewind-dev/rewind/store"
)

const sqlUsage = `Usage: rewind sql [flags] 'QUERY'

Run ad-hoc SQL against the database, with rewind's macros (the analyses,
windows, experiment_window, tag_hash).

The database is opened read-only, in a sandbox: the query reads the database
and nothing else. It cannot change the database, write any file (COPY ... TO,
EXPORT), read one (read_csv, read_text, glob), ATTACH another database, reach
a URL, or install or load an extension; TEMP tables and macros work.

--write is the one way out: it opens the database for writing with no
sandbox, so the query may change the database and read or write any file this
user can (COPY ... TO, ATTACH, read_csv, INSTALL), as the duckdb CLI would.
A writing open needs the file to itself: no other rewind may have it open.

Examples:
  rewind sql 'SELECT run, outcome, count(*) FROM requests GROUP BY ALL ORDER BY ALL'
  rewind sql --format csv "SELECT * FROM windows('gunluk', 'experiment', size_n := 40)"
  rewind sql --write "DELETE FROM requests WHERE experiment = 'old'"
  rewind sql --write "COPY requests TO 'requests.parquet'"`

func init() {
	register(command{name: "sql", summary: "run ad-hoc SQL (read-only and sandboxed unless --write)", run: runSQL})
}

func runSQL(ctx context.Context, e *env, args []string) error {
	var d dbFlags
	var write bool
	fs := newFlags(e, "sql", sqlUsage)
	d.add(fs, true)
	fs.BoolVar(&write, "write", false, "open the database for writing, without the sandbox: the query may change it and read or write any file")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError{hinted{fmt.Errorf("want one query argument, got %d", fs.NArg()), `rewind sql 'SELECT count(*) FROM requests'`}}
	}
	if err := d.checkFormat(); err != nil {
		return err
	}
	if write {
		if err := d.noDataset("--write"); err != nil {
			return err
		}
	}
	open := d.openRead
	if write {
		open = func(ctx context.Context) (*store.DB, error) { return d.opts.open(ctx, d.db, true) }
	}
	db, err := open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := analyze.SQL(store.WithContext(ctx, db), fs.Arg(0))
	if err != nil && d.dataset != "" && store.Sandboxed(err) {
		return fmt.Errorf("refused: rewind sql reads the dataset and nothing else: %w", err)
	}
	if err != nil && !write && store.Sandboxed(err) {
		return hinted{fmt.Errorf("refused: rewind sql reads the database and nothing else, unless --write: %w", err), rerun(fs, "write", "")}
	}
	if err != nil {
		return err
	}
	return printResult(e, res, d.format)
}

package main

import (
	"context"
	"fmt"

	"github.com/rewind-dev/rewind/analyze"
)

const sqlUsage = `Usage: rewind sql [flags] 'QUERY'

Run ad-hoc SQL against the database, with rewind's macros (the analyses,
windows, experiment_window, tag_hash). Read-only unless --write.

Examples:
  rewind sql 'SELECT run, outcome, count(*) FROM requests GROUP BY ALL ORDER BY ALL'
  rewind sql --format csv "SELECT * FROM windows('gunluk', 'experiment', size_n := 40)"
  rewind sql --write "DELETE FROM requests WHERE experiment = 'old'"`

func init() {
	register(command{name: "sql", summary: "run ad-hoc SQL (read-only unless --write)", run: runSQL})
}

func runSQL(ctx context.Context, e *env, args []string) error {
	var d dbFlags
	var write bool
	fs := newFlags(e, "sql", sqlUsage)
	d.add(fs, true)
	fs.BoolVar(&write, "write", false, "open the database for writing")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError{hinted{fmt.Errorf("want one query argument, got %d", fs.NArg()), `rewind sql 'SELECT count(*) FROM requests'`}}
	}
	if err := d.checkFormat(); err != nil {
		return err
	}
	db, err := analyze.Open(ctx, d.db, write)
	if err != nil {
		return hinted{err, "rewind ingest --db " + d.db + " FILE"}
	}
	defer db.Close()
	res, err := analyze.SQL(analyze.WithContext(ctx, db), fs.Arg(0))
	if err != nil {
		return err
	}
	return printResult(e, res, d.format)
}

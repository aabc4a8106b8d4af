package ingest

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rewind-dev/rewind/ingest/record"
)

// run_pos is a request's 0-based position among the rows of its
// (experiment, run) in seq order: what makes a count window a plain scan
// (position // size) instead of a sort of the run. Ingest gives it as the
// rows stream in: the rows the run already has plus the row's index among
// the file's rows of that run, counted in file order, which is seq order.
// Where that cannot hold (rows emitted out of order, --map setting run or
// experiment, --replace taking rows out of the middle of a run), the runs
// concerned are numbered again in SQL, a sort paid at that ingest only.
// The analyses check that a side's positions are dense before using them
// (a database from before run_pos has none: it sorts, as before, until the
// next ingest into it numbers its runs).

// posSchema is stageSchema with run_pos: what insertRequests reads.
var posSchema = arrow.NewSchema(append(record.Schema.Fields(), arrow.Field{Name: "run_pos", Type: arrow.PrimitiveTypes.Int64}), nil)

type runKey struct{ experiment, run string }

// positioner numbers a file's rows per (experiment, run).
type positioner struct {
	next     map[runKey]int64 // the loader's runCounts, advanced as rows are numbered
	lastOrd  int64
	outOrder bool // a row came with a smaller ord than one before: renumber
	// minTs is the earliest ts (µs) of the rows so far, hasTs whether
	// one had a ts: the file's part in its experiment's time origin
	minTs int64
	hasTs bool
	// what the INSERT's coalesce of the experiment and the run sees
	expArg, runArg, fileRun string
	expFirst, fileRuns      bool
}

// newPositioner numbers from how many rows each run already has: read
// once per ingest (all its files are one transaction) and carried from
// file to file, read again only after rows were taken out or renumbered.
func (l *loader) newPositioner(ctx context.Context, experiment, fileRun string) (*positioner, error) {
	if l.runCounts == nil {
		counts, err := l.readRunCounts(ctx)
		if err != nil {
			return nil, err
		}
		l.runCounts = counts
	}
	return &positioner{next: l.runCounts, lastOrd: -1, expArg: experiment, runArg: l.opts.Run,
		fileRun: fileRun, expFirst: l.opts.Experiment != "", fileRuns: l.fileRuns}, nil
}

func (l *loader) readRunCounts(ctx context.Context) (map[runKey]int64, error) {
	counts := map[runKey]int64{}
	rows, err := l.conn.QueryContext(ctx, `SELECT experiment, run, count(*) FROM requests GROUP BY ALL`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k runKey
		var n int64
		if err := rows.Scan(&k.experiment, &k.run, &n); err != nil {
			return nil, err
		}
		counts[k] = n
	}
	return counts, rows.Err()
}

// key is the row's (experiment, run) as the INSERT computes them.
func (p *positioner) key(exp, run, group *array.String, i int) runKey {
	k := runKey{experiment: p.expArg}
	if !p.expFirst && exp.IsValid(i) {
		k.experiment = exp.Value(i)
	}
	switch {
	case run.IsValid(i):
		k.run = run.Value(i)
	case p.runArg != "":
		k.run = p.runArg
	case p.fileRuns:
		k.run = p.fileRun
	case group.IsValid(i):
		k.run = group.Value(i)
	default:
		k.run = p.fileRun
	}
	return k
}

// wrap adds run_pos to each batch.
func (p *positioner) wrap(in record.Produce) record.Produce {
	return func(ctx context.Context, emit func(arrow.RecordBatch) error) error {
		return in(ctx, func(rb arrow.RecordBatch) error {
			defer rb.Release()
			exp := rb.Column(record.ColExperiment).(*array.String)
			run := rb.Column(record.ColRun).(*array.String)
			group := rb.Column(record.ColGroup).(*array.String)
			ord := rb.Column(record.ColOrd).(*array.Int64)
			p.earliest(rb.Column(record.ColTsUs).(*array.Int64))
			b := array.NewInt64Builder(memory.DefaultAllocator)
			defer b.Release()
			b.Reserve(int(rb.NumRows()))
			// Files hold few runs: a short list searched in order beats a map
			// lookup per row (the map holds them past 8).
			type counter struct {
				k runKey
				n int64
			}
			var few []*counter
			many := map[runKey]*counter{}
			var last *counter
			for i := 0; i < int(rb.NumRows()); i++ {
				if o := ord.Value(i); o < p.lastOrd {
					p.outOrder = true
				} else {
					p.lastOrd = o
				}
				k := p.key(exp, run, group, i)
				if last == nil || k != last.k {
					last = nil
					for _, c := range few {
						if c.k == k {
							last = c
							break
						}
					}
					if last == nil {
						if last = many[k]; last == nil {
							last = &counter{k: k, n: p.next[k]}
							if len(few) < 8 {
								few = append(few, last)
							} else {
								many[k] = last
							}
						}
					}
				}
				b.UnsafeAppend(last.n)
				last.n++
			}
			for _, c := range few {
				p.next[c.k] = c.n
			}
			for k, c := range many {
				p.next[k] = c.n
			}
			pos := b.NewArray()
			defer pos.Release()
			cols := make([]arrow.Array, 0, record.NumCols+1)
			for c := 0; c < int(rb.NumCols()); c++ {
				cols = append(cols, rb.Column(c))
			}
			out := array.NewRecordBatch(posSchema, append(cols, pos), rb.NumRows())
			return emit(out)
		})
	}
}

// earliest takes the batch's times into minTs.
func (p *positioner) earliest(ts *array.Int64) {
	if ts.NullN() == ts.Len() {
		return
	}
	for i, v := range ts.Int64Values() {
		if ts.IsValid(i) && (!p.hasTs || v < p.minTs) {
			p.minTs, p.hasTs = v, true
		}
	}
}

// positionUnnumbered numbers the runs that hold rows without run_pos: a
// database from before run_pos, or rows a user inserted in SQL. It runs
// inside the ingest's transaction, so a failed ingest leaves them as they
// were; the check is answered from the column's statistics when no row
// lacks a position.
func (l *loader) positionUnnumbered(ctx context.Context) error {
	var some bool
	if err := l.conn.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM requests WHERE run_pos IS NULL)`).Scan(&some); err != nil || !some {
		return err
	}
	if err := l.numberRuns(ctx, `SELECT DISTINCT experiment, run FROM requests WHERE run_pos IS NULL`); err != nil {
		return fmt.Errorf("number the rows of earlier runs: %w", err)
	}
	return nil
}

// numberRuns gives every row of the runs that which selects (experiment,
// run) its position, in SQL.
func (l *loader) numberRuns(ctx context.Context, which string, args ...any) error {
	_, err := l.conn.ExecContext(ctx, `UPDATE requests r SET run_pos = p.pos
		FROM (SELECT seq, row_number() OVER (PARTITION BY experiment, run ORDER BY seq) - 1 AS pos
		      FROM requests WHERE (experiment, run) IN (`+which+`)) p
		WHERE r.seq = p.seq`, args...)
	return err
}

// renumberRuns gives the rows of the runs the file has, and of the runs
// in dirty, their positions again, in SQL.
func (l *loader) renumberRuns(ctx context.Context, fileID int64) error {
	dirty := `SELECT DISTINCT experiment, run FROM requests WHERE file_id = $file`
	for _, k := range l.dirtyRuns {
		dirty += fmt.Sprintf(" UNION SELECT %s, %s", quoteString(k.experiment), quoteString(k.run))
	}
	if err := l.numberRuns(ctx, dirty, sql.Named("file", fileID)); err != nil {
		return fmt.Errorf("number the runs' rows: %w", err)
	}
	l.dirtyRuns, l.runCounts = nil, nil
	return nil
}

// mapsRun reports whether a --map sets the run or the experiment: the
// positions counted as the rows streamed in are then of other runs.
func (l *loader) mapsRun() bool {
	for _, m := range l.opts.Maps {
		if m.Column == "run" || m.Column == "experiment" {
			return true
		}
	}
	return false
}

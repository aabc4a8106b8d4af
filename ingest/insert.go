package ingest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rewind-dev/rewind/ingest/record"
	"github.com/rewind-dev/rewind/internal/param"
)

// insertRequests streams the decoder's batches into the requests table.
// Defaults are filled here: role from the run name, attempt 0, count 1,
// tagged false, the outcome from the status where the file gives none. seq
// continues the table's order, so rows of a run keep file order across
// files. What needs the whole file is derived afterwards (finishRows),
// but for req from file order where the file's positions are final as
// they stream in (reqFromPos): there it is run_pos, which fillDerived's
// UPDATE would give again after the insert, at a scan and a sort of the
// runs (a twelfth of a CLF ingest).
func (l *loader) insertRequests(ctx context.Context, p record.Produce, fileID int64, experiment, fileRun string) (int64, error) {
	pos, err := l.newPositioner(ctx, experiment, fileRun)
	if err != nil {
		return 0, err
	}
	checked := pos.wrap(l.requireColumns(validated(p)))
	s := newStream(ctx, posSchema, checked)
	defer s.Release()
	tms, err := l.tmsOrigin(ctx, s, experiment)
	if err != nil {
		return 0, err
	}
	var base int64
	if err := l.conn.QueryRowContext(ctx, `SELECT coalesce(max(seq) + 1, 0) FROM requests`).Scan(&base); err != nil {
		return 0, err
	}
	args := namedArgs(map[string]any{"exp": experiment, "run": nullIfEmpty(l.opts.Run),
		"filerun": fileRun, "base": base, "file": fileID, "origin": tms.origin})
	var n int64
	cols := alwaysGiven
	if first := s.peek(); first != nil {
		cols = givenCols(first)
	}
	for {
		nr := newNarrowed(s, cols)
		err = l.registered(ctx, nr, func(view string) error {
			res, err := l.conn.ExecContext(ctx, l.insertSQL(tms.expr, cols, view), args...)
			if err != nil {
				return err
			}
			rows, err := res.RowsAffected()
			n += rows
			return err
		})
		if err != nil || nr.wider == 0 {
			break
		}
		cols |= nr.wider
	}
	// A decoder stopped by the insert's failure says only "context
	// canceled": then the insert's own error (a full disk, say) is the news.
	if decErr := s.Err(); decErr != nil && !(err != nil && errors.Is(decErr, context.Canceled)) {
		return 0, decErr
	}
	if err != nil {
		return 0, fmt.Errorf("insert requests: %w", err)
	}
	if l.reqFromPos && pos.outOrder {
		return 0, errors.New("insert requests: rows of a line-ordered format came out of order")
	}
	s.Release() // pos is the decoder's until it ended
	if err := l.settleTimes(ctx, tms, pos, fileID, experiment); err != nil {
		return 0, err
	}
	l.renumber = l.renumber || pos.outOrder
	return n, nil
}

// insertSQL is the INSERT of the stage's rows from view, which holds the
// stage's columns of cols (narrowed). Every column of the Arrow view is
// referenced: DuckDB's Arrow scan crashed (SIGSEGV) here when projection
// pushdown dropped one.
func (l *loader) insertSQL(tmsExpr string, cols colSet, view string) string {
	expExpr := "coalesce(experiment, $exp::VARCHAR)"
	if l.opts.Experiment != "" {
		expExpr = "coalesce($exp::VARCHAR, experiment)"
	}
	fileRunExpr := "NULL"
	if l.fileRuns {
		fileRunExpr = "$filerun::VARCHAR"
	}
	runExpr := fmt.Sprintf("coalesce(run, $run::VARCHAR, %s, run_group, $filerun::VARCHAR)", fileRunExpr)
	reqExpr := "req"
	if l.reqFromPos {
		reqExpr = "coalesce(req, CASE WHEN req_text IS NULL THEN run_pos END)"
	}
	return fmt.Sprintf(`INSERT INTO requests
SELECT %s, %s, coalesce(role, CASE WHEN %s IN ('control', 'experiment') THEN %s ELSE '' END),
       $base::BIGINT + ord, %s, req_text, coalesce(attempt, 0), %s, make_timestamp(ts_us), latency_ms,
       coalesce(outcome, %s), status,
       coalesce(tagged, false), user_id, batch_id, client_id, retried, drop_reason, coalesce(count, 1),
       attrs::JSON, $file::INTEGER, line, run_pos
FROM (SELECT %s FROM %s)`, expExpr, runExpr, runExpr, runExpr, reqExpr, tmsExpr, statusOutcomeSQL(l.ok), cols.selectList(), view)
}

// insertTimes is how the insert gives t_ms: from the file (expr "t_ms"),
// or, with tmsFromTs, from ts against origin (µs), the experiment's time
// origin as far as it is known when the insert starts.
type insertTimes struct {
	expr         string
	origin       any   // $origin: int64 µs, or nil
	prior        int64 // the experiment's origin before the file (hasPrior)
	hasPrior, on bool
}

// tmsOrigin decides how the insert gives t_ms. A file whose rows all
// carry a ts and none a t_ms (tmsFromTs) takes t_ms from ts in the
// insert against the earliest ts among the experiment's earlier rows
// and the file's first batch: deriveTimes' UPDATE after the insert would
// write every row again (and the commit then rewrote the column: a sixth
// of a CLF ingest). settleTimes checks the guess once the file is in.
func (l *loader) tmsOrigin(ctx context.Context, s *stream, experiment string) (insertTimes, error) {
	t := insertTimes{expr: "t_ms"}
	if !l.tmsFromTs {
		return t, nil
	}
	first := s.peek()
	if first == nil {
		return t, nil
	}
	var req, ev sql.NullInt64
	if err := l.conn.QueryRowContext(ctx, `SELECT (SELECT epoch_us(min(ts)) FROM requests WHERE experiment = $exp),
		(SELECT epoch_us(min(ts)) FROM events WHERE experiment = $exp)`, sql.Named("exp", experiment)).Scan(&req, &ev); err != nil {
		return t, err
	}
	if ev.Valid && !req.Valid {
		return t, nil // the origin moves from the events' times to the requests': deriveTimes
	}
	p := positioner{}
	p.earliest(first.Column(record.ColTsUs).(*array.Int64))
	if !p.hasTs {
		return t, nil
	}
	origin := p.minTs
	if req.Valid {
		origin = min(origin, req.Int64)
	}
	t.expr, t.origin, t.prior, t.hasPrior, t.on = "coalesce(t_ms, (ts_us - $origin::BIGINT) / 1000.0)", origin, req.Int64, req.Valid, true
	return t, nil
}

// settleTimes keeps the t_ms the insert gave when their origin is the
// experiment's: the file's earliest ts was not before the origin the
// insert used, which was the experiment's own (no earlier file moves
// with it). Otherwise they are taken back, for deriveTimes to give.
func (l *loader) settleTimes(ctx context.Context, t insertTimes, pos *positioner, fileID int64, experiment string) error {
	if !t.on {
		return nil
	}
	origin := t.origin.(int64)
	if pos.minTs >= origin && (!t.hasPrior || t.prior == origin) {
		l.tOrigin = experiment
		return nil
	}
	_, err := l.conn.ExecContext(ctx, `UPDATE requests SET t_ms = NULL WHERE file_id = ?`, fileID)
	return err
}

// requireColumns wraps a decoder with the checks every format shares: each
// attempt names its outcome (or a status it is derived from), and its run
// unless --run, --experiment or the tool's own grouping gives one. A row
// that gives count is a pre-binned series point: it may leave the outcome
// out (stored as NULL, unknown). Columns a --map sets are not required here:
// they are checked after the map ran.
func (l *loader) requireColumns(p record.Produce) record.Produce {
	mapped := map[string]bool{}
	for _, m := range l.opts.Maps {
		mapped[m.Column] = true
	}
	haveRun := l.opts.Run != "" || l.fileRuns || mapped["run"]
	return func(ctx context.Context, emit func(arrow.RecordBatch) error) error {
		return p(ctx, func(rb arrow.RecordBatch) error {
			// a mapped status is not decoded (mapraw.go): the outcome
			// derived from it is checked after the maps, too
			if !mapped["outcome"] && !mapped["status"] {
				if err := checkPresent(rb, record.ColOutcome, "outcome", " (and no status to derive it from)", rb.Column(record.ColCount), rb.Column(record.ColStatus)); err != nil {
					rb.Release()
					return err
				}
			}
			if !haveRun {
				if err := checkPresent(rb, record.ColRun, "run", " (or name the run with {run})", rb.Column(record.ColGroup)); err != nil {
					rb.Release()
					return err
				}
			}
			return emit(rb)
		})
	}
}

// checkPresent fails at the first row where col is null, unless one of the
// excuses (when given) is set on that row.
func checkPresent(rb arrow.RecordBatch, col int, name, hint string, excuses ...arrow.Array) error {
	a := rb.Column(col)
	if a.NullN() == 0 {
		return nil
	}
	lines := rb.Column(record.ColLine).(*array.Int64)
	for i := 0; i < a.Len(); i++ {
		if !a.IsNull(i) {
			continue
		}
		excused := false
		for _, e := range excuses {
			excused = excused || e.IsValid(i)
		}
		if !excused {
			return record.FieldErr(lines.Value(i), name, "missing"+hint)
		}
	}
	return nil
}

// insertEvents loads the side-table rows the file carried.
func (l *loader) insertEvents(ctx context.Context, c *collector, fileID int64, experiment string) (int64, error) {
	if c.nEvents == 0 {
		return 0, nil
	}
	rbs := c.eventBatches()
	defer releaseAll(rbs)
	rr, err := array.NewRecordReader(eventSchema, rbs)
	if err != nil {
		return 0, err
	}
	defer rr.Release()
	expExpr := "coalesce(experiment, $exp::VARCHAR)"
	if l.opts.Experiment != "" {
		expExpr = "coalesce($exp::VARCHAR, experiment)" // every view column referenced: see insertRequests
	}
	var n int64
	err = l.registered(ctx, rr, func(view string) error {
		q := fmt.Sprintf(`INSERT INTO events
SELECT %s, coalesce(run, $run, ''), (SELECT coalesce(max(seq) + 1, 0) FROM events) + row_number() OVER (ORDER BY line, ord) - 1,
       type, t_ms, subject, state, attrs::JSON, $file::INTEGER, line, make_timestamp(ts_us)
FROM %s -- ord is referenced in the window above: every view column is`, expExpr, view)
		res, err := l.conn.ExecContext(ctx, q, namedArgs(map[string]any{"exp": experiment, "run": l.opts.Run, "file": fileID})...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("insert events: %w", err)
	}
	return n, nil
}

// storeMeta records the experiments and runs the file touched, with their
// parameters. Parameters merge into what is stored: the newest value of a
// key wins, other keys stay.
func (l *loader) storeMeta(ctx context.Context, c *collector, fileID int64, experiment string) error {
	name := func(e string) string {
		if l.opts.Experiment != "" || e == "" {
			return experiment
		}
		return e
	}
	exec := func(q string, args ...any) error {
		_, err := l.conn.ExecContext(ctx, q, args...)
		return err
	}
	for _, e := range c.experiments {
		if err := exec(upsertExp, name(e.experiment), nullIfEmpty(e.params)); err != nil {
			return fmt.Errorf("store experiment: %w", err)
		}
	}

	// A run whose rows name more than one role takes its first row's.
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO experiments SELECT DISTINCT experiment, NULL FROM ` + runsSummary + ` ON CONFLICT DO NOTHING`, nil},
		{`INSERT INTO experiments SELECT DISTINCT experiment, NULL FROM events WHERE file_id = ? ON CONFLICT DO NOTHING`, []any{fileID}},
		{`INSERT INTO runs SELECT experiment, run, arg_min(role, first), NULL FROM ` + runsSummary + ` GROUP BY experiment, run ON CONFLICT DO NOTHING`, nil},
	} {
		if err := exec(q.sql, q.args...); err != nil {
			return fmt.Errorf("store runs: %w", err)
		}
	}
	for _, r := range c.runs {
		if err := l.storeRun(ctx, name(r.experiment), r); err != nil {
			return err
		}
	}
	return l.applyRoles(ctx, fileID)
}

// runsSummary is a temporary table of the (experiment, run, role) the
// file's rows name, with the seq of the first row of each (first): the
// checks and stores after the insert read it instead of each scanning
// and hashing the file's rows again (five scans, a tenth of an NDJSON
// ingest's CPU).
const runsSummary = "temp._rewind_file_runs"

// summarizeRuns (re)builds runsSummary for the file's rows as they stand.
func (l *loader) summarizeRuns(ctx context.Context, fileID int64) error {
	_, err := l.conn.ExecContext(ctx, `CREATE OR REPLACE TEMP TABLE _rewind_file_runs AS
		SELECT experiment, run, role, min(seq) AS first FROM requests WHERE file_id = ? GROUP BY ALL`, fileID)
	return err
}

func (l *loader) dropRunsSummary(ctx context.Context) {
	l.conn.ExecContext(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+runsSummary) //nolint:errcheck // it fails only in a failed transaction, whose rollback takes the table too
}

// rolesSet reports whether storeMeta writes roles into the file's rows
// (a role the file's run record or --role gives).
func (l *loader) rolesSet(c *collector) bool {
	if len(l.opts.Roles) > 0 {
		return true
	}
	for _, r := range c.runs {
		if r.hasRole {
			return true
		}
	}
	return false
}

// applyRoles sets the roles --role names on the runs of this file.
func (l *loader) applyRoles(ctx context.Context, fileID int64) error {
	for run, role := range l.opts.Roles {
		for _, q := range []string{
			`UPDATE runs SET role = $role WHERE run = $run AND experiment IN (SELECT DISTINCT experiment FROM requests WHERE file_id = $file AND run = $run)`,
			`UPDATE requests SET role = $role WHERE file_id = $file AND run = $run`,
		} {
			if _, err := l.conn.ExecContext(ctx, q, namedArgs(map[string]any{"role": role, "run": run, "file": fileID})...); err != nil {
				return param.Errorf("role", "{role} %s=%s: %w", run, role, err)
			}
		}
	}
	return nil
}

const upsertExp = `INSERT INTO experiments VALUES (?, ?::JSON) ON CONFLICT (experiment) DO UPDATE
	SET params = CASE WHEN excluded.params IS NULL THEN experiments.params
	                  ELSE json_merge_patch(coalesce(experiments.params, '{}'), excluded.params) END`

// storeParams stores --set parameters with each named experiment
// (comma-separated, as Result.Experiment lists them).
func (l *loader) storeParams(ctx context.Context, experiments string) error {
	for _, e := range strings.Split(experiments, ", ") {
		if _, err := l.conn.ExecContext(ctx, upsertExp, e, paramsJSON(l.opts.Params)); err != nil {
			return param.Errorf("set", "store {set} params: %w", err)
		}
	}
	return nil
}

func (l *loader) storeRun(ctx context.Context, experiment string, r runMeta) error {
	role := strings.TrimSpace(r.role)
	if !r.hasRole {
		role = ""
		if r.run == "control" || r.run == "experiment" {
			role = r.run
		}
	}
	_, err := l.conn.ExecContext(ctx, `INSERT INTO runs VALUES (?, ?, ?, ?::JSON) ON CONFLICT (experiment, run) DO UPDATE
		SET role = CASE WHEN ? THEN excluded.role ELSE runs.role END,
		    params = CASE WHEN excluded.params IS NULL THEN runs.params
		                  ELSE json_merge_patch(coalesce(runs.params, '{}'), excluded.params) END`,
		experiment, r.run, role, nullIfEmpty(r.params), r.hasRole)
	if err != nil {
		return fmt.Errorf("store run %q: %w", r.run, err)
	}
	if r.hasRole {
		_, err = l.conn.ExecContext(ctx, `UPDATE requests SET role = ? WHERE experiment = ? AND run = ? AND role <> ?`,
			role, experiment, r.run, role)
	}
	return err
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

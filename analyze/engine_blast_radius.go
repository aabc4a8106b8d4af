package analyze

import (
	"database/sql"
	"errors"
	"strconv"

	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/store"
)

// BlastRadiusOn is BlastRadius with the per-request work on r's engine, in
// three reduce steps: the block of 65536 seqs that holds the window's first
// position, the seq at that position inside the block, and the window's and
// the control run's sums; each brings back one row. What the experiment
// window is and the result's arithmetic are blast_radius's
// (queries/blast_radius.sql, _experiment_rows in queries/windows.sql). A
// plan is counted in the last step when it has the seeded form
// tag_hash(SEED, req) < SHARE (sparkPlan); any other is refused.
func BlastRadiusOn(r *Remote, o BlastRadiusOptions) (*Result, error) {
	db := r.Querier()
	e, err := store.FindExperiment(db, o.Experiment)
	if err != nil {
		return nil, err
	}
	start, err := o.start(e)
	if err != nil {
		return nil, err
	}
	pred := o.Planned
	if pred == "" {
		pred, _ = e.Text("planned")
	}
	planCols, planCond := "", "false"
	if pred != "" {
		var ok bool
		if planCols, planCond, ok = sparkPlan(pred); !ok {
			return nil, r.NotOnEngine("blast-radius with the plan "+strconv.Quote(pred),
				"a plan is a DuckDB expression, and only the form tag_hash(SEED, req) < SHARE has a Spark translation")
		}
		planCols = ", " + planCols
	}
	first, err := blastFirst(r, e.Name, max(start, 0))
	if err != nil {
		return nil, err
	}
	inWindow := "false"
	if first != nil {
		inWindow = "role = 'experiment' AND (run > " + engine.String(first.run) + " OR (run = " + engine.String(first.run) + " AND seq >= " + engine.Int(first.seq) + "))"
	}
	err = r.reduce("_blast_sums", "planned BIGINT, measured BIGINT, window_requests BIGINT, damaged BIGINT, control_damaged BIGINT, control_requests BIGINT", `
SELECT count(*) FILTER (WHERE w AND `+planCond+`) AS planned,
       coalesce(sum(count) FILTER (WHERE w AND tagged), 0) AS measured,
       coalesce(sum(count) FILTER (WHERE w), 0) AS window_requests,
       coalesce(sum(count) FILTER (WHERE w AND outcome <> 'ok'), 0) AS damaged,
       coalesce(sum(count) FILTER (WHERE role = 'control' AND outcome <> 'ok'), 0) AS control_damaged,
       coalesce(sum(count) FILTER (WHERE role = 'control'), 0) AS control_requests
FROM (SELECT role, tagged, outcome, count, `+inWindow+` AS w`+planCols+`
      FROM requests WHERE experiment = `+engine.String(e.Name)+` AND role IN ('experiment', 'control'))`)
	if err != nil {
		return nil, err
	}
	return Query(db, "blast-radius", store.Units("blast_radius"), `
SELECT CASE WHEN ? THEN planned END AS planned, measured, window_requests,
       measured / nullif(CASE WHEN ? THEN planned END, 0)::DOUBLE AS multiplier,
       damaged, control_damaged, control_requests
FROM _blast_sums`, pred != "", pred != "")
}

type runSeq struct {
	run string
	seq int64
}

// blastFirst is the (run, seq) of the experiment run's row at position k in
// (run, seq) order, or nil past the last row. The first step counts the rows
// per block and finds, on the engine, the block that holds position k:
// a running sum over the blocks (rows / 65536 of them, in one task: the
// only unpartitioned window of the plan, over aggregates), so one row comes
// back however long the log.
func blastFirst(r *Remote, exp string, k int64) (*runSeq, error) {
	err := r.reduce("_blast_hit", "run VARCHAR, b BIGINT, before BIGINT", `
SELECT run, b, before
FROM (SELECT run, b, n, sum(n) OVER (ORDER BY run, b ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - n AS before
      FROM (SELECT run, seq DIV 65536 AS b, count(*) AS n
            FROM requests WHERE experiment = `+engine.String(exp)+` AND role = 'experiment'
            GROUP BY run, seq DIV 65536))
WHERE before <= `+engine.Int(k)+` AND `+engine.Int(k)+` < before + n`)
	if err != nil {
		return nil, err
	}
	var run string
	var b, before int64
	err = r.Querier().QueryRow(`SELECT run, b, before FROM _blast_hit`).Scan(&run, &b, &before)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	err = r.reduce("_blast_first", "seq BIGINT", `
SELECT seq FROM requests
WHERE experiment = `+engine.String(exp)+` AND role = 'experiment' AND run = `+engine.String(run)+` AND seq DIV 65536 = `+engine.Int(b)+`
ORDER BY seq LIMIT 1 OFFSET `+strconv.FormatInt(k-before, 10))
	if err != nil {
		return nil, err
	}
	f := &runSeq{run: run}
	if err := r.Querier().QueryRow(`SELECT seq FROM _blast_first`).Scan(&f.seq); err != nil {
		return nil, err
	}
	return f, nil
}

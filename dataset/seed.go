package dataset

import (
	"context"
	"database/sql"
	"fmt"
)

// seed loads what the dataset holds into a conversion's scratch database,
// so that ingest's rules (repeats, names that must not join another
// file's rows, roles, run positions, req from file order) see it as they
// would a database: the files, experiments and runs tables whole, and for
// requests and events stand-in rows: per (experiment, run, file) as many
// requests as it holds with its seqs' top, its earliest time and its run
// positions, and one event. The stand-ins never leave the scratch
// database: only the converted files' rows are written.
//
// A light seed (full false) holds one stand-in per (experiment, run, file)
// instead of one per request: enough for every rule but those that count
// a run's rows, which matter only when the converted files' rows join a
// run the dataset holds (or are refused for it); Convert then seeds again
// in full (sharedRuns).
func seed(ctx context.Context, db *sql.DB, p *parts, full bool) error {
	for _, t := range []string{"files", "experiments", "runs"} {
		if _, err := db.ExecContext(ctx, "INSERT INTO "+t+" BY NAME "+p.selectSQL(tableNamed(t))); err != nil {
			return fmt.Errorf("read the dataset's %s: %s", t, firstLine(err))
		}
	}
	reqs := `INSERT INTO requests (experiment, run, role, seq, attempt, tagged, count, file_id, line, ts, run_pos)
		SELECT experiment, run, role, top - i, 0, false, 1, file_id, 0, CASE WHEN i = 0 THEN first_ts END, before + n - 1 - i
		FROM (SELECT *, sum(n) OVER (PARTITION BY experiment, run ORDER BY file_id) - n AS before
		      FROM (SELECT experiment, run, any_value(role) AS role, file_id, count(*) AS n, max(seq) AS top, min(ts) AS first_ts
		            FROM (` + p.selectSQL(tableNamed("requests")) + `) GROUP BY experiment, run, file_id)) g,
		     LATERAL range(CASE WHEN $1 THEN g.n ELSE 1 END) r(i)`
	events := `INSERT INTO events (experiment, run, seq, type, file_id, line, ts)
		SELECT experiment, run, max(seq), '', file_id, 0, min(ts) FROM (` + p.selectSQL(tableNamed("events")) + `) GROUP BY experiment, run, file_id`
	if _, err := db.ExecContext(ctx, reqs, full); err != nil {
		return fmt.Errorf("read the dataset's rows: %s", firstLine(err))
	}
	if _, err := db.ExecContext(ctx, events); err != nil {
		return fmt.Errorf("read the dataset's events: %s", firstLine(err))
	}
	return nil
}

// sharedRuns reports whether the converted files' rows went into a run the
// dataset holds.
func sharedRuns(ctx context.Context, db *sql.DB, maxFile int64) (bool, error) {
	var shared bool
	err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT experiment, run FROM requests WHERE file_id > $1
		INTERSECT SELECT experiment, run FROM requests WHERE file_id <= $1)`, maxFile).Scan(&shared)
	return shared, err
}

// seedState is what a conversion must leave as it found it in the seeded
// tables: a part once written is not rewritten.
type seedState struct {
	origins, roles, params string
	rows                   int64
}

func readSeedState(ctx context.Context, db *sql.DB, maxFile int64) (seedState, error) {
	var s seedState
	err := db.QueryRowContext(ctx, `SELECT
		(SELECT coalesce(string_agg(file_id || '=' || coalesce(t_origin::VARCHAR, ''), ',' ORDER BY file_id), '') FROM files WHERE file_id <= $1),
		(SELECT count(*) FROM requests WHERE file_id <= $1) + (SELECT count(*) FROM events WHERE file_id <= $1)`, maxFile).Scan(&s.origins, &s.rows)
	return s, err
}

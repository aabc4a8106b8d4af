package ingest

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// storeGaps stores the run gaps (StoreGaps) of the experiments this ingest
// loaded a Vegeta file into: the only logs whose req analyze omission
// reads as a schedule without a given rate, so the only ones that pay
// for the sort at ingest.
func (l *loader) storeGaps(ctx context.Context, results []Result) error {
	seen := map[string]bool{}
	for _, r := range results {
		if r.Format != "vegeta" {
			continue
		}
		for _, e := range strings.Split(r.Experiment, ", ") {
			if e == "" || seen[e] {
				continue
			}
			seen[e] = true
			if err := storeGaps(ctx, l.conn, e); err != nil {
				return err
			}
		}
	}
	return nil
}

// StoreGaps infers, for each run of the experiment, the median gap
// between consecutive req's sends (analyze omission's interval when no
// rate is given) and stores it in run_gaps with the print of the rows it
// came from (their count and the sum of their (req, start) hashes). The
// inference sorts each run by req: it is paid here, once, for the runs
// whose rows changed since (their print differs from the stored one), and
// omission reads the stored value while the print still matches. Ingest
// calls it, in its transaction, for the experiments it loads Vegeta files
// into; a database loaded otherwise may call it. A database opened without
// rewind's SQL library (a bare *sql.DB) stores none: omission infers the
// gaps when it runs.
func StoreGaps(ctx context.Context, db DB, experiment string) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return storeGaps(ctx, conn, experiment)
}

func storeGaps(ctx context.Context, conn *sql.Conn, experiment string) error {
	var library bool
	if err := conn.QueryRowContext(ctx, `SELECT count(*) > 0 FROM duckdb_functions() WHERE function_name = '_om_runs'`).Scan(&library); err != nil || !library {
		return err
	}
	// A start or a req so far out (a --map, a NaN) that a us or a
	// difference of two would overflow would fail the statement, and the
	// ingest's transaction with it: such runs get no stored gap, and
	// omission names the value when it runs.
	var wild bool
	if err := conn.QueryRowContext(ctx, `SELECT count(*) > 0 FROM requests
		WHERE experiment = $exp AND req IS NOT NULL AND t_ms IS NOT NULL AND NOT (abs(t_ms) < 4e15 AND abs(req) < 4e18)`,
		sql.Named("exp", experiment)).Scan(&wild); err != nil || wild {
		return err
	}
	if _, err := conn.ExecContext(ctx, `INSERT OR REPLACE INTO run_gaps
		SELECT $exp, run, gap_us, sched_rows, check_sum FROM _om_runs($exp, false, true, true) WHERE NOT stored AND sched_rows > 0`,
		sql.Named("exp", experiment)); err != nil {
		return fmt.Errorf("experiment %q: infer the gaps between sends: %w", experiment, err)
	}
	return nil
}

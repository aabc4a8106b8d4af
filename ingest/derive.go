package ingest

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/rewind-dev/rewind/internal/param"
)

// finishRows does what needs the whole file once its rows are in: the
// --map expressions, t_ms from ts, numbers for text request ids, req from
// file order, the file's time resolution, and the outcome check.
func (l *loader) finishRows(ctx context.Context, fileID int64, res *Result) error {
	if err := l.applyMaps(ctx, fileID); err != nil {
		return err
	}
	if l.renumber || len(l.dirtyRuns) > 0 || l.mapsRun() {
		if err := l.renumberRuns(ctx, fileID); err != nil {
			return err
		}
		l.renumber = false
	}
	if err := l.fillDerived(ctx, fileID); err != nil {
		return err
	}
	if err := l.deriveTimes(ctx, fileID); err != nil {
		return err
	}
	var err error
	if res.ResolutionMs, err = l.resolution(ctx, fileID); err != nil {
		return err
	}
	w, err := l.outcomeWarning(ctx, fileID)
	if w != nil {
		res.Warnings = append(res.Warnings, w)
	}
	return err
}

func (l *loader) queryBool(ctx context.Context, q string, args ...any) (bool, error) {
	var b bool
	err := l.conn.QueryRowContext(ctx, q, args...).Scan(&b)
	return b, err
}

// fillDerived numbers text request ids and gives req from file order when
// the file gives none. Each runs only when some row needs it.
func (l *loader) fillDerived(ctx context.Context, fileID int64) error {
	steps := []string{
		`UPDATE requests r SET req = -k.n
		 FROM (SELECT experiment, run, req_text, dense_rank() OVER (PARTITION BY experiment, run ORDER BY min(seq)) AS n
		       FROM requests WHERE file_id = $file AND req_text IS NOT NULL GROUP BY experiment, run, req_text) k
		 WHERE r.file_id = $file AND r.req IS NULL AND r.req_text = k.req_text AND r.experiment = k.experiment AND r.run = k.run`,
		`UPDATE requests r SET req = p.pos
		 FROM (SELECT seq, row_number() OVER (PARTITION BY experiment, run ORDER BY seq) - 1 AS pos
		       FROM requests WHERE (experiment, run) IN (SELECT DISTINCT experiment, run FROM requests WHERE file_id = $file AND req IS NULL)) p
		 WHERE r.file_id = $file AND r.req IS NULL AND r.seq = p.seq`,
	}
	needs := []string{"req_text IS NOT NULL AND req IS NULL", "req IS NULL"}
	for i, q := range steps {
		need, err := l.queryBool(ctx, `SELECT EXISTS (SELECT 1 FROM requests WHERE file_id = $file AND `+needs[i]+`)`, sql.Named("file", fileID))
		if err != nil {
			return err
		}
		if !need {
			continue
		}
		if _, err := l.conn.ExecContext(ctx, q, sql.Named("file", fileID)); err != nil {
			return fmt.Errorf("derive columns: %w", err)
		}
	}
	return nil
}

// deriveTimes gives rows that carry a wall-clock ts but no t_ms their t_ms:
// milliseconds, to the microsecond, since the experiment's origin, the
// earliest ts of its requests (of its events when it has no request
// times). Every file of an experiment shares the origin, so runs recorded
// together keep their relative timing; when a new file starts earlier,
// the rows of the experiment's earlier files move with the origin.
func (l *loader) deriveTimes(ctx context.Context, fileID int64) error {
	need, err := l.queryBool(ctx, `SELECT EXISTS (SELECT 1 FROM requests WHERE file_id = $1 AND ts IS NOT NULL AND t_ms IS NULL)
		OR EXISTS (SELECT 1 FROM events WHERE file_id = $1 AND ts IS NOT NULL AND t_ms IS NULL)`, fileID)
	if err != nil || !need {
		return err
	}
	rows, err := l.conn.QueryContext(ctx, `SELECT DISTINCT experiment FROM requests WHERE file_id = $1 AND ts IS NOT NULL
		UNION SELECT DISTINCT experiment FROM events WHERE file_id = $1 AND ts IS NOT NULL ORDER BY 1`, fileID)
	if err != nil {
		return err
	}
	var exps []string
	for rows.Next() {
		var e string
		if err := rows.Scan(&e); err != nil {
			rows.Close()
			return err
		}
		exps = append(exps, e)
	}
	rows.Close()
	for _, e := range exps {
		if err := l.deriveTimesOf(ctx, fileID, e); err != nil {
			return err
		}
	}
	return nil
}

// originSQL is the ts that t_ms 0 stands for in experiment $exp.
const originSQL = `coalesce((SELECT min(ts) FROM requests WHERE experiment = $exp),
	(SELECT min(ts) FROM events WHERE experiment = $exp))`

func (l *loader) deriveTimesOf(ctx context.Context, fileID int64, exp string) error {
	args := []any{sql.Named("file", fileID), sql.Named("exp", exp)}
	// Earlier files whose origin is no longer the experiment's move with it.
	moved := `(SELECT file_id FROM files WHERE experiment = $exp AND t_origin IS NOT NULL AND t_origin <> ` + originSQL + `)`
	for _, q := range []string{
		`UPDATE requests SET t_ms = (epoch_us(ts) - epoch_us(` + originSQL + `)) / 1000.0
		 WHERE experiment = $exp AND ts IS NOT NULL AND (file_id = $file AND t_ms IS NULL OR file_id IN ` + moved + `)`,
		`UPDATE events SET t_ms = (epoch_us(ts) - epoch_us(` + originSQL + `)) / 1000.0
		 WHERE experiment = $exp AND ts IS NOT NULL AND (file_id = $file AND t_ms IS NULL OR file_id IN ` + moved + `)`,
		`UPDATE files SET t_origin = ` + originSQL + ` WHERE file_id IN ` + moved,
	} {
		if _, err := l.conn.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("derive t_ms: %w", err)
		}
	}
	l.tOrigin = exp
	return nil
}

// recordOrigin stores the origin the file's derived t_ms are relative to.
func (l *loader) recordOrigin(ctx context.Context, fileID int64) error {
	if l.tOrigin == "" {
		return nil
	}
	_, err := l.conn.ExecContext(ctx, `UPDATE files SET t_origin = `+originSQL+` WHERE file_id = $file`,
		sql.Named("file", fileID), sql.Named("exp", l.tOrigin))
	return err
}

// resolution is the coarsest step every time of the file is a multiple of:
// 1000 ms when they are whole seconds (k6's CSV), down to 0.001 ms. Files
// with fewer than two distinct times have none (0).
func (l *loader) resolution(ctx context.Context, fileID int64) (float64, error) {
	var r sql.NullFloat64
	err := l.conn.QueryRowContext(ctx, `SELECT CASE
		WHEN min(us) IS NULL OR min(us) = max(us) THEN NULL
		WHEN bool_and(us % 1000000 = 0) THEN 1000
		WHEN bool_and(us % 100000 = 0) THEN 100
		WHEN bool_and(us % 10000 = 0) THEN 10
		WHEN bool_and(us % 1000 = 0) THEN 1
		ELSE 0.001 END
		FROM (SELECT coalesce(epoch_us(ts), round(t_ms * 1000)::BIGINT) AS us FROM requests WHERE file_id = ? AND (ts IS NOT NULL OR t_ms IS NOT NULL))`,
		fileID).Scan(&r)
	return r.Float64, err
}

// outcomeWarning reports outcome values outside KnownOutcomes, with counts.
func (l *loader) outcomeWarning(ctx context.Context, fileID int64) (*param.Error, error) {
	known := "'" + strings.Join(KnownOutcomes, "', '") + "'"
	var s sql.NullString
	err := l.conn.QueryRowContext(ctx, `SELECT string_agg(format('"{}" ×{}', outcome, n), ', ' ORDER BY n DESC, outcome)
		FROM (SELECT outcome, count(*) AS n FROM requests WHERE file_id = ? AND outcome IS NOT NULL AND outcome NOT IN (`+known+`) GROUP BY outcome)`,
		fileID).Scan(&s)
	if err != nil || !s.Valid {
		return nil, err
	}
	return param.Textf("outcome values outside %s count as not ok: %s (map them with {map} outcome=EXPR)",
		strings.Join(KnownOutcomes, ", "), s.String), nil
}

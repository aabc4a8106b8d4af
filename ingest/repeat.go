package ingest

import (
	"context"
	"database/sql"
	"errors"

	"github.com/rewind-dev/rewind/internal/param"
)

// repeatBeforeDecode answers a re-ingest without decoding: only when a file
// of the same size was ingested under the same --experiment is the file
// hashed first (the one case where a pass before decoding pays).
func (l *loader) repeatBeforeDecode(ctx context.Context, in *input, res *Result) (bool, error) {
	if in.path == "" {
		return false, nil
	}
	var n int
	if err := l.conn.QueryRowContext(ctx, `SELECT count(*) FROM files WHERE bytes = ? AND named_as = ?`,
		in.size, l.opts.Experiment).Scan(&n); err != nil {
		return false, err
	}
	if n == 0 {
		return false, nil
	}
	sum, err := hashPath(in.path)
	if err != nil {
		return false, err
	}
	return l.already(ctx, sum, res)
}

// repeatAfterDecode finds that the content just loaded was loaded before
// (a pipe, or a file whose size was new): its rows are taken out again.
func (l *loader) repeatAfterDecode(ctx context.Context, sum string, fileID int64, res *Result) (bool, error) {
	format := res.Format
	done, err := l.already(ctx, sum, res)
	if err != nil || !done {
		return false, err
	}
	res.Format = format
	return true, l.dropFile(ctx, fileID)
}

// dirty notes the runs of a file about to be taken out: their positions
// (run_pos) get a gap, so they are numbered again after the new rows are in.
func (l *loader) dirty(ctx context.Context, fileID int64) error {
	rows, err := l.conn.QueryContext(ctx, `SELECT DISTINCT experiment, run FROM requests WHERE file_id = ?`, fileID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k runKey
		if err := rows.Scan(&k.experiment, &k.run); err != nil {
			return err
		}
		l.dirtyRuns = append(l.dirtyRuns, k)
		l.rejoin[k] = true
	}
	return rows.Err()
}

func (l *loader) dropFile(ctx context.Context, fileID int64) error {
	l.runCounts = nil // its runs have fewer rows now
	for _, q := range []string{`DELETE FROM requests WHERE file_id = ?`, `DELETE FROM events WHERE file_id = ?`, `DELETE FROM files WHERE file_id = ?`} {
		if _, err := l.conn.ExecContext(ctx, q, fileID); err != nil {
			return err
		}
	}
	return nil
}

// samePath refuses a path ingested before with other content (it was
// modified in place), unless --replace or --append says what to do.
func (l *loader) samePath(ctx context.Context, in *input, sum string) error {
	if in.path == "" {
		return nil
	}
	rows, err := l.conn.QueryContext(ctx, `SELECT file_id, experiment, rows, strftime(ingested_at, '%Y-%m-%d %H:%M:%S') FROM files
		WHERE abs_path = ? AND named_as = ? AND sha256 <> ? ORDER BY file_id`, absPath(in.path), l.opts.Experiment, sum)
	if err != nil {
		return err
	}
	type earlier struct {
		id        int64
		exp, when string
		rows      int64
	}
	var prev []earlier
	for rows.Next() {
		var e earlier
		if err := rows.Scan(&e.id, &e.exp, &e.rows, &e.when); err != nil {
			rows.Close()
			return err
		}
		prev = append(prev, e)
	}
	rows.Close()
	if len(prev) == 0 || l.opts.Append {
		return nil
	}
	if l.opts.Replace {
		for _, e := range prev {
			if err := l.dirty(ctx, e.id); err != nil {
				return err
			}
			if err := l.dropFile(ctx, e.id); err != nil {
				return err
			}
		}
		return nil
	}
	e := prev[len(prev)-1]
	return hinted(param.Errorf("replace", "this path was ingested before with other content (experiment %s, %d rows, at %s UTC): it changed since; "+
		"{replace} loads it instead of the earlier content, {append} adds it", e.exp, e.rows, e.when), "replace", "")
}

// HintedError names the parameter that makes the call work, for a
// caller's "Try:" line (the CLI's --flag), with Value when it takes one.
type HintedError struct {
	Err          error
	Param, Value string
}

func (h *HintedError) Error() string { return h.Err.Error() }
func (h *HintedError) Unwrap() error { return h.Err }

func hinted(err error, param, value string) error {
	return &HintedError{Err: err, Param: param, Value: value}
}

func (l *loader) already(ctx context.Context, sum string, res *Result) (bool, error) {
	if prev, ok := l.seen[sum]; ok {
		res.Skipped, res.Experiment, res.Rows, res.Format = true, prev.Experiment, prev.Rows, prev.Format
		res.Why = param.Textf("the same content as %s, loaded above", prev.Path)
		if prev.Path == res.Path {
			res.Why = param.Textf("named twice: loaded once, above")
		}
		return true, nil
	}
	var path, at string
	err := l.conn.QueryRowContext(ctx, `SELECT experiment, format, rows, path, strftime(ingested_at, '%Y-%m-%d %H:%M:%S') FROM files WHERE sha256 = ? AND named_as = ?`,
		sum, l.opts.Experiment).Scan(&res.Experiment, &res.Format, &res.Rows, &path, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	res.Skipped = true
	why, args := "already ingested", []any{}
	if path != res.Path {
		why, args = why+" as %s", append(args, path)
	}
	if len(l.opts.Params) > 0 {
		if err := l.storeParams(ctx, res.Experiment); err != nil {
			return false, err
		}
		why, args = why+"; {set} stored with experiment %s", append(args, res.Experiment)
	}
	res.Why = param.Textf(why, args...)
	return true, nil
}

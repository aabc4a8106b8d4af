package ingest

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"

	"github.com/rewind-dev/rewind/ingest/record"
)

// A source field whose name is a canonical column (Caddy's own ts, in float
// seconds; a latency_ms written "12ms") would be decoded as that column,
// and fail or be lost, before a --map could read it. So a column a --map
// sets is not decoded from the source by canonical NDJSON and CSV: the
// field is kept in attrs under its own name, and in every mapping's scope
// that name is the raw field, typed by its values like any attrs key.
// Once the mappings ran, the raw fields leave attrs: their columns hold
// what was made of them.

// rawFields are the canonical columns the ingest's mappings set; nil when
// there are none.
func (l *loader) rawFields() *record.FieldSet {
	if len(l.opts.Maps) == 0 {
		return nil
	}
	var cols []string
	for _, m := range l.opts.Maps {
		cols = append(cols, m.Column)
	}
	return record.NewFieldSet(cols...)
}

// dropRawFields takes the mapped columns' raw fields out of the file's
// attrs (a JSON merge patch with nulls removes keys), and leaves attrs NULL
// where nothing else was in them.
func (l *loader) dropRawFields(ctx context.Context, fileID int64) error {
	patch := map[string]any{}
	for _, k := range l.rawFields().Keys() {
		patch[k] = nil
	}
	b, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	_, err = l.conn.ExecContext(ctx, `UPDATE requests SET attrs = CASE WHEN p::VARCHAR = '{}' THEN NULL ELSE p END
		FROM (SELECT seq AS s, json_merge_patch(attrs, $patch::JSON) AS p FROM requests WHERE file_id = $file AND attrs IS NOT NULL)
		WHERE file_id = $file AND seq = s`, sql.Named("file", fileID), sql.Named("patch", string(b)))
	return err
}

// mapErrLine finds the first line whose row makes a mapping fail as it is
// evaluated (a cast of a bad value), before a query that would fail on it
// runs: DuckDB's error names no row, and it aborts the ingest's
// transaction. TRY gives NULL where its argument fails, and the COALESCE
// makes a NULL the mapping gives non-NULL, so only a failing row is NULL.
func (l *loader) mapErrLine(ctx context.Context, expr, scope string, args []any) (int64, bool, error) {
	var line sql.NullInt64
	err := l.conn.QueryRowContext(ctx, `SELECT min(line) FROM `+scope+`
		WHERE TRY(COALESCE((`+expr+`)::VARCHAR, '')) IS NULL`, args...).Scan(&line)
	return line.Int64, line.Valid, err
}

// mapRowErr is the error of the mapping m on the row at line, with
// DuckDB's message: evaluated on that row alone, as the ingest's last
// query (it aborts the transaction).
func (l *loader) mapRowErr(ctx context.Context, line int64, m Mapping, expr, scope string, args []any) error {
	var v sql.NullString
	q := `SELECT (` + expr + `)::VARCHAR FROM ` + scope + ` WHERE line = $line`
	err := l.conn.QueryRowContext(ctx, q, append(slices.Clone(args), sql.Named("line", line))...).Scan(&v)
	if err == nil {
		return record.FieldErr(line, m.Column, "{map} %s=%s fails on this row", m.Column, m.Expr)
	}
	return record.FieldErr(line, m.Column, "{map} %s=%s: %s", m.Column, m.Expr, sqlMsg(err))
}

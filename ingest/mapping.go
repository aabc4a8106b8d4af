package ingest

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rewind-dev/rewind/ingest/record"
	"github.com/rewind-dev/rewind/internal/param"
)

// Mapping sets a canonical column from a SQL expression over the source's
// own fields (--map COLUMN=EXPR): one scalar expression, checked against an
// allow-list and evaluated in a sandbox (mapexpr.go). Fields the canonical schema does not name
// (kept in attrs) are columns of the expression's scope, typed by what
// their values are (BIGINT, DOUBLE, BOOLEAN, else VARCHAR); so are the
// canonical columns as decoded, except that a column a --map sets is the
// source's own field of that name, raw (mapraw.go); attrs is one too.
type Mapping struct {
	Column string
	Expr   string
}

// mappable are the canonical columns a --map may set, with their SQL types.
var mappable = map[string]string{
	"experiment": "VARCHAR", "run": "VARCHAR", "role": "VARCHAR", "req": "BIGINT", "req_text": "VARCHAR",
	"attempt": "INTEGER", "t_ms": "DOUBLE", "ts": "TIMESTAMP", "latency_ms": "DOUBLE", "outcome": "VARCHAR",
	"status": "INTEGER", "tagged": "BOOLEAN", "user_id": "VARCHAR", "batch_id": "VARCHAR", "client_id": "VARCHAR",
	"retried": "BOOLEAN", "drop_reason": "VARCHAR", "count": "BIGINT",
}

// ParseMap reads COLUMN=EXPR.
func ParseMap(s string) (Mapping, error) {
	col, expr, ok := strings.Cut(s, "=")
	col, expr = strings.TrimSpace(col), strings.TrimSpace(expr)
	if !ok || col == "" || expr == "" {
		return Mapping{}, param.Errorf("map", "{map} %q: want COLUMN=EXPR, e.g. latency_ms=elapsed", s)
	}
	if _, known := mappable[col]; !known {
		return Mapping{}, param.Errorf("map", "{map} %q: %q is not a column {map} can set (want one of %s)", s, col,
			strings.Join(slices.Sorted(maps.Keys(mappable)), ", "))
	}
	return Mapping{Column: col, Expr: expr}, nil
}

// mapChecks are the value rules of validateBatch, in SQL, for mapped columns.
var mapChecks = map[string]string{
	"latency_ms": "isnan(v) OR isinf(v) OR v < 0",
	"t_ms":       "isnan(v) OR isinf(v)",
	"status":     "v < 0 OR v > 999",
	"attempt":    "v < 0",
	"count":      fmt.Sprintf("v < 0 OR v > %d", record.MaxCount),
	"run":        "v IS NULL",
	"experiment": "v IS NULL",
	"role":       "v IS NULL",
}

// applyMaps runs the --map expressions over the file's rows, in order.
func (l *loader) applyMaps(ctx context.Context, fileID int64) error {
	if len(l.opts.Maps) == 0 {
		return nil
	}
	scope, err := l.mapScope(ctx, fileID)
	if err != nil {
		return err
	}
	args := []any{sql.Named("file", fileID)}
	for i, m := range l.opts.Maps {
		typ := mappable[m.Column]
		expr := "(" + l.mapSQL[i] + ")"
		if m.Column == "outcome" {
			expr = "lower(trim(" + expr + "::VARCHAR))"
		}
		if _, err := l.conn.ExecContext(ctx, `SELECT `+expr+` FROM `+scope+` LIMIT 0`, args...); err != nil {
			return param.Errorf("map", "{map} %s=%s: %s", m.Column, m.Expr, sqlMsg(err))
		}
		at, fails, err := l.mapErrLine(ctx, expr, scope, args)
		if err != nil {
			return param.Errorf("map", "{map} %s=%s: %s", m.Column, m.Expr, sqlMsg(err))
		}
		if fails {
			return l.mapRowErr(ctx, at, m, expr, scope, args)
		}
		if err := l.mapLength(ctx, m, expr, scope, args); err != nil {
			return err
		}
		var line sql.NullInt64
		var got sql.NullString
		err = l.conn.QueryRowContext(ctx, `SELECT line, (`+expr+`)::VARCHAR FROM `+scope+`
			WHERE (`+expr+`) IS NOT NULL AND `+mapCast(m.Column, expr, typ)+` IS NULL ORDER BY line LIMIT 1`, args...).Scan(&line, &got)
		if err == nil {
			return record.FieldErr(line.Int64, m.Column, "{map} gives %q, not a %s", record.Truncate(got.String, 40), typ)
		}
		if err != sql.ErrNoRows {
			return param.Errorf("map", "{map} %s=%s: %s", m.Column, m.Expr, sqlMsg(err))
		}
		if check, ok := mapChecks[m.Column]; ok {
			v := mapCast(m.Column, expr, typ)
			err := l.conn.QueryRowContext(ctx, `SELECT line, v::VARCHAR FROM (SELECT line, `+v+` AS v FROM `+scope+`)
				WHERE `+check+` ORDER BY line LIMIT 1`, args...).Scan(&line, &got)
			if err == nil {
				return record.FieldErr(line.Int64, m.Column, "{map} gives %s, out of range", nullText(got))
			}
			if err != sql.ErrNoRows {
				return err
			}
		}
		q := fmt.Sprintf(`UPDATE requests r SET %s = s.v FROM (SELECT seq, %s AS v FROM %s) s
			WHERE r.file_id = $file AND r.seq = s.seq`, quoteIdent(m.Column), mapCast(m.Column, expr, typ), scope)
		if _, err := l.conn.ExecContext(ctx, q, args...); err != nil {
			return param.Errorf("map", "{map} %s=%s: %s", m.Column, m.Expr, sqlMsg(err))
		}
	}
	if err := l.timeIsEnd(ctx, fileID); err != nil {
		return err
	}
	if err := l.dropRawFields(ctx, fileID); err != nil {
		return err
	}
	return l.afterMaps(ctx, fileID)
}

func nullText(s sql.NullString) string {
	if !s.Valid {
		return "NULL"
	}
	return fmt.Sprintf("%q", s.String)
}

// afterMaps re-derives what depends on mapped columns: the outcome from a
// mapped status, the role from a mapped run; then checks that every row
// has an outcome (or a count) as a decoded file must.
func (l *loader) afterMaps(ctx context.Context, fileID int64) error {
	mapped := map[string]bool{}
	for _, m := range l.opts.Maps {
		mapped[m.Column] = true
	}
	args := []any{sql.Named("file", fileID)}
	if mapped["status"] && !mapped["outcome"] {
		if _, err := l.conn.ExecContext(ctx, `UPDATE requests SET outcome = `+statusOutcomeSQL(l.ok)+
			` WHERE file_id = $file AND outcome IS NULL`, args...); err != nil {
			return err
		}
	}
	if mapped["run"] && !mapped["role"] {
		if _, err := l.conn.ExecContext(ctx, `UPDATE requests SET role = CASE WHEN run IN ('control', 'experiment') THEN run ELSE '' END
			WHERE file_id = $file`, args...); err != nil {
			return err
		}
	}
	var line int64
	err := l.conn.QueryRowContext(ctx, `SELECT line FROM requests WHERE file_id = $file AND outcome IS NULL AND count = 1
		ORDER BY line LIMIT 1`, args...).Scan(&line)
	if err == nil && mapped["outcome"] {
		return record.FieldErr(line, "outcome", "missing: {map} outcome gives NULL")
	}
	if err == nil && mapped["status"] {
		return record.FieldErr(line, "outcome", "missing (and {map} status gives no status to derive it from)")
	}
	if err != nil && err != sql.ErrNoRows {
		return err
	}
	return nil
}

// mapScope is a subquery over the file's rows with the canonical columns
// and every attrs key as a typed column. It is built once per file: a map
// changes canonical columns only (the subquery reads their new values by
// name), never attrs, so the keys and their types stay.
func (l *loader) mapScope(ctx context.Context, fileID int64) (string, error) {
	rows, err := l.conn.QueryContext(ctx, `SELECT k,
		bool_and(v IS NULL OR regexp_full_match(trim(v), '[+-]?[0-9]{1,18}')),
		bool_and(v IS NULL OR TRY_CAST(v AS DOUBLE) IS NOT NULL),
		bool_and(v IS NULL OR TRY_CAST(v AS BOOLEAN) IS NOT NULL)
		FROM (SELECT k, attrs->>k AS v FROM (SELECT attrs, unnest(json_keys(attrs)) AS k FROM requests WHERE file_id = ? AND attrs IS NOT NULL))
		GROUP BY k ORDER BY k`, fileID)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	raw := l.rawFields()
	// attrs itself too: a field's exact text, where its typed column (a
	// DOUBLE) would round digits away: (attrs->>'ts')::DECIMAL(20,7)
	cols := []string{"seq", "line", "attrs"}
	for c := range mappable {
		cols = append(cols, quoteIdent(c))
	}
	slices.Sort(cols[3:])
	for rows.Next() {
		var k string
		var isInt, isFloat, isBool bool
		if err := rows.Scan(&k, &isInt, &isFloat, &isBool); err != nil {
			return "", err
		}
		_, clash := mappable[k]
		if clash && !raw.Has(k) || k == "seq" || k == "line" || k == "attrs" {
			continue
		}
		typ := "VARCHAR"
		switch {
		case isInt:
			typ = "BIGINT"
		case isFloat:
			typ = "DOUBLE"
		case isBool:
			typ = "BOOLEAN"
		}
		col := fmt.Sprintf("TRY_CAST(attrs->>%s AS %s) AS %s", quoteString(k), typ, quoteIdent(k))
		if i := slices.Index(cols, quoteIdent(k)); clash && i >= 0 {
			cols[i] = col // a mapped column's raw source field, by its name (mapraw.go)
			continue
		}
		cols = append(cols, col)
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	return "(SELECT " + strings.Join(cols, ", ") + " FROM requests WHERE file_id = $file)", nil
}

func quoteIdent(s string) string  { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
func quoteString(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }

// sqlMsg is a DuckDB error without the echo of the generated query.
func sqlMsg(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n\nLINE ")
	return strings.ReplaceAll(strings.TrimSpace(msg), "\n", " ")
}

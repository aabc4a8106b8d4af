package ingest

import (
	"context"
	"database/sql"

	"github.com/rewind-dev/rewind/ingest/record"
	"github.com/rewind-dev/rewind/internal/param"
)

// mapCast is the SQL that turns a --map expression's value into column
// col's type, NULL where it does not convert. A time for ts keeps its
// offset: DuckDB's cast of '10:00:00-03:00' to TIMESTAMP drops the
// -03:00, so a text with an offset, and a TIMESTAMPTZ, go through the
// instant they name (epoch_us), which does not depend on the session's
// time zone.
func mapCast(col, expr, typ string) string {
	if col != "ts" {
		return "TRY_CAST(" + expr + " AS " + typ + ")"
	}
	return `(CASE typeof(` + expr + `)
		WHEN 'TIMESTAMP WITH TIME ZONE' THEN make_timestamp(epoch_us(TRY_CAST(` + expr + ` AS TIMESTAMPTZ)))
		WHEN 'VARCHAR' THEN CASE WHEN regexp_matches(trim(TRY_CAST(` + expr + ` AS VARCHAR)), '[T ][0-9]{2}:[0-9]{2}(:[0-9]{2}([.,][0-9]+)?)? ?(Z|z|[+-][0-9]{2}(:?[0-9]{2})?)$')
			THEN make_timestamp(epoch_us(TRY_CAST(trim(TRY_CAST(` + expr + ` AS VARCHAR)) AS TIMESTAMPTZ)))
			ELSE TRY_CAST(` + expr + ` AS TIMESTAMP) END
		ELSE TRY_CAST(` + expr + ` AS TIMESTAMP) END)`
}

// checkTimeIs refuses a {time-is} other than start or end, and end
// without a mapped ts to apply it to.
func checkTimeIs(opts Options) error {
	switch opts.TimeIs {
	case "", "start":
		return nil
	case "end":
		for _, m := range opts.Maps {
			if m.Column == "ts" {
				return nil
			}
		}
		return param.Errorf("time-is", "{time-is} end says what a mapped ts is: give it with {map} ts=EXPR (and {map} latency_ms=EXPR)")
	}
	return param.Errorf("time-is", "{time-is} %q: want start or end", opts.TimeIs)
}

// timeIsEnd moves a mapped ts that is each request's end back by its
// latency; a row with a ts and no latency is refused, as its start is not
// known.
func (l *loader) timeIsEnd(ctx context.Context, fileID int64) error {
	if l.opts.TimeIs != "end" {
		return nil
	}
	args := []any{sql.Named("file", fileID)}
	var line int64
	err := l.conn.QueryRowContext(ctx, `SELECT line FROM requests WHERE file_id = $file AND ts IS NOT NULL AND latency_ms IS NULL
		ORDER BY line LIMIT 1`, args...).Scan(&line)
	if err == nil {
		return record.FieldErr(line, "latency_ms", "missing: with {time-is} end, ts is the request's end and its start is ts less the latency; give it with {map} latency_ms=EXPR")
	}
	if err != sql.ErrNoRows {
		return err
	}
	_, err = l.conn.ExecContext(ctx, `UPDATE requests SET ts = ts - to_microseconds(CAST(round(latency_ms * 1000) AS BIGINT))
		WHERE file_id = $file AND ts IS NOT NULL`, args...)
	return err
}

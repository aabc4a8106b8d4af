package ingest

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/rewind-dev/rewind/ingest/record"
	"github.com/rewind-dev/rewind/internal/param"
)

// A mapped value is bounded by the record cap ({max-record}): a mapping
// of a few bytes could otherwise make each row gigabytes (repeat('a',
// 100000000) wrote a 564 MB database, lpad(…, 1e9) passed 2 GB). The
// functions that make text longer than their arguments are held to
// constant sizes before anything runs (checkMapSizes); applyMaps then
// refuses, at its line, a row whose value is longer than the cap.

// mapRepeatMax bounds repeat's count when the repeated text is a field's
// (its length is not known before the rows are read).
const mapRepeatMax = 16

// checkMapSizes walks the expression for repeat, lpad, rpad, printf and
// format, whose results may be longer than their arguments.
func checkMapSizes(v any, max int64) error {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if err := checkMapSizes(e, max); err != nil {
				return err
			}
		}
	case map[string]any:
		if x["class"] == "FUNCTION" {
			if err := checkMapSize(x, max); err != nil {
				return err
			}
		}
		for _, e := range x {
			if err := checkMapSizes(e, max); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkMapSize(n map[string]any, max int64) error {
	name, _ := n["function_name"].(string)
	args, _ := n["children"].([]any)
	cap := record.SizeText(max)
	switch name = strings.ToLower(name); name {
	case "repeat":
		count, ok := mapConstInt(args, 1)
		text, isText := mapConstText(args, 0)
		switch {
		case !ok:
			return fmt.Errorf("repeat: want a constant count")
		case isText && count > 0 && int64(len(text))*count > max:
			return param.Errorf("max-record", "repeat: %d × %d bytes is longer than %s, the record cap ({max-record})", count, len(text), cap)
		case !isText && count > mapRepeatMax:
			return fmt.Errorf("repeat of a field: a count of at most %d, got %d", mapRepeatMax, count)
		}
	case "lpad", "rpad":
		if count, ok := mapConstInt(args, 1); !ok || count > max {
			return param.Errorf("max-record", "%s: want a constant length of at most %s, the record cap ({max-record})", name, cap)
		}
	case "printf", "format":
		text, ok := mapConstText(args, 0)
		if !ok {
			return fmt.Errorf("%s: want a constant format", name)
		}
		for _, d := range mapDigits.FindAllString(text, -1) {
			if w, err := strconv.ParseInt(d, 10, 64); err != nil || w > max {
				return param.Errorf("max-record", "%s: width %s is longer than %s, the record cap ({max-record})", name, d, cap)
			}
		}
	}
	return nil
}

var mapDigits = regexp.MustCompile(`[0-9]+`)

// mapConstInt is argument i when it is a numeric constant (DuckDB's tree
// writes 1e9 as a DOUBLE), as an integer.
func mapConstInt(args []any, i int) (int64, bool) {
	c := mapConst(args, i)
	f, ok := c["value"].(float64)
	if !ok || f != float64(int64(f)) {
		return 0, false
	}
	return int64(f), true
}

func mapConstText(args []any, i int) (string, bool) {
	s, ok := mapConst(args, i)["value"].(string)
	return s, ok
}

func mapConst(args []any, i int) map[string]any {
	if i >= len(args) {
		return nil
	}
	n, _ := args[i].(map[string]any)
	if n["class"] != "CONSTANT" {
		return nil
	}
	v, _ := n["value"].(map[string]any)
	return v
}

// mapLength refuses the first row whose mapped value is longer than the
// record cap, at its line.
func (l *loader) mapLength(ctx context.Context, m Mapping, expr, scope string, args []any) error {
	max := limits{maxRecord: l.opts.MaxRecord}.record()
	var line, n sql.NullInt64
	err := l.conn.QueryRowContext(ctx, `SELECT line, strlen((`+expr+`)::VARCHAR) FROM `+scope+`
		WHERE strlen((`+expr+`)::VARCHAR) > `+strconv.FormatInt(max, 10)+` ORDER BY line LIMIT 1`, args...).Scan(&line, &n)
	if err == sql.ErrNoRows {
		return nil
	}
	if err != nil {
		return param.Errorf("map", "{map} %s=%s: %s", m.Column, m.Expr, sqlMsg(err))
	}
	return record.FieldErr(line.Int64, m.Column, "{map} gives a value of %d bytes, longer than %s, the record cap ({max-record})", n.Int64, record.SizeText(max))
}

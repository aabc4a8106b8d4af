package ingest

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// decodeCSV reads a CSV file with a header row. Columns the schema names are
// parsed by type; other columns are kept in attrs as strings. An empty cell
// is a missing value.
func decodeCSV(in io.Reader) produce {
	return rows(func(ctx context.Context, add func(*row) error) error {
		cr := csv.NewReader(in)
		cr.ReuseRecord = true
		header, err := cr.Read()
		if err != nil {
			return csvErr(cr, err)
		}
		names := make([]string, len(header))
		sets := make([]setter, len(header)) // looked up once per column, not per cell
		for i, h := range header {
			names[i] = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
			sets[i] = setters[names[i]]
		}
		var r row
		return eachRecord(ctx, cr, func(line int64, rec []string) error {
			r.reset(line)
			if err := csvRow(&r, names, sets, rec); err != nil {
				return err
			}
			return add(&r)
		})
	})
}

// eachRecord calls fn with every record left in cr and the line it starts
// on, checking for cancellation every 4096 records: the one record loop of
// every CSV-based format.
func eachRecord(ctx context.Context, cr *csv.Reader, fn func(line int64, rec []string) error) error {
	for n := 1; ; n++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return csvErr(cr, err)
		}
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		line, _ := cr.FieldPos(0)
		if err := fn(int64(line), rec); err != nil {
			return err
		}
	}
}

func csvRow(r *row, names []string, sets []setter, rec []string) error {
	var extra map[string]json.RawMessage
	for i, cell := range rec {
		if sets[i] != nil {
			if err := applySetter(r, names[i], sets[i], val{kind: 't', s: cell}); err != nil {
				return err
			}
			continue
		}
		if cell != "" {
			if extra == nil {
				extra = map[string]json.RawMessage{}
			}
			b, _ := json.Marshal(cell)
			extra[names[i]] = b
		}
	}
	if extra != nil {
		r.attrs = compactObject(extra)
		r.set(colAttrs)
	}
	return nil
}

func csvErr(cr *csv.Reader, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return lineErr(int64(pe.Line), "bad CSV: %v", pe.Err)
	}
	if err == io.EOF {
		return lineErr(1, "bad CSV: no header row")
	}
	return err
}

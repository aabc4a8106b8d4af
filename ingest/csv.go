package ingest

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// decodeCSV reads a CSV file with a header row. Columns the schema names are
// parsed by type; other columns are kept in attrs as strings. An empty cell
// is a missing value.
func decodeCSV(in io.Reader) produce {
	return func(ctx context.Context, emit func(arrow.RecordBatch) error) error {
		cr := csv.NewReader(in)
		cr.ReuseRecord = true
		header, err := cr.Read()
		if err != nil {
			return csvErr(cr, err)
		}
		names := make([]string, len(header))
		for i, h := range header {
			names[i] = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		}
		bt := newBatcher()
		defer bt.release()
		var r row
		for {
			rec, err := cr.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				return csvErr(cr, err)
			}
			line, _ := cr.FieldPos(0)
			r.reset(int64(line))
			if err := csvRow(&r, names, rec); err != nil {
				return err
			}
			bt.append(&r)
			if bt.full() {
				if err := emit(bt.flush()); err != nil {
					return err
				}
			}
		}
		if rb := bt.flush(); rb != nil {
			return emit(rb)
		}
		return nil
	}
}

func csvRow(r *row, names, rec []string) error {
	var extra map[string]json.RawMessage
	for i, cell := range rec {
		known, err := setField(r, names[i], val{kind: 't', s: cell})
		if err != nil {
			return err
		}
		if !known && cell != "" {
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

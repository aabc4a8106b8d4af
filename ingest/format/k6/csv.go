package k6

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	json "github.com/goccy/go-json"
	"github.com/rewind-dev/rewind/ingest/record"
)

// CSVName names k6's CSV output (k6 run --out csv=FILE): a header
// metric_name,timestamp,metric_value, one column per indexed system tag
// (check, error, ..., status, url by default, in name order), extra_tags
// (other tags as k=v&k=v) and, since k6 v0.45, metadata (the same form).
// One row per sample, mapped as the JSON output is.
const CSVName = "k6-csv"

// detectK6csv takes a file whose header starts as k6 writes it.
func detectK6csv(_ string, head []byte) bool {
	return bytes.HasPrefix(record.FirstLine(head), []byte("metric_name,timestamp,metric_value"))
}

func decodeK6csv(in record.Input, c record.Sink) (record.Produce, error) {
	return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
		cr, rc := record.CappedCSV(in.Reader(), in.MaxRecord(), ',')
		cr.ReuseRecord = true
		header, err := cr.Read()
		if err != nil {
			return record.CSVErr(cr, err)
		}
		rc.Header(slices.Clone(header)) // ReuseRecord: the next Read overwrites header
		cols, err := newK6Columns(header)
		if err != nil {
			return err
		}
		g := &k6Requests{c: c, add: add}
		err = record.EachRecord(ctx, cr, func(line int64, rec []string) error {
			p, err := cols.point(line, rec)
			if err != nil {
				return err
			}
			return g.point(p)
		})
		if err != nil {
			return err
		}
		return g.flush()
	}), nil
}

// k6Columns tells what each column of the header holds.
type k6Columns struct {
	names           []string
	extra, metadata int // -1 when the header has no such column
}

func newK6Columns(header []string) (k6Columns, error) {
	cols := k6Columns{names: make([]string, len(header)), extra: -1, metadata: -1}
	for i, h := range header {
		cols.names[i] = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		switch {
		case i < 3:
		case cols.names[i] == "extra_tags":
			cols.extra = i
		case cols.names[i] == "metadata":
			cols.metadata = i
		}
	}
	if len(header) < 3 || strings.Join(cols.names[:3], ",") != "metric_name,timestamp,metric_value" {
		return cols, record.LineErr(1, "not a k6 CSV header: want metric_name,timestamp,metric_value first, got %q", record.Truncate(strings.Join(header, ","), 60))
	}
	return cols, nil
}

// point reads one row. An empty tag cell is a tag the sample does not have:
// the CSV cannot tell it from an empty value.
func (cols k6Columns) point(line int64, rec []string) (k6Point, error) {
	p := k6Point{line: line, csv: true, metric: rec[0], time: rec[1], decoded: true}
	if p.metric == "" {
		return p, record.FieldErr(line, "metric_name", "missing")
	}
	var err error
	if p.end, p.unitUs, err = k6CSVTime(rec[1]); err != nil {
		return p, record.FieldErr(line, "timestamp", "%v", err)
	}
	if p.value, err = strconv.ParseFloat(strings.TrimSpace(rec[2]), 64); err != nil {
		return p, record.FieldErr(line, "metric_value", "not a number %q", rec[2])
	}
	for i := 3; i < len(rec); i++ {
		p.raw = append(append(p.raw, rec[i]...), 0)
		switch {
		case rec[i] == "":
		case i == cols.extra:
			p.tags = k6Pairs(p.tags, rec[i])
		case i == cols.metadata:
			p.meta = k6Pairs(p.meta, rec[i])
		default:
			p.tags = k6Set(p.tags, cols.names[i], rec[i])
		}
	}
	return p, nil
}

// k6CSVTime reads a timestamp in any of k6's timeFormat options: unix (the
// default, whole seconds), unix_milli, unix_micro, unix_nano (told apart by
// magnitude: seconds have 10 digits until 2286), rfc3339 or rfc3339_nano.
// unitUs is the precision it carries.
func k6CSVTime(s string) (t time.Time, unitUs int64, err error) {
	if n, perr := strconv.ParseInt(s, 10, 64); perr == nil && n >= 0 {
		switch {
		case n < 1e11:
			return time.Unix(n, 0).UTC(), 1e6, nil
		case n < 1e14:
			return time.UnixMilli(n).UTC(), 1e3, nil
		case n < 1e17:
			return time.UnixMicro(n).UTC(), 1, nil
		}
		return time.Unix(0, n).UTC(), 1, nil
	}
	t, err = time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return t, 0, fmt.Errorf("want Unix seconds (or ms, µs, ns) or an RFC 3339 time, got %q", s)
	}
	if !strings.Contains(s, ".") {
		return t, 1e6, nil
	}
	return t, 1, nil
}

// k6Pairs reads extra_tags or metadata: k=v pairs joined by &, written by k6
// without escaping (a value holding & or = cannot be told apart).
func k6Pairs(m map[string]json.RawMessage, s string) map[string]json.RawMessage {
	for _, pair := range strings.Split(s, "&") {
		if k, v, _ := strings.Cut(pair, "="); k != "" {
			m = k6Set(m, k, v)
		}
	}
	return m
}

func k6Set(m map[string]json.RawMessage, k, v string) map[string]json.RawMessage {
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	if _, taken := m[k]; !taken {
		m[k] = record.JSONQuote(v)
	}
	return m
}

package locust

import (
	"bytes"
	"context"
	"encoding/csv"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"
	"github.com/rewind-dev/rewind/ingest/record"
)

// Name names Locust's *_stats_history.csv (locust --csv=PREFIX),
// a pre-binned series: every few seconds Locust appends a row with the
// cumulative totals of each endpoint (Type, Name; only with
// --csv-full-history) and of all of them (Name "Aggregated").
//
// One row per (Timestamp, endpoint) and outcome: count is the growth of
// "Total Request Count" since the endpoint's previous row (its first row:
// its own total), split into an ok row (requests - failures) and an error
// row (the growth of "Total Failure Count"); rows that count nothing are
// left out. ts is the Timestamp (whole seconds), when Locust wrote the row,
// the end of the interval it counts. Aggregated rows are the sum of the
// endpoints' rows, so they are loaded only from a file that has no
// endpoint rows; otherwise each becomes a locust.aggregated event (its
// percentiles are not the endpoints'). A total that goes down is Locust's
// --reset-stats (or the web UI's reset): the row counts its own total and a
// locust.reset event marks it. The run is the file's. Latency columns are
// percentiles and averages of many requests, so they go to attrs, never to
// latency_ms: cumulative since the start in a default history, over the
// last seconds with --csv-full-history, as Locust computes them. Changes of
// "User Count" become locust.users events. Locust 0.13-0.14's header
// ("# requests", "# failures") is read too.
const Name = "locust"

// locustTotals are the header names of the two cumulative counters, as
// Locust 1.0+ and 0.13-0.14 write them.
var (
	locustRequests = []string{"Total Request Count", "# requests"}
	locustFailures = []string{"Total Failure Count", "# failures"}
)

// locustAttrNames gives the columns every Locust version writes a short
// attrs key; other columns keep their header as key.
var locustAttrNames = map[string]string{
	"Type": "method", "Name": "name", "User Count": "user_count",
	"Requests/s": "requests_per_s", "Failures/s": "failures_per_s", "Requests Failed/s": "failures_per_s",
	"Total Request Count": "total_requests", "# requests": "total_requests",
	"Total Failure Count": "total_failures", "# failures": "total_failures",
	"Total Median Response Time": "total_median_ms", "Median response time": "total_median_ms",
	"Total Average Response Time": "total_avg_ms", "Average response time": "total_avg_ms",
	"Total Min Response Time": "total_min_ms", "Min response time": "total_min_ms",
	"Total Max Response Time": "total_max_ms", "Max response time": "total_max_ms",
	"Total Average Content Size": "total_avg_content_size", "Average Content Size": "total_avg_content_size",
}

// detectLocust takes a CSV header with Locust's history columns.
func detectLocust(_ string, head []byte) bool {
	line := record.FirstLine(head)
	if !bytes.Contains(line, []byte("Timestamp")) || !bytes.Contains(line, []byte("Requests/s")) {
		return false
	}
	cr := csv.NewReader(bytes.NewReader(line))
	cr.LazyQuotes = true
	h, err := cr.Read()
	if err != nil {
		return false
	}
	cols := newLocustColumns(h)
	return cols.ts >= 0 && cols.name >= 0 && cols.requests >= 0 && cols.failures >= 0
}

func decodeLocust(in record.Input, c record.Sink) (record.Produce, error) {
	return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
		return readLocust(ctx, in.Reader(), in.MaxRecord(), record.RunName(in.DetectName()), c, add)
	}), nil
}

// readLocust reads the series; run names the file's run (Locust has no
// grouping of its own, so the file is the run).
func readLocust(ctx context.Context, rd io.Reader, maxRecord int64, run string, c record.Sink, add func(*record.Row) error) error {
	cr, rc := record.CappedCSV(rd, maxRecord, ',')
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return record.CSVErr(cr, err)
	}
	rc.Header(slices.Clone(header)) // ReuseRecord: the next Read overwrites header
	cols := newLocustColumns(header)
	if err := cols.check(); err != nil {
		return err
	}
	l := &locustSeries{cols: cols, c: c, add: add, run: run, last: map[string]locustTotal{}, users: -1}
	return record.EachRecord(ctx, cr, func(line int64, rec []string) error {
		rec[len(rec)-1] = strings.TrimRight(rec[len(rec)-1], "\r")
		return l.row(line, rec)
	})
}

// locustColumns tells where each column Locust writes sits; -1 when the
// header has no such column.
type locustColumns struct {
	names                                    []string
	ts, users, typ, name, requests, failures int
	percentile                               []bool
}

func newLocustColumns(header []string) locustColumns {
	cols := locustColumns{names: make([]string, len(header)), percentile: make([]bool, len(header)),
		ts: -1, users: -1, typ: -1, name: -1, requests: -1, failures: -1}
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimRight(strings.TrimPrefix(h, "\ufeff"), "\r"))
		cols.names[i] = h
		switch {
		case h == "Timestamp":
			cols.ts = i
		case h == "User Count":
			cols.users = i
		case h == "Type":
			cols.typ = i
		case h == "Name":
			cols.name = i
		case h == locustRequests[0] || h == locustRequests[1]:
			cols.requests = i
		case h == locustFailures[0] || h == locustFailures[1]:
			cols.failures = i
		default:
			cols.percentile[i] = isPercentileLabel(h)
		}
	}
	return cols
}

// isPercentileLabel tells Locust's percentile headers: "50%", "99.9%"
// (and 0.14's "99.999", written without its %).
func isPercentileLabel(h string) bool {
	f, err := strconv.ParseFloat(strings.TrimSuffix(h, "%"), 64)
	return err == nil && f >= 0 && f <= 100
}

func (cols locustColumns) check() error {
	for _, c := range []struct {
		at   int
		name string
	}{{cols.ts, "Timestamp"}, {cols.name, "Name"}, {cols.requests, locustRequests[0]}, {cols.failures, locustFailures[0]}} {
		if c.at < 0 {
			return record.FieldErr(1, c.name, "missing in the header: not a Locust *_stats_history.csv?")
		}
	}
	return nil
}

type locustTotal struct{ requests, failures int64 }

// locustSeries turns the cumulative rows into per-interval counts.
type locustSeries struct {
	cols  locustColumns
	c     record.Sink
	add   func(*record.Row) error
	run   string
	r     record.Row
	last  map[string]locustTotal // by Type and Name
	users int64                  // the last User Count reported, -1 before any
	mode  byte                   // 0 undecided, 'e' endpoint rows, 'a' Aggregated rows only
}

func (l *locustSeries) row(line int64, rec []string) error {
	ts, err := locustTimestamp(line, rec[l.cols.ts])
	if err != nil {
		return err
	}
	if err := l.userCount(line, ts, rec); err != nil {
		return err
	}
	typ, name := l.field(rec, l.cols.typ), rec[l.cols.name]
	total, err := locustCount(line, l.cols.names[l.cols.requests], rec[l.cols.requests])
	if err != nil {
		return err
	}
	fails, err := locustCount(line, l.cols.names[l.cols.failures], rec[l.cols.failures])
	if err != nil {
		return err
	}
	d, reset := l.growth(typ+"\x00"+name, locustTotal{total, fails})
	if d.failures > d.requests {
		return record.FieldErr(line, l.cols.names[l.cols.failures], "grew by %d, more than the %d requests (%s) counted since the previous row of %q",
			d.failures, d.requests, l.cols.names[l.cols.requests], name)
	}
	attrs, err := l.attrs(line, rec)
	if err != nil {
		return err
	}
	// A reset is marked on the series that are loaded, not twice (on an
	// endpoint and on the Aggregated row beside it).
	if reset && (!isLocustAggregated(typ, name) || l.mode != 'e') {
		l.c.Event(record.Event{Line: line, Type: "locust.reset", Subject: name, TsUs: ts, HasTs: true, Attrs: attrs})
	}
	return l.emit(line, ts, typ, name, d, attrs)
}

// isLocustAggregated tells the row of all endpoints together (Type is
// "None" in Locust 0.13-0.14).
func isLocustAggregated(typ, name string) bool {
	return name == "Aggregated" && (typ == "" || typ == "None")
}

func (l *locustSeries) field(rec []string, at int) string {
	if at < 0 {
		return ""
	}
	return rec[at]
}

// emit keeps endpoint rows, and Aggregated rows only while the file has
// shown no endpoint row (Locust writes a tick's endpoint rows before its
// Aggregated row, and an Aggregated row counts nothing before the first
// endpoint row of a full history).
func (l *locustSeries) emit(line, ts int64, typ, name string, d locustTotal, attrs string) error {
	if isLocustAggregated(typ, name) {
		switch {
		case l.mode == 'e':
			if d.requests > 0 {
				l.c.Event(record.Event{Line: line, Type: "locust.aggregated", TsUs: ts, HasTs: true, Attrs: attrs})
			}
			return nil
		case d.requests == 0:
			return nil
		}
		l.mode = 'a'
		return l.counts(line, ts, d, attrs)
	}
	if l.mode == 'a' {
		return record.FieldErr(line, "Name", "endpoint row %q after Aggregated rows that counted requests: loading both would count them twice (was this file made of several?)", record.Truncate(name, 60))
	}
	l.mode = 'e'
	return l.counts(line, ts, d, attrs)
}

func (l *locustSeries) counts(line, ts int64, d locustTotal, attrs string) error {
	for _, part := range []struct {
		outcome string
		n       int64
	}{{"ok", d.requests - d.failures}, {"error", d.failures}} {
		if part.n == 0 {
			continue
		}
		r := &l.r
		r.Reset(line)
		r.TsUs, r.Count, r.Outcome, r.Attrs, r.Group = ts, part.n, part.outcome, attrs, l.run
		for _, col := range []int{record.ColTsUs, record.ColCount, record.ColOutcome, record.ColAttrs, record.ColGroup} {
			r.Set(col)
		}
		if err := l.add(r); err != nil {
			return err
		}
	}
	return nil
}

// growth is what an endpoint's totals grew by since its previous row;
// reset is true when they went down.
func (l *locustSeries) growth(key string, t locustTotal) (d locustTotal, reset bool) {
	prev, seen := l.last[key]
	l.last[key] = t
	switch {
	case !seen:
		return t, false
	case t.requests < prev.requests || t.failures < prev.failures:
		return t, true
	}
	return locustTotal{t.requests - prev.requests, t.failures - prev.failures}, false
}

func (l *locustSeries) userCount(line, ts int64, rec []string) error {
	if l.cols.users < 0 {
		return nil
	}
	s := rec[l.cols.users]
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return record.FieldErr(line, "User Count", "not an integer %q", record.Truncate(s, 40))
	}
	if n != l.users {
		l.users = n
		l.c.Event(record.Event{Line: line, Type: "locust.users", State: s, TsUs: ts, HasTs: true})
	}
	return nil
}

// attrs renders every column but Timestamp, numbers as numbers ("N/A"
// percentiles left out), percentiles in one object in header order.
func (l *locustSeries) attrs(line int64, rec []string) (string, error) {
	m := map[string]json.RawMessage{}
	var pct []byte
	for i, v := range rec {
		h := l.cols.names[i]
		switch {
		case i == l.cols.ts:
		case i == l.cols.typ || i == l.cols.name:
			if v != "" {
				m[locustAttrNames[h]], _ = json.Marshal(v)
			}
		case l.cols.percentile[i]:
			num, err := locustNumber(line, h, v)
			if err != nil {
				return "", err
			}
			if num != nil {
				if pct == nil {
					pct = []byte{'{'}
				} else {
					pct = append(pct, ',')
				}
				k, _ := json.Marshal(h)
				pct = append(append(append(pct, k...), ':'), num...)
			}
		default:
			if err := l.otherAttr(m, line, h, v); err != nil {
				return "", err
			}
		}
	}
	if pct != nil {
		m["percentiles_ms"] = append(pct, '}')
	}
	return record.CompactObject(m), nil
}

// otherAttr keeps a known numeric column under its short key and any
// other column as text under its header.
func (l *locustSeries) otherAttr(m map[string]json.RawMessage, line int64, h, v string) error {
	k, known := locustAttrNames[h]
	if !known {
		if v != "" {
			m[h], _ = json.Marshal(v)
		}
		return nil
	}
	num, err := locustNumber(line, h, v)
	if num != nil {
		m[k] = num
	}
	return err
}

// locustNumber parses a numeric cell; "N/A" and "" (no value) are nil.
func locustNumber(line int64, field, v string) (json.RawMessage, error) {
	if v == "N/A" || v == "" {
		return nil, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, record.FieldErr(line, field, "not a number %q", record.Truncate(v, 40))
	}
	return json.RawMessage(strconv.FormatFloat(f, 'g', -1, 64)), nil
}

func locustCount(line int64, field, v string) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > record.MaxCount {
		return 0, record.FieldErr(line, field, "want a count of requests, got %q", record.Truncate(v, 40))
	}
	return n, nil
}

// locustTimestamp parses whole Unix seconds into microseconds.
func locustTimestamp(line int64, v string) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > locustMaxSeconds {
		return 0, record.FieldErr(line, "Timestamp", "want Unix seconds, got %q", record.Truncate(v, 40))
	}
	return n * 1_000_000, nil
}

// locustMaxSeconds is the last second of year 9999.
const locustMaxSeconds = 253402300799

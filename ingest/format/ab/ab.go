package ab

import (
	"bytes"
	"context"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"
	"github.com/rewind-dev/rewind/ingest/record"
)

// Name names Apache Bench's per-request file (ab -g FILE, "gnuplot"):
// a tab-separated header starttime, seconds, ctime, dtime, ttime, wait and
// one row per completed request (httpd support/ab.c, output_results). ab
// writes the rows after sorting them by total time, not by start.
//
// In ab 2.3 (httpd 2.2 and later) seconds is the start in Unix seconds and
// the four times are ms, each rounded (ap_round_ms); starttime is the same
// second as local ctime text. ab of httpd 2.0 wrote seconds as APR time
// (µs since the epoch) and the times in µs. The two are told apart by the
// magnitude of seconds, never guessed: anything else is refused.
//
// The file says nothing of a request's success (ab counts failures and
// non-2xx responses only in its summary), so a row has no outcome: it is
// stored as unknown, with count 1, and --map outcome=... can set one.
const Name = "ab"

const abHeader = "starttime\tseconds\tctime\tdtime\tttime\twait"

var abColumns = strings.Split(abHeader, "\t")

func detectAB(_ string, head []byte) bool {
	return bytes.Equal(record.FirstLine(head), []byte(abHeader))
}

func decodeAB(in record.Input, c record.Sink) (record.Produce, error) {
	run := record.RunName(in.DetectName())
	return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
		cr, rc := record.CappedCSV(in.Reader(), in.MaxRecord(), '\t')
		cr.FieldsPerRecord, cr.LazyQuotes, cr.ReuseRecord = len(abColumns), true, true
		rc.Header(abColumns)
		header, err := cr.Read()
		if err != nil {
			return record.CSVErr(cr, err)
		}
		if strings.Join(header, "\t") != abHeader {
			return record.LineErr(1, "not an ab -g header: want %q", abHeader)
		}
		var r record.Row
		return record.EachRecord(ctx, cr, func(line int64, rec []string) error {
			if err := abRow(&r, line, rec, run); err != nil {
				return err
			}
			return add(&r)
		})
	}), nil
}

// abRow reads one request. Its start is whole seconds: ab keeps no finer
// start in this file.
func abRow(r *record.Row, line int64, rec []string, run string) error {
	r.Reset(line)
	var v [5]int64
	for i := range v {
		n, err := strconv.ParseInt(rec[i+1], 10, 64)
		if err != nil || n < 0 {
			return record.FieldErr(line, abColumns[i+1], "want a whole number ≥ 0, got %q", rec[i+1])
		}
		v[i] = n
	}
	scaleUs, err := abScale(line, v[0])
	if err != nil {
		return err
	}
	r.TsUs = v[0] * scaleUs
	r.Latency = abMs(v[3], scaleUs)
	r.Group, r.Count = run, 1
	for _, c := range []int{record.ColTsUs, record.ColLatency, record.ColGroup, record.ColCount} {
		r.Set(c)
	}
	r.Attrs = abAttrs(rec[0], v, scaleUs)
	r.Set(record.ColAttrs)
	return nil
}

// abScale tells the layout from seconds and gives its µs per unit: Unix
// seconds have 10 digits until 2286 (ab 2.3: times in ms), APR time 16 (ab
// of httpd 2.0: times in µs).
func abScale(line int64, seconds int64) (int64, error) {
	switch {
	case seconds < 1e11:
		return 1e6, nil
	case seconds >= 1e14 && seconds < 1e17:
		return 1, nil
	}
	return 0, record.FieldErr(line, "seconds", "want Unix seconds (ab 2.3) or µs since the epoch (ab of httpd 2.0), got %d", seconds)
}

// abMs is a time of the row in ms: as written (ms), or µs (the layout
// whose seconds are µs) shifted by three decimal places, exact in its text.
func abMs(v, scaleUs int64) float64 {
	if scaleUs != 1 {
		return float64(v)
	}
	f, _ := strconv.ParseFloat(strconv.FormatInt(v/1000, 10)+"."+leftPad(v%1000, 3), 64)
	return f
}

func leftPad(n int64, width int) string {
	s := strconv.FormatInt(n, 10)
	return strings.Repeat("0", max(0, width-len(s))) + s
}

// abAttrs keeps the connect, processing and waiting times (ms) and ab's
// own start text.
func abAttrs(start string, v [5]int64, scaleUs int64) string {
	m := map[string]json.RawMessage{}
	for i, k := range []string{"ctime_ms", "dtime_ms", "", "wait_ms"} {
		if k != "" {
			m[k] = json.RawMessage(record.FormatFloat(abMs(v[i+1], scaleUs)))
		}
	}
	m["starttime"] = record.JSONQuote(start)
	return record.CompactObject(m)
}

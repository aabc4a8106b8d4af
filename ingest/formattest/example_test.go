package formattest_test

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/rewind-dev/rewind/ingest/formattest"
	"github.com/rewind-dev/rewind/ingest/record"
)

// contributing:begin (CONTRIBUTING.md shows this block; TestContributingExample holds them equal)

// stopwatch reads a made-up log: a "# stopwatch" line, then one request a
// line: its start (Unix ms), its latency (ms) and its HTTP status.
type stopwatch struct{}

func (stopwatch) Name() string  { return "stopwatch" }
func (stopwatch) About() string { return "the stopwatch log of CONTRIBUTING.md" }

func (stopwatch) Detect(_ string, head []byte) bool {
	return bytes.Equal(record.FirstLine(head), []byte("# stopwatch"))
}

func (stopwatch) Decode(in record.Input, _ record.Sink) (record.Produce, error) {
	run := record.RunName(in.DetectName())
	return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
		var r record.Row
		return record.TextLines(ctx, in.Reader(), func(line int64, b []byte) error {
			f := strings.Fields(string(b))
			if line == 1 {
				return nil // the "# stopwatch" line
			}
			if len(f) != 3 {
				return record.LineErr(line, "want start, latency and status, got %d fields", len(f))
			}
			r.Reset(line)
			start, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil || start < 0 {
				return record.FieldErr(line, "start", "want Unix ms, got %q", record.Truncate(f[0], 20))
			}
			if r.Latency, err = strconv.ParseFloat(f[1], 64); err != nil || r.Latency < 0 {
				return record.FieldErr(line, "latency", "want ms ≥ 0, got %q", record.Truncate(f[1], 20))
			}
			st, err := strconv.ParseInt(f[2], 10, 32)
			if err != nil || st < 100 || st > 599 {
				return record.FieldErr(line, "status", "want an HTTP status, got %q", record.Truncate(f[2], 20))
			}
			r.TsUs, r.Status, r.Group = start*1000, int32(st), run
			for _, c := range []int{record.ColTsUs, record.ColLatency, record.ColStatus, record.ColGroup} {
				r.Set(c)
			}
			return add(&r)
		})
	}), nil
}

// contributing:end

// The example format of CONTRIBUTING.md, decoded alone: its canonical
// rows, and the error of a bad line (the ingest puts the file name
// before its ":line").
func Example() {
	log := "# stopwatch\n1700000000000 12.5 200\n1700000000040 3 503\n"
	rows, _, err := formattest.Decode(stopwatch{}, "runs/a.log", []byte(log))
	fmt.Print(string(rows), err, "\n")
	_, _, err = formattest.Decode(stopwatch{}, "runs/a.log", []byte("# stopwatch\n1700000000000 12x 200\n"))
	fmt.Println(err)
	// Output:
	// line,experiment,run,role,req,req_text,attempt,t_ms,ts_us,latency_ms,outcome,status,tagged,user_id,batch_id,client_id,retried,drop_reason,count,attrs,run_group,ord
	// 2,,,,,,,,1700000000000000,12.5,,200,,,,,,,,,a,0
	// 3,,,,,,,,1700000000040000,3,,503,,,,,,,,,a,1
	// <nil>
	// :2: field "latency": want ms ≥ 0, got "12x"
}

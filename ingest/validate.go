package ingest

import (
	"context"
	"fmt"
	"math"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/rewind-dev/rewind/ingest/record"
)

// validated checks every staging batch a decoder produces, whatever the
// format, so every format rejects the same values the same way: NaN and
// infinite numbers, negative latencies, counts outside 0..maxCount, statuses
// outside 0..999, negative attempts and text that is not UTF-8. The error
// names the row's line (for Parquet and Arrow, its 1-based row).
func validated(p record.Produce) record.Produce {
	return func(ctx context.Context, emit func(arrow.RecordBatch) error) error {
		return p(ctx, func(rb arrow.RecordBatch) error {
			if err := validateBatch(rb); err != nil {
				rb.Release()
				return err
			}
			return emit(rb)
		})
	}
}

func validateBatch(rb arrow.RecordBatch) error {
	lines := rb.Column(record.ColLine).(*array.Int64)
	fields := record.Schema.Fields()
	for col := 0; col < record.NumCols; col++ {
		if a := rb.Column(col); a.NullN() == a.Len() {
			continue // no value to check (most columns of most files)
		}
		name := fields[col].Name
		var bad int
		var msg string
		switch a := rb.Column(col).(type) {
		case *array.Float64:
			bad, msg = firstBadFloat(a, col == record.ColLatency)
		case *array.Int64:
			switch col {
			case record.ColCount:
				bad, msg = firstOutOfRange(a.Len(), a.IsNull, func(i int) int64 { return a.Value(i) }, 0, record.MaxCount)
			case record.ColTsUs:
				bad, msg = firstBadTime(a)
			}
		case *array.Int32:
			switch col {
			case record.ColStatus:
				bad, msg = firstOutOfRange(a.Len(), a.IsNull, func(i int) int64 { return int64(a.Value(i)) }, 0, 999)
			case record.ColAttempt:
				bad, msg = firstOutOfRange(a.Len(), a.IsNull, func(i int) int64 { return int64(a.Value(i)) }, 0, math.MaxInt32)
			}
		case *array.String:
			bad, msg = firstBadUTF8(a)
		}
		if msg != "" {
			if col == record.ColTsUs {
				name = "ts"
			}
			return record.FieldErr(lines.Value(bad), name, "%s", msg)
		}
	}
	return nil
}

func firstBadFloat(a *array.Float64, latency bool) (int, string) {
	max, span := maxMs, "about 126 years, in magnitude"
	if latency {
		max, span = maxLatencyMs, "about 3 years"
	}
	for i, v := range a.Float64Values() {
		if a.IsNull(i) {
			continue
		}
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			return i, "not a number " + record.FormatFloat(v)
		case math.Abs(v) > max:
			return i, fmt.Sprintf("%s ms is out of range (want at most %g ms, %s)", record.FormatFloat(v), max, span)
		case latency && v < 0:
			return i, "negative " + record.FormatFloat(v)
		}
	}
	return 0, ""
}

// maxMs bounds t_ms, and maxLatencyMs latency_ms, so that every analysis
// can take them: 1.7e308 made DuckDB's casts fail with no line to name, and
// 1e15 still failed thresholds' and burn-rate's ns (INT64: t_ms 4e12 and a
// latency of 1e11 ms are 4.1e18 ns) and retries' DECIMAL(18,6) (1e12).
// 4e12 ms holds epoch milliseconds to the year 2096.
const (
	maxMs        = 4e12
	maxLatencyMs = 1e11
)

func firstBadTime(a *array.Int64) (int, string) {
	for i, v := range a.Int64Values() {
		if a.IsValid(i) && (v < record.MinTsUs || v > record.MaxTsUs) {
			return i, "time " + time.UnixMicro(v).UTC().Format(time.RFC3339Nano) + " is out of range (want the years 1900 to 2199)"
		}
	}
	return 0, ""
}

func firstOutOfRange(n int, isNull func(int) bool, value func(int) int64, lo, hi int64) (int, string) {
	for i := 0; i < n; i++ {
		if isNull(i) {
			continue
		}
		if v := value(i); v < lo || v > hi {
			return i, record.OutOfRange(v, lo, hi)
		}
	}
	return 0, ""
}

// firstBadUTF8 checks the column's whole value buffer at once and looks for
// the row only when it is not valid.
func firstBadUTF8(a *array.String) (int, string) {
	if a.Len() == 0 || isASCII(a.ValueBytes()) {
		return 0, ""
	}
	for i := 0; i < a.Len(); i++ {
		if a.IsValid(i) && !utf8.ValidString(a.Value(i)) {
			return i, "invalid UTF-8"
		}
	}
	return 0, ""
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

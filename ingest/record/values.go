package record

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	json "github.com/goccy/go-json"
)

// Val is one field value as a file gave it: a JSON value with its kind, or a
// CSV cell (kind text), whose type is decided by the column it lands in.
type Val struct {
	Kind byte // 'n' number, 's' string, 'b' bool, 'z' null, 'o' object or array, 't' CSV text
	Text string
}

func JSONVal(raw []byte) Val {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return Val{Kind: 'z'}
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return Val{Kind: 'o', Text: string(raw)}
		}
		return Val{Kind: 's', Text: s}
	case 't', 'f':
		return Val{Kind: 'b', Text: string(raw)}
	case 'n':
		return Val{Kind: 'z'}
	case '{', '[':
		return Val{Kind: 'o', Text: string(raw)}
	}
	return Val{Kind: 'n', Text: string(raw)}
}

func (v Val) Absent() bool { return v.Kind == 'z' || (v.Kind == 't' && v.Text == "") }

// Describe names a value for an error message: `string "12x"`, `number 1.5`.
func (v Val) Describe() string {
	switch v.Kind {
	case 's', 't':
		return fmt.Sprintf("%q", Truncate(v.Text, 40))
	case 'n':
		return "number " + Truncate(v.Text, 40)
	case 'b':
		return "boolean " + v.Text
	case 'o':
		return "object " + Truncate(v.Text, 40)
	}
	return "null"
}

// JSONMsg shortens a JSON library error to its message.
func JSONMsg(err error) string {
	var se *json.SyntaxError
	if e, ok := err.(*json.SyntaxError); ok {
		se = e
		return se.Error()
	}
	return fmt.Sprint(err)
}

// DecimalNs reads a decimal number of seconds such as 0.000073 or -1 as
// exact integer nanoseconds (at most 9 decimals), without going through a
// float.
func DecimalNs(s string) (int64, bool) {
	neg := strings.HasPrefix(s, "-")
	whole, frac, _ := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	if whole == "" || len(frac) > 9 || !AllDigits([]byte(whole)) || (frac != "" && !AllDigits([]byte(frac))) || len(whole) > 9 {
		return 0, false
	}
	w, _ := strconv.ParseInt(whole, 10, 64)
	f, _ := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
	ns := w*1e9 + f
	if neg {
		ns = -ns
	}
	return ns, true
}

func AllDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// DigitsOnly tells a string of one or more ASCII digits (AllDigits of a
// string).
func DigitsOnly(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// MaxCount bounds a row's count (the requests a pre-binned row stands for):
// sums over 10^12-request rows stay far inside the 64-bit range analyses
// use, while a count near 2^63 would overflow them.
const MaxCount = 1_000_000_000_000

// DefaultMaxRecord caps one record (a line, or a CSV record with quoted
// line breaks) of every streamed format: a 4 GiB line in a 134 KB .zst used
// to take 6 GB of memory before any decoder saw its end. Formats read as one
// document (JSON array, HAR, Chaos Toolkit, OTLP, gunluk) may be
// docRecords times as large.
const DefaultMaxRecord = 64 << 20

// MinTsUs and MaxTsUs bound ts to the years 1900 to 2199: a request log's
// times, with room for the windows and spans analyses add to them (years 0
// and 9999 overflowed burn-rate's and thresholds' arithmetic).
var (
	MinTsUs = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	MaxTsUs = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro() - 1
)

// EpochUs reads a decimal number of unitUs µs since the epoch, rounded to
// the µs exactly (half up, on the decimal digits, not through a float).
func EpochUs(s string, unitUs int64, whole bool) (int64, error) {
	bad := fmt.Errorf("want a number of %s since the epoch, got %q", map[int64]string{1e6: "seconds", 1e3: "ms", 1: "µs"}[unitUs], Truncate(s, 40))
	intPart, frac, hasFrac := strings.Cut(s, ".")
	if !DigitsOnly(intPart) || (frac != "" && !DigitsOnly(frac)) || (hasFrac && (whole || frac == "")) {
		return 0, bad
	}
	shift := map[int64]int{1e6: 6, 1e3: 3, 1: 0}[unitUs]
	frac += strings.Repeat("0", max(0, shift-len(frac)))
	digits, next := intPart+frac[:shift], frac[shift:]
	us, err := strconv.ParseInt(strings.TrimLeft(digits, "0")+"0", 10, 64)
	if err != nil || us/10 > maxEpochUs {
		return 0, bad
	}
	us /= 10
	if next != "" && next[0] >= '5' {
		us++
	}
	return us, nil
}

// maxEpochUs is the year 9999 in µs since the epoch.
const maxEpochUs = 253402300799999999

// ParseStatus reads an HTTP status of one to three digits.
func ParseStatus(v []byte) (int32, bool) {
	if len(v) == 0 || len(v) > 3 {
		return 0, false
	}
	n := int32(0)
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int32(c-'0')
	}
	return n, true
}

// SetTs sets the row's ts from an RFC 3339 time, given as a JSON string or
// as text.
func SetTs(r *Row, v Val) error {
	if v.Kind != 's' && v.Kind != 't' {
		return fmt.Errorf("want an RFC 3339 time, got %s", v.Describe())
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(v.Text))
	if err != nil {
		return fmt.Errorf("want an RFC 3339 time such as 2026-01-02T15:04:05.123Z, got %q", v.Text)
	}
	r.TsUs = t.UnixMicro()
	r.Set(ColTsUs)
	return nil
}

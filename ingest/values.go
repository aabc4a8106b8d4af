package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	json "github.com/goccy/go-json"
)

// val is one field value as a file gave it: a JSON value with its kind, or a
// CSV cell (kind text), whose type is decided by the column it lands in.
type val struct {
	kind byte // 'n' number, 's' string, 'b' bool, 'z' null, 'o' object or array, 't' CSV text
	s    string
}

func jsonVal(raw []byte) val {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return val{kind: 'z'}
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return val{kind: 'o', s: string(raw)}
		}
		return val{kind: 's', s: s}
	case 't', 'f':
		return val{kind: 'b', s: string(raw)}
	case 'n':
		return val{kind: 'z'}
	case '{', '[':
		return val{kind: 'o', s: string(raw)}
	}
	return val{kind: 'n', s: string(raw)}
}

func (v val) absent() bool { return v.kind == 'z' || (v.kind == 't' && v.s == "") }

// describe names a value for an error message: `string "12x"`, `number 1.5`.
func (v val) describe() string {
	switch v.kind {
	case 's', 't':
		return fmt.Sprintf("%q", truncate(v.s, 40))
	case 'n':
		return "number " + truncate(v.s, 40)
	case 'b':
		return "boolean " + v.s
	case 'o':
		return "object " + truncate(v.s, 40)
	}
	return "null"
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// field setters: each parses one value into the row or explains why not.
type setter func(r *row, v val) error

var setters = map[string]setter{
	"experiment":  stringField(colExperiment, func(r *row) *string { return &r.experiment }),
	"run":         stringField(colRun, func(r *row) *string { return &r.run }),
	"role":        stringField(colRole, func(r *row) *string { return &r.role }),
	"outcome":     outcomeField,
	"drop_reason": stringField(colDropReason, func(r *row) *string { return &r.reason }),
	"req":         reqField,
	"user_id":     idField(colUserID, func(r *row) *string { return &r.userID }),
	"batch_id":    idField(colBatchID, func(r *row) *string { return &r.batchID }),
	"client_id":   idField(colClientID, func(r *row) *string { return &r.clientID }),
	"attempt":     intField(colAttempt, 0, math.MaxInt32, func(r *row, n int64) { r.attempt = int32(n) }),
	"status":      intField(colStatus, 0, 999, func(r *row, n int64) { r.status = int32(n) }),
	"count":       intField(colCount, 0, maxCount, func(r *row, n int64) { r.count = n }),
	"t_ms":        floatField(colTMs, func(r *row) *float64 { return &r.tMs }),
	"latency_ms":  floatField(colLatency, func(r *row) *float64 { return &r.latency }),
	"tagged":      boolField(colTagged, func(r *row) *bool { return &r.tagged }),
	"retried":     boolField(colRetried, func(r *row) *bool { return &r.retried }),
	"ts":          tsField,
}

func stringField(col int, dst func(*row) *string) setter {
	return func(r *row, v val) error {
		if v.kind != 's' && v.kind != 't' {
			return fmt.Errorf("want a string, got %s", v.describe())
		}
		*dst(r) = v.s
		r.set(col)
		return nil
	}
}

func outcomeField(r *row, v val) error {
	if v.kind != 's' && v.kind != 't' {
		return fmt.Errorf("want a string such as \"ok\" or \"error\", got %s", v.describe())
	}
	o := strings.ToLower(strings.TrimSpace(v.s))
	if o == "" {
		return fmt.Errorf("empty outcome")
	}
	r.outcome = o
	r.set(colOutcome)
	return nil
}

// reqField takes an integer, or text: integer text becomes the number, other
// text is kept in req_text and numbered later.
func reqField(r *row, v val) error {
	switch v.kind {
	case 'n', 's', 't':
		if n, err := strconv.ParseInt(strings.TrimSpace(v.s), 10, 64); err == nil {
			r.req = n
			r.set(colReq)
			return nil
		}
		if v.kind == 'n' {
			return fmt.Errorf("want an integer or a string id, got %s", v.describe())
		}
		r.reqText = v.s
		r.set(colReqText)
		return nil
	}
	return fmt.Errorf("want an integer or a string id, got %s", v.describe())
}

func idField(col int, dst func(*row) *string) setter {
	return func(r *row, v val) error {
		switch v.kind {
		case 's', 't':
			*dst(r) = v.s
		case 'n':
			if _, err := strconv.ParseInt(v.s, 10, 64); err != nil {
				return fmt.Errorf("want an integer or a string id, got %s", v.describe())
			}
			*dst(r) = v.s
		default:
			return fmt.Errorf("want an integer or a string id, got %s", v.describe())
		}
		r.set(col)
		return nil
	}
}

func intField(col int, lo, hi int64, set func(*row, int64)) setter {
	return func(r *row, v val) error {
		if v.kind != 'n' && v.kind != 't' {
			return fmt.Errorf("want an integer, got %s", v.describe())
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v.s), 10, 64)
		if err != nil {
			return fmt.Errorf("not an integer %s", v.describe())
		}
		if n < lo || n > hi {
			return errors.New(outOfRange(n, lo, hi))
		}
		set(r, n)
		r.set(col)
		return nil
	}
}

func floatField(col int, dst func(*row) *float64) setter {
	return func(r *row, v val) error {
		if v.kind != 'n' && v.kind != 't' {
			return fmt.Errorf("not a number %s", v.describe())
		}
		t := strings.TrimSpace(v.s)
		f, err := strconv.ParseFloat(t, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || !decimalText(t) {
			return fmt.Errorf("not a number %q", truncate(v.s, 40))
		}
		*dst(r) = f
		r.set(col)
		return nil
	}
}

func boolField(col int, dst func(*row) *bool) setter {
	return func(r *row, v val) error {
		switch {
		case v.kind == 'b' || v.kind == 't' && (v.s == "true" || v.s == "false"):
			*dst(r) = v.s == "true"
		case v.kind == 't' && (v.s == "1" || v.s == "0"):
			*dst(r) = v.s == "1"
		default:
			return fmt.Errorf("want true or false, got %s", v.describe())
		}
		r.set(col)
		return nil
	}
}

func tsField(r *row, v val) error {
	if v.kind != 's' && v.kind != 't' {
		return fmt.Errorf("want an RFC 3339 time, got %s", v.describe())
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(v.s))
	if err != nil {
		return fmt.Errorf("want an RFC 3339 time such as 2026-01-02T15:04:05.123Z, got %q", v.s)
	}
	r.tsUs = t.UnixMicro()
	r.set(colTsUs)
	return nil
}

// setField applies the setter for a known column; ok is false for a column
// the schema does not name (its value goes to attrs).
func setField(r *row, name string, v val) (ok bool, err error) {
	s, known := setters[name]
	if !known {
		return false, nil
	}
	return true, applySetter(r, name, s, v)
}

// applySetter sets field name of r with s, the field's setter; an absent
// value sets nothing.
func applySetter(r *row, name string, s setter, v val) error {
	if v.absent() {
		return nil
	}
	if err := s(r, v); err != nil {
		return fieldErr(r.line, name, "%s", err.Error())
	}
	return nil
}

func jsonOf(v any) ([]byte, error) { return json.Marshal(v) }

func compactRaw(m map[string][]byte) string {
	obj := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		obj[k] = v
	}
	return compactObject(obj)
}

// paramsJSON renders --set key=value pairs as a JSON object; a value that is
// valid JSON (a number, true, an object) is kept as such, anything else is text.
func paramsJSON(p map[string]string) string {
	obj := map[string]json.RawMessage{}
	for k, v := range p {
		if json.Valid([]byte(v)) {
			obj[k] = json.RawMessage(v)
		} else {
			b, _ := json.Marshal(v)
			obj[k] = b
		}
	}
	return compactObject(obj)
}

// decimalText reports whether s is a number in decimal digits, as JSON
// writes one (a sign, digits with a point, an exponent): Go's ParseFloat
// also reads 1_000, 0x1p4 and Inf, which a CSV cell must not turn into a
// latency.
func decimalText(s string) bool {
	i, digits := 0, 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := i
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		}
		if i == exp {
			return false
		}
	}
	return i == len(s)
}

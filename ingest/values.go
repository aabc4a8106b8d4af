package ingest

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"
	"github.com/rewind-dev/rewind/ingest/record"
)

// field setters: each parses one value into the row or explains why not.
type setter func(r *record.Row, v record.Val) error

var setters = map[string]setter{
	"experiment":  stringField(record.ColExperiment, func(r *record.Row) *string { return &r.Experiment }),
	"run":         stringField(record.ColRun, func(r *record.Row) *string { return &r.Run }),
	"role":        stringField(record.ColRole, func(r *record.Row) *string { return &r.Role }),
	"outcome":     outcomeField,
	"drop_reason": stringField(record.ColDropReason, func(r *record.Row) *string { return &r.Reason }),
	"req":         reqField,
	"user_id":     idField(record.ColUserID, func(r *record.Row) *string { return &r.UserID }),
	"batch_id":    idField(record.ColBatchID, func(r *record.Row) *string { return &r.BatchID }),
	"client_id":   idField(record.ColClientID, func(r *record.Row) *string { return &r.ClientID }),
	"attempt":     intField(record.ColAttempt, 0, math.MaxInt32, func(r *record.Row, n int64) { r.Attempt = int32(n) }),
	"status":      intField(record.ColStatus, 0, 999, func(r *record.Row, n int64) { r.Status = int32(n) }),
	"count":       intField(record.ColCount, 0, record.MaxCount, func(r *record.Row, n int64) { r.Count = n }),
	"t_ms":        floatField(record.ColTMs, func(r *record.Row) *float64 { return &r.TMs }),
	"latency_ms":  floatField(record.ColLatency, func(r *record.Row) *float64 { return &r.Latency }),
	"tagged":      boolField(record.ColTagged, func(r *record.Row) *bool { return &r.Tagged }),
	"retried":     boolField(record.ColRetried, func(r *record.Row) *bool { return &r.Retried }),
	"ts":          record.SetTs,
}

func stringField(col int, dst func(*record.Row) *string) setter {
	return func(r *record.Row, v record.Val) error {
		if v.Kind != 's' && v.Kind != 't' {
			return fmt.Errorf("want a string, got %s", v.Describe())
		}
		*dst(r) = v.Text
		r.Set(col)
		return nil
	}
}

func outcomeField(r *record.Row, v record.Val) error {
	if v.Kind != 's' && v.Kind != 't' {
		return fmt.Errorf("want a string such as \"ok\" or \"error\", got %s", v.Describe())
	}
	o := strings.ToLower(strings.TrimSpace(v.Text))
	if o == "" {
		return fmt.Errorf("empty outcome")
	}
	r.Outcome = o
	r.Set(record.ColOutcome)
	return nil
}

// reqField takes an integer, or text: integer text becomes the number, other
// text is kept in req_text and numbered later.
func reqField(r *record.Row, v record.Val) error {
	switch v.Kind {
	case 'n', 's', 't':
		if n, err := strconv.ParseInt(strings.TrimSpace(v.Text), 10, 64); err == nil {
			r.Req = n
			r.Set(record.ColReq)
			return nil
		}
		if v.Kind == 'n' {
			return fmt.Errorf("want an integer or a string id, got %s", v.Describe())
		}
		r.ReqText = v.Text
		r.Set(record.ColReqText)
		return nil
	}
	return fmt.Errorf("want an integer or a string id, got %s", v.Describe())
}

func idField(col int, dst func(*record.Row) *string) setter {
	return func(r *record.Row, v record.Val) error {
		switch v.Kind {
		case 's', 't':
			*dst(r) = v.Text
		case 'n':
			if _, err := strconv.ParseInt(v.Text, 10, 64); err != nil {
				return fmt.Errorf("want an integer or a string id, got %s", v.Describe())
			}
			*dst(r) = v.Text
		default:
			return fmt.Errorf("want an integer or a string id, got %s", v.Describe())
		}
		r.Set(col)
		return nil
	}
}

func intField(col int, lo, hi int64, set func(*record.Row, int64)) setter {
	return func(r *record.Row, v record.Val) error {
		if v.Kind != 'n' && v.Kind != 't' {
			return fmt.Errorf("want an integer, got %s", v.Describe())
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v.Text), 10, 64)
		if err != nil {
			return fmt.Errorf("not an integer %s", v.Describe())
		}
		if n < lo || n > hi {
			return errors.New(record.OutOfRange(n, lo, hi))
		}
		set(r, n)
		r.Set(col)
		return nil
	}
}

func floatField(col int, dst func(*record.Row) *float64) setter {
	return func(r *record.Row, v record.Val) error {
		if v.Kind != 'n' && v.Kind != 't' {
			return fmt.Errorf("not a number %s", v.Describe())
		}
		t := strings.TrimSpace(v.Text)
		f, err := strconv.ParseFloat(t, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || !decimalText(t) {
			return fmt.Errorf("not a number %q", record.Truncate(v.Text, 40))
		}
		*dst(r) = f
		r.Set(col)
		return nil
	}
}

func boolField(col int, dst func(*record.Row) *bool) setter {
	return func(r *record.Row, v record.Val) error {
		switch {
		case v.Kind == 'b' || v.Kind == 't' && (v.Text == "true" || v.Text == "false"):
			*dst(r) = v.Text == "true"
		case v.Kind == 't' && (v.Text == "1" || v.Text == "0"):
			*dst(r) = v.Text == "1"
		default:
			return fmt.Errorf("want true or false, got %s", v.Describe())
		}
		r.Set(col)
		return nil
	}
}

// setField applies the setter for a known column; ok is false for a column
// the schema does not name (its value goes to attrs).
func setField(r *record.Row, name string, v record.Val) (ok bool, err error) {
	s, known := setters[name]
	if !known {
		return false, nil
	}
	return true, applySetter(r, name, s, v)
}

// applySetter sets field name of r with s, the field's setter; an absent
// value sets nothing.
func applySetter(r *record.Row, name string, s setter, v record.Val) error {
	if v.Absent() {
		return nil
	}
	if err := s(r, v); err != nil {
		return record.FieldErr(r.Line, name, "%s", err.Error())
	}
	return nil
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
	return record.CompactObject(obj)
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

package record

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Setter parses one value of a canonical column into the row or explains
// why not: the setters below are the one reading of a column's value that
// the formats of canonical records (NDJSON, JSON, CSV) share.
type Setter func(r *Row, v Val) error

var setters = map[string]Setter{
	"experiment":  stringField(ColExperiment, func(r *Row) *string { return &r.Experiment }),
	"run":         stringField(ColRun, func(r *Row) *string { return &r.Run }),
	"role":        stringField(ColRole, func(r *Row) *string { return &r.Role }),
	"outcome":     outcomeField,
	"drop_reason": stringField(ColDropReason, func(r *Row) *string { return &r.Reason }),
	"req":         reqField,
	"user_id":     idField(ColUserID, func(r *Row) *string { return &r.UserID }),
	"batch_id":    idField(ColBatchID, func(r *Row) *string { return &r.BatchID }),
	"client_id":   idField(ColClientID, func(r *Row) *string { return &r.ClientID }),
	"attempt":     intField(ColAttempt, 0, math.MaxInt32, func(r *Row, n int64) { r.Attempt = int32(n) }),
	"status":      intField(ColStatus, 0, 999, func(r *Row, n int64) { r.Status = int32(n) }),
	"count":       intField(ColCount, 0, MaxCount, func(r *Row, n int64) { r.Count = n }),
	"t_ms":        floatField(ColTMs, func(r *Row) *float64 { return &r.TMs }),
	"latency_ms":  floatField(ColLatency, func(r *Row) *float64 { return &r.Latency }),
	"tagged":      boolField(ColTagged, func(r *Row) *bool { return &r.Tagged }),
	"retried":     boolField(ColRetried, func(r *Row) *bool { return &r.Retried }),
	"ts":          SetTs,
}

func stringField(col int, dst func(*Row) *string) Setter {
	return func(r *Row, v Val) error {
		if v.Kind != 's' && v.Kind != 't' {
			return fmt.Errorf("want a string, got %s", v.Describe())
		}
		*dst(r) = v.Text
		r.Set(col)
		return nil
	}
}

func outcomeField(r *Row, v Val) error {
	if v.Kind != 's' && v.Kind != 't' {
		return fmt.Errorf("want a string such as \"ok\" or \"error\", got %s", v.Describe())
	}
	o := strings.ToLower(strings.TrimSpace(v.Text))
	if o == "" {
		return fmt.Errorf("empty outcome")
	}
	r.Outcome = o
	r.Set(ColOutcome)
	return nil
}

// reqField takes an integer, or text: integer text becomes the number, other
// text is kept in req_text and numbered later.
func reqField(r *Row, v Val) error {
	switch v.Kind {
	case 'n', 's', 't':
		if n, err := strconv.ParseInt(strings.TrimSpace(v.Text), 10, 64); err == nil {
			r.Req = n
			r.Set(ColReq)
			return nil
		}
		if v.Kind == 'n' {
			return fmt.Errorf("want an integer or a string id, got %s", v.Describe())
		}
		r.ReqText = v.Text
		r.Set(ColReqText)
		return nil
	}
	return fmt.Errorf("want an integer or a string id, got %s", v.Describe())
}

func idField(col int, dst func(*Row) *string) Setter {
	return func(r *Row, v Val) error {
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

func intField(col int, lo, hi int64, set func(*Row, int64)) Setter {
	return func(r *Row, v Val) error {
		if v.Kind != 'n' && v.Kind != 't' {
			return fmt.Errorf("want an integer, got %s", v.Describe())
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v.Text), 10, 64)
		if err != nil {
			return fmt.Errorf("not an integer %s", v.Describe())
		}
		if n < lo || n > hi {
			return errors.New(OutOfRange(n, lo, hi))
		}
		set(r, n)
		r.Set(col)
		return nil
	}
}

func floatField(col int, dst func(*Row) *float64) Setter {
	return func(r *Row, v Val) error {
		if v.Kind != 'n' && v.Kind != 't' {
			return fmt.Errorf("not a number %s", v.Describe())
		}
		t := strings.TrimSpace(v.Text)
		f, err := strconv.ParseFloat(t, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || !DecimalText(t) {
			return fmt.Errorf("not a number %q", Truncate(v.Text, 40))
		}
		*dst(r) = f
		r.Set(col)
		return nil
	}
}

func boolField(col int, dst func(*Row) *bool) Setter {
	return func(r *Row, v Val) error {
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

// SetterOf is the setter of the canonical column name, nil for a column
// the schema does not name.
func SetterOf(name string) Setter { return setters[name] }

// SetField applies the setter for a known column; ok is false for a column
// the schema does not name (its value goes to attrs).
func SetField(r *Row, name string, v Val) (ok bool, err error) {
	s, known := setters[name]
	if !known {
		return false, nil
	}
	return true, ApplySetter(r, name, s, v)
}

// ApplySetter sets field name of r with s, the field's setter; an absent
// value sets nothing.
func ApplySetter(r *Row, name string, s Setter, v Val) error {
	if v.Absent() {
		return nil
	}
	if err := s(r, v); err != nil {
		return FieldErr(r.Line, name, "%s", err.Error())
	}
	return nil
}

// DecimalText reports whether s is a number in decimal digits, as JSON
// writes one (a sign, digits with a point, an exponent): Go's ParseFloat
// also reads 1_000, 0x1p4 and Inf, which a CSV cell must not turn into a
// latency.
func DecimalText(s string) bool {
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

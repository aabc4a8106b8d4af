package ingest

import (
	"math"
	"sort"
	"strconv"

	json "github.com/goccy/go-json"

	"github.com/rewind-dev/rewind/ingest/record"
	"github.com/rewind-dev/rewind/internal/param"
)

// knownParams are the {set} keys the analyses read as numbers, with what
// each must be: a value that is not one was stored as text or a number the
// analysis then ignored (start=abc, -1 and 1e308 all read as 0).
var knownParams = map[string]struct {
	whole    bool
	min, max float64
	want     string
}{
	"start":            {true, 0, 1 << 53, "a request position: a whole number of 0 or more"},
	"window":           {true, 1, 1 << 53, "a window of requests: a whole number of 1 or more"},
	"window_ms":        {false, math.SmallestNonzeroFloat64, maxMs, "a window in ms: a number above 0, at most 4e12"},
	"rounds":           {true, 1, 1 << 53, "a number of rounds: a whole number of 1 or more"},
	"affected_from_ms": {false, 0, maxMs, "a time in ms: a number from 0 to 4e12"},
	"affected_to_ms":   {false, 0, maxMs, "a time in ms: a number from 0 to 4e12"},
}

// checkParams refuses a known {set} key whose value is not what the
// analyses read, before any file is read.
func checkParams(p map[string]string) error {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		kp, ok := knownParams[k]
		if !ok {
			continue
		}
		v := p[k]
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !record.DecimalText(v) || f < kp.min || f > kp.max || (kp.whole && f != math.Trunc(f)) {
			return param.Errorf("set", "{set} %s=%s: want %s", k, record.Truncate(v, 40), kp.want)
		}
	}
	return nil
}

// paramsJSON renders {set} key=value pairs as a JSON object; a value that is
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

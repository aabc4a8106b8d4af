package ndjson

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/rewind-dev/rewind/ingest/record"
)

// scanFlat decodes the common request line, a flat JSON object whose keys
// are all schema columns, in one pass without reflection or allocation.
// It accepts a strict subset: anything else (escapes in strings, nested
// values, unknown or repeated keys, a metadata record, a value of the wrong
// type or out of range) returns false, and the line goes to the map
// decoder, which also words the error. So both paths accept and refuse
// exactly the same lines; this one is only faster.
//
// Strings in r point into b (no copy): the caller appends r to the Arrow
// builders, which copy them, before b is reused.
func scanFlat(b []byte, r *record.Row) bool {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipWS(b, i+1) == len(b)
	}
	for i < len(b) {
		key, j, ok := scanString(b, i)
		if !ok {
			return false
		}
		j = skipWS(b, j)
		if j >= len(b) || b[j] != ':' {
			return false
		}
		val, kind, k := scanValue(b, skipWS(b, j+1))
		if kind == 0 || !setFlat(r, key, val, kind) {
			return false
		}
		k = skipWS(b, k)
		if k >= len(b) {
			return false
		}
		switch b[k] {
		case ',':
			i = skipWS(b, k+1)
		case '}':
			return skipWS(b, k+1) == len(b)
		default:
			return false
		}
	}
	return false
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// scanString reads a string without escapes starting at b[i] == '"'.
// Plain ASCII, the usual case, is read in one loop: two IndexByte calls
// and plainText's pass per key or value of a few letters were 4 % of an
// NDJSON ingest's CPU samples. Other text takes the checks of scanText.
func scanString(b []byte, i int) (string, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return "", i, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return unsafeString(b[i+1 : j]), j + 1, true
		case c == '\\' || c < 0x20:
			return "", i, false
		case c >= 0x80:
			return scanText(b, i)
		}
	}
	return "", i, false
}

// scanText is scanString for a string that holds non-ASCII bytes.
func scanText(b []byte, i int) (string, int, bool) {
	end := bytes.IndexByte(b[i+1:], '"')
	if end < 0 {
		return "", i, false
	}
	s := b[i+1 : i+1+end]
	if bytes.IndexByte(s, '\\') >= 0 || !plainText(s) {
		return "", i, false
	}
	return unsafeString(s), i + end + 2, true
}

// scanValue reads a scalar: kind 's' string, 'n' number, 'b' bool, 'z' null;
// 0 for anything else.
func scanValue(b []byte, i int) (string, byte, int) {
	if i >= len(b) {
		return "", 0, i
	}
	switch c := b[i]; {
	case c == '"':
		s, j, ok := scanString(b, i)
		if !ok {
			return "", 0, i
		}
		return s, 's', j
	case c == 't' && bytes.HasPrefix(b[i:], []byte("true")):
		return "true", 'b', i + 4
	case c == 'f' && bytes.HasPrefix(b[i:], []byte("false")):
		return "false", 'b', i + 5
	case c == 'n' && bytes.HasPrefix(b[i:], []byte("null")):
		return "", 'z', i + 4
	case c == '-' || c >= '0' && c <= '9':
		j := scanNumber(b, i)
		if j < 0 {
			return "", 0, i
		}
		return unsafeString(b[i:j]), 'n', j
	}
	return "", 0, i
}

// scanNumber checks JSON's number grammar, -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?,
// and returns the index after it, or -1.
func scanNumber(b []byte, i int) int {
	digits := func(j int) int {
		k := j
		for k < len(b) && b[k] >= '0' && b[k] <= '9' {
			k++
		}
		return k
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

// plainText refuses control characters and invalid UTF-8, which JSON
// forbids or the map decoder treats its own way.
func plainText(s []byte) bool {
	for _, c := range s {
		if c < 0x20 || c >= 0x80 {
			return utf8.Valid(s) && !hasControl(s)
		}
	}
	return true
}

func hasControl(s []byte) bool {
	for _, c := range s {
		if c < 0x20 {
			return true
		}
	}
	return false
}

func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// setFlat applies one member. A null sets nothing, as in the map decoder.
func setFlat(r *record.Row, key, val string, kind byte) bool {
	col, ok := flatCol(key)
	if !ok || col < 0 || r.Is(col) || col == record.ColAttrs || r.Raw.Has(key) {
		return false // unknown, repeated, or attrs: the map decoder handles it
	}
	if kind == 'z' {
		return false // a null sets no bit, so a repeat of the key would pass unseen: the map decoder checks
	}
	switch col {
	case record.ColExperiment, record.ColRun, record.ColRole, record.ColDropReason:
		if kind != 's' {
			return false
		}
		*flatString(r, col) = val
	case record.ColOutcome:
		o := strings.ToLower(strings.TrimSpace(val))
		if kind != 's' || o == "" {
			return false
		}
		r.Outcome = o
	case record.ColReq, record.ColUserID, record.ColBatchID, record.ColClientID:
		return setFlatID(r, col, val, kind)
	case record.ColAttempt, record.ColStatus, record.ColCount:
		return setFlatInt(r, col, val, kind)
	case record.ColTMs, record.ColLatency:
		if kind != 'n' {
			return false
		}
		f, err := parseFloat(val)
		if err != nil || math.IsInf(f, 0) {
			return false
		}
		if col == record.ColTMs {
			r.TMs = f
		} else {
			r.Latency = f
		}
	case record.ColTagged, record.ColRetried:
		if kind != 'b' {
			return false
		}
		if col == record.ColTagged {
			r.Tagged = val == "true"
		} else {
			r.Retried = val == "true"
		}
	default:
		return false // ts and others: the map decoder
	}
	r.Set(col)
	return true
}

// parseFloat is strconv.ParseFloat of a JSON number (scanNumber's). A
// plain decimal of at most 15 digits, as times and latencies are written,
// is its digits as an integer over a power of ten: strconv's own exact
// path, the same float, without its general reader; the rest goes to
// strconv.
func parseFloat(s string) (float64, error) {
	var m uint64
	digits, point := 0, -1
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			m = m*10 + uint64(c-'0')
			digits++
		case c == '.' && point < 0:
			point = i
		default:
			return strconv.ParseFloat(s, 64) // an exponent
		}
	}
	if digits > 15 {
		return strconv.ParseFloat(s, 64)
	}
	f := float64(m) // exact: m < 10^15 < 2^53
	if point >= 0 {
		f /= pow10[len(s)-point-1] // exact operands: one rounding, as strconv's
	}
	if s[0] == '-' {
		f = -f
	}
	return f, nil
}

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// flatCol is the stage column of a member name (a switch: a map lookup
// per member was a tenth of an NDJSON ingest); record is -1.
func flatCol(key string) (int, bool) {
	switch key {
	case "experiment":
		return record.ColExperiment, true
	case "run":
		return record.ColRun, true
	case "role":
		return record.ColRole, true
	case "req":
		return record.ColReq, true
	case "attempt":
		return record.ColAttempt, true
	case "t_ms":
		return record.ColTMs, true
	case "latency_ms":
		return record.ColLatency, true
	case "outcome":
		return record.ColOutcome, true
	case "status":
		return record.ColStatus, true
	case "tagged":
		return record.ColTagged, true
	case "user_id":
		return record.ColUserID, true
	case "batch_id":
		return record.ColBatchID, true
	case "client_id":
		return record.ColClientID, true
	case "retried":
		return record.ColRetried, true
	case "drop_reason":
		return record.ColDropReason, true
	case "count":
		return record.ColCount, true
	case "attrs":
		return record.ColAttrs, true
	case "ts":
		return record.ColTsUs, true
	case "record":
		return -1, true
	}
	return 0, false
}

func flatString(r *record.Row, col int) *string {
	switch col {
	case record.ColExperiment:
		return &r.Experiment
	case record.ColRun:
		return &r.Run
	case record.ColRole:
		return &r.Role
	}
	return &r.Reason
}

func setFlatID(r *record.Row, col int, val string, kind byte) bool {
	n, err := strconv.ParseInt(val, 10, 64)
	if col == record.ColReq {
		if err != nil || kind != 'n' && kind != 's' {
			return false // text ids take the map path, which numbers them
		}
		r.Req = n
		r.Set(col)
		return true
	}
	if kind == 'n' && err != nil || kind != 'n' && kind != 's' {
		return false
	}
	switch col {
	case record.ColUserID:
		r.UserID = val
	case record.ColBatchID:
		r.BatchID = val
	default:
		r.ClientID = val
	}
	r.Set(col)
	return true
}

func setFlatInt(r *record.Row, col int, val string, kind byte) bool {
	n, err := strconv.ParseInt(val, 10, 64)
	if kind != 'n' || err != nil {
		return false
	}
	switch col {
	case record.ColAttempt:
		if n < 0 || n > math.MaxInt32 {
			return false
		}
		r.Attempt = int32(n)
	case record.ColStatus:
		if n < 0 || n > 999 {
			return false
		}
		r.Status = int32(n)
	default:
		if n < 0 {
			return false
		}
		r.Count = n
	}
	r.Set(col)
	return true
}

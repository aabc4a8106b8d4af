package ingest

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"math"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/apache/arrow-go/v18/arrow"
)

// decodeNDJSON reads one JSON object per line. Blank lines are skipped.
func decodeNDJSON(in io.Reader, c *collector) produce {
	return func(ctx context.Context, emit func(arrow.RecordBatch) error) error {
		br := bufio.NewReaderSize(in, 1<<20)
		bt := newBatcher()
		defer bt.release()
		var fast fastLine
		var r row
		var line int64
		for {
			buf, err := br.ReadSlice('\n')
			if err == bufio.ErrBufferFull {
				buf, err = readLongLine(br, buf)
			}
			if len(buf) > 0 {
				line++
				if e := decodeLine(bytes.TrimSpace(buf), line, &fast, &r, c, bt); e != nil {
					return e
				}
				if bt.full() {
					if e := emit(bt.flush()); e != nil {
						return e
					}
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
		}
		if rb := bt.flush(); rb != nil {
			return emit(rb)
		}
		return nil
	}
}

func readLongLine(br *bufio.Reader, first []byte) ([]byte, error) {
	buf := append([]byte(nil), first...)
	for {
		more, err := br.ReadSlice('\n')
		buf = append(buf, more...)
		if err != bufio.ErrBufferFull {
			return buf, err
		}
	}
}

func decodeLine(b []byte, line int64, fast *fastLine, r *row, c *collector, bt *batcher) error {
	if len(b) == 0 {
		return nil
	}
	r.reset(line)
	if b[0] != '{' {
		return lineErr(line, "bad JSON: want an object starting with '{', got %q", truncate(string(b), 20))
	}
	if fast.decode(b, r) {
		bt.append(r)
		return nil
	}
	r.reset(line)
	isReq, err := decodeObject(b, r, c)
	if err != nil {
		return err
	}
	if isReq {
		bt.append(r)
	}
	return nil
}

// fastLine decodes the common case, a request line with only schema columns,
// into a struct without maps. Anything else (other keys, a record kind, a
// value the checks refuse) falls back to the map decoder, which also writes
// the error message; so both paths accept and refuse the same lines.
type fastLine struct {
	Record     string  `json:"record"`
	Experiment string  `json:"experiment"`
	Run        string  `json:"run"`
	Role       string  `json:"role"`
	Outcome    string  `json:"outcome"`
	DropReason string  `json:"drop_reason"`
	Req        idValue `json:"req"`
	UserID     idValue `json:"user_id"`
	BatchID    idValue `json:"batch_id"`
	ClientID   idValue `json:"client_id"`
	Attempt    int64   `json:"attempt"`
	Status     int64   `json:"status"`
	Count      int64   `json:"count"`
	TMs        float64 `json:"t_ms"`
	LatencyMs  float64 `json:"latency_ms"`
	Tagged     triBool `json:"tagged"`
	Retried    triBool `json:"retried"`
}

// Sentinels mark fields a line did not give (JSON cannot produce them).
const noString = "\x00"
const noInt = math.MinInt64

func (f *fastLine) clear() {
	*f = fastLine{Record: noString, Experiment: noString, Run: noString, Role: noString,
		Outcome: noString, DropReason: noString, Attempt: noInt, Status: noInt, Count: noInt,
		TMs: math.NaN(), LatencyMs: math.NaN()}
}

func (f *fastLine) decode(b []byte, r *row) bool {
	f.clear()
	if json.UnmarshalNoEscape(b, f) != nil || f.Record != noString {
		return false
	}
	n := 0
	ok := true
	str := func(s string, col int, dst *string) {
		if s != noString {
			*dst = s
			r.set(col)
			n++
		}
	}
	str(f.Experiment, colExperiment, &r.experiment)
	str(f.Run, colRun, &r.run)
	str(f.Role, colRole, &r.role)
	str(f.DropReason, colDropReason, &r.reason)
	if f.Outcome != noString {
		o := strings.ToLower(strings.TrimSpace(f.Outcome))
		ok = ok && o != ""
		r.outcome = o
		r.set(colOutcome)
		n++
	}
	ok = ok && f.ints(r, &n) && f.floats(r, &n) && f.ids(r, &n)
	if f.Tagged.set {
		r.tagged, n = f.Tagged.v, n+1
		r.set(colTagged)
	}
	if f.Retried.set {
		r.retried, n = f.Retried.v, n+1
		r.set(colRetried)
	}
	return ok && n+f.nulls() == countKeys(b)
}

func (f *fastLine) ints(r *row, n *int) bool {
	ok := true
	one := func(v int64, col int, lo, hi int64, set func(int64)) {
		if v == noInt {
			return
		}
		ok = ok && v >= lo && v <= hi
		set(v)
		r.set(col)
		*n++
	}
	one(f.Attempt, colAttempt, 0, math.MaxInt32, func(v int64) { r.attempt = int32(v) })
	one(f.Status, colStatus, 0, 999, func(v int64) { r.status = int32(v) })
	one(f.Count, colCount, 0, math.MaxInt64, func(v int64) { r.count = v })
	return ok
}

func (f *fastLine) floats(r *row, n *int) bool {
	if !math.IsNaN(f.TMs) {
		r.tMs = f.TMs
		r.set(colTMs)
		*n++
	}
	if !math.IsNaN(f.LatencyMs) {
		r.latency = f.LatencyMs
		r.set(colLatency)
		*n++
	}
	return true
}

func (f *fastLine) ids(r *row, n *int) bool {
	if f.Req.set {
		if !f.Req.num {
			return false // text ids take the map path, which numbers them
		}
		r.req = f.Req.n
		r.set(colReq)
		*n++
	}
	for _, x := range []struct {
		v   *idValue
		col int
		dst *string
	}{{&f.UserID, colUserID, &r.userID}, {&f.BatchID, colBatchID, &r.batchID}, {&f.ClientID, colClientID, &r.clientID}} {
		if x.v.set {
			if x.v.num {
				*x.dst = strconv.FormatInt(x.v.n, 10)
			} else {
				*x.dst = x.v.s
			}
			r.set(x.col)
			*n++
		}
	}
	return true
}

// nulls counts id and bool members given as JSON null: keys that set nothing.
// A null string or number keeps its sentinel, so the key count differs and
// the line takes the map path.
func (f *fastLine) nulls() int {
	n := 0
	for _, b := range []bool{f.Req.null, f.UserID.null, f.BatchID.null, f.ClientID.null, f.Tagged.null, f.Retried.null} {
		if b {
			n++
		}
	}
	return n
}

// idValue is an int or string id.
type idValue struct {
	set, num, null bool
	n              int64
	s              string
}

func (v *idValue) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) > 0 && b[0] == 'n':
		v.null = true
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		v.set, v.s = true, s
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			v.num, v.n = true, n
		}
	default:
		n, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			return err
		}
		v.set, v.num, v.n = true, true, n
	}
	return nil
}

// triBool is a bool that remembers whether it was given.
type triBool struct{ set, null, v bool }

func (t *triBool) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "true", "false":
		t.set, t.v = true, string(b) == "true"
	case "null":
		t.null = true
	default:
		return strconv.ErrSyntax
	}
	return nil
}

// countKeys counts the members of a JSON object without decoding it: colons
// at depth 1 outside strings.
func countKeys(b []byte) int {
	depth, n := 0, 0
	inStr, esc := false, false
	for _, c := range b {
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ':':
			if depth == 1 {
				n++
			}
		}
	}
	return n
}

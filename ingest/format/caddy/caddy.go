package caddy

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	json "github.com/goccy/go-json"
	"github.com/rewind-dev/rewind/ingest/record"
)

// Name names Caddy 2's JSON access log (`log { format json }`), one
// entry per line. Caddy writes an entry when the request has been handled:
//
//	ts          Caddy's ts (the entry's time, the request's end: float
//	            seconds since the epoch by default, or an RFC 3339 string
//	            with time_format iso8601/rfc3339) less the duration
//	latency_ms  duration: float seconds (Caddy's default duration_format),
//	            or a Go duration string ("1.5ms", duration_format string)
//	status      status (0: the handler wrote nothing)
//	run         the file's name
//
// The request object's members (method, uri as path, host, proto,
// remote_ip, …) go to attrs at the top level; headers, resp_headers, tls
// and every other field are kept as written. Entries of other loggers in
// the same file (no request object) become caddy.log events.
const Name = "caddy"

// detectCaddy takes a first line that is a Caddy access-log entry.
func detectCaddy(name string, head []byte) bool {
	m := record.FirstObject(head)
	if m == nil {
		return false
	}
	logger := record.JSONVal(m["logger"])
	_, hasReq := m["request"]
	return m["ts"] != nil && (logger.Kind == 's' && strings.HasPrefix(logger.Text, "http.log.access") ||
		hasReq && record.JSONVal(m["msg"]).Text == "handled request")
}

func decodeCaddy(in record.Input, c record.Sink) (record.Produce, error) {
	run := record.RunName(in.DetectName())
	return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
		var r record.Row
		return record.TextLines(ctx, in.Reader(), func(line int64, b []byte) error {
			isReq, err := caddyLine(&r, bytes.TrimSpace(b), line, run, c)
			if err != nil || !isReq {
				return err
			}
			return add(&r)
		})
	}), nil
}

// caddyLine decodes one entry: a request into r (true), anything else into
// an event.
func caddyLine(r *record.Row, b []byte, line int64, run string, c record.Sink) (bool, error) {
	r.Reset(line)
	var m map[string]json.RawMessage
	if b[0] != '{' {
		return false, record.LineErr(line, "want a JSON object per line (a Caddy access log), got %q", record.Truncate(string(b), 20))
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return false, record.LineErr(line, "bad JSON: %s", record.JSONMsg(err))
	}
	if m == nil {
		return false, record.LineErr(line, "want a JSON object, got null")
	}
	endUs, err := caddyTime(m, line)
	if err != nil {
		return false, err
	}
	req, hasReq := m["request"]
	if !hasReq {
		c.Event(record.Event{Line: line, Run: run, Type: "caddy.log", Subject: record.JSONVal(m["logger"]).Text, State: record.JSONVal(m["msg"]).Text,
			TsUs: endUs, HasTs: true, Attrs: record.CompactObject(m)})
		return false, nil
	}
	var reqFields map[string]json.RawMessage
	if err := json.Unmarshal(req, &reqFields); err != nil || reqFields == nil {
		return false, record.FieldErr(line, "request", "want an object, got %s", record.JSONVal(req).Describe())
	}
	delete(m, "request")
	for k, v := range reqFields {
		if _, clash := m[k]; !clash {
			m[k] = v
		}
	}
	if uri, ok := m["uri"]; ok {
		m["path"] = uri
	}
	if err := caddyRequest(r, m, endUs); err != nil {
		return false, err
	}
	r.Group = run
	r.Set(record.ColGroup)
	r.Attrs = record.CompactObject(m)
	r.Set(record.ColAttrs)
	return true, nil
}

// caddyTime is ts in µs since the epoch: Caddy's default float seconds, or
// the time_format strings that carry a date.
func caddyTime(m map[string]json.RawMessage, line int64) (int64, error) {
	v := record.JSONVal(m["ts"])
	delete(m, "ts")
	switch v.Kind {
	case 'n':
		us, err := record.EpochUs(v.Text, 1e6, false)
		if err != nil {
			return 0, record.FieldErr(line, "ts", "%s", err.Error())
		}
		return us, nil
	case 's':
		t, err := time.Parse(time.RFC3339Nano, v.Text)
		if err != nil {
			return 0, record.FieldErr(line, "ts", "want float seconds since the epoch or an RFC 3339 time, got %q", record.Truncate(v.Text, 40))
		}
		return t.UnixMicro(), nil
	}
	return 0, record.FieldErr(line, "ts", "missing: Caddy writes the entry's time there")
}

func caddyRequest(r *record.Row, m map[string]json.RawMessage, endUs int64) error {
	ms, has, err := caddyDuration(record.JSONVal(m["duration"]), r.Line)
	if err != nil {
		return err
	}
	if has {
		delete(m, "duration")
		r.Latency = ms
		r.Set(record.ColLatency)
		endUs -= int64(math.Round(ms * 1000))
	}
	r.TsUs = endUs
	r.Set(record.ColTsUs)
	st := record.JSONVal(m["status"])
	if st.Kind != 'z' {
		n, ok := record.ParseStatus([]byte(st.Text))
		if st.Kind != 'n' || !ok {
			return record.FieldErr(r.Line, "status", "want an HTTP status code, got %s", st.Describe())
		}
		r.Status = n
		r.Set(record.ColStatus)
		delete(m, "status")
	}
	return nil
}

// caddyDuration reads duration in ms: float seconds, or a Go duration
// string. A whole number is refused: Caddy's duration_format nano writes
// one, and so would seconds for an exact second.
func caddyDuration(v record.Val, line int64) (float64, bool, error) {
	switch v.Kind {
	case 'z':
		return 0, false, nil
	case 's':
		d, err := time.ParseDuration(v.Text)
		if err != nil || d < 0 {
			return 0, false, record.FieldErr(line, "duration", "want a duration such as 1.5ms, got %q", record.Truncate(v.Text, 40))
		}
		return float64(d.Nanoseconds()) / 1e6, true, nil
	case 'n':
		if !strings.ContainsAny(v.Text, ".eE") {
			return 0, false, record.FieldErr(line, "duration", "%s is a whole number: Caddy writes seconds with a fraction by default and ns with duration_format nano; "+
				"set duration_format to seconds (the default) or string in the log's format block", v.Text)
		}
		ms, err := strconv.ParseFloat(v.Text+"e3", 64)
		if strings.ContainsAny(v.Text, "eE") {
			ms, err = strconv.ParseFloat(v.Text, 64)
			ms *= 1000
		}
		if err != nil || ms < 0 || math.IsInf(ms, 0) || math.IsNaN(ms) {
			return 0, false, record.FieldErr(line, "duration", "want seconds, got %s", v.Text)
		}
		return ms, true, nil
	}
	return 0, false, record.FieldErr(line, "duration", "want seconds, got %s", fmt.Sprint(v.Describe()))
}

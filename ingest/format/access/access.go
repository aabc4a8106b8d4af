package access

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

// Name names JSON access logs, one object per line: Envoy's JSON
// access log (Istio's and Envoy Gateway's default formats, typed or with
// every value a string) and nginx `log_format ... escape=json` as it is
// commonly written. One row per line:
//
//	ts          Envoy start_time; nginx's log time (msec, time_iso8601,
//	            time_local, time, timestamp or @timestamp: nginx writes it
//	            when the request ends) minus request_time
//	latency_ms  nginx request_time (seconds) × 1000, else Envoy duration (ms)
//	status      Envoy response_code, nginx status
//	req_text    request_id or x-request-id
//	run         the file's name (an access log is one server's view of a run)
//
// Every other field is kept in attrs as written, with method and path
// added under those names when the log names them otherwise (request_method,
// request_uri, x-envoy-origin-path, or the request line). "-", "" and null
// mean no value. The outcome is left to the status (--ok-status).
const Name = "access"

// accessEnvoyKeys and accessNginxKeys are fields that, beside response_code
// or request_time, mark a line as an access log rather than a canonical
// record.
var (
	accessEnvoyKeys = []string{"duration", "start_time", "response_flags", "upstream_host", "upstream_service_time",
		"x-envoy-upstream-service-time", "x-envoy-origin-path", "upstream_cluster", "bytes_received", "response_code_details"}
	accessNginxKeys = []string{"status", "time_local", "time_iso8601", "msec", "remote_addr", "request", "request_uri",
		"body_bytes_sent", "upstream_response_time", "http_user_agent", "request_method"}
)

// detectAccess takes a first line that is a JSON object with response_code
// and another Envoy field, or request_time (or an nginx time) and another
// nginx field.
func detectAccess(name string, head []byte) bool {
	m := record.FirstObject(head)
	if m == nil {
		return false
	}
	switch {
	case m["response_code"] != nil:
		return hasAny(m, accessEnvoyKeys)
	case m["request_time"] != nil:
		return hasAny(m, accessNginxKeys)
	case m["time_local"] != nil || m["time_iso8601"] != nil:
		return m["status"] != nil
	}
	return false
}

func hasAny(m map[string]json.RawMessage, keys []string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

func decodeAccess(in record.Input, c record.Sink) (record.Produce, error) {
	run := record.RunName(in.DetectName())
	mapped := in.MapRaw()
	return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
		var r record.Row
		return record.TextLines(ctx, in.Reader(), func(line int64, b []byte) error {
			if err := accessLine(&r, bytes.TrimSpace(b), line, run, mapped); err != nil {
				return err
			}
			return add(&r)
		})
	}), nil
}

// accessLine reads one line; mapped are the columns a {map} gives: a
// duration of unknown unit stays in attrs for a mapped latency_ms.
func accessLine(r *record.Row, b []byte, line int64, run string, mapped *record.FieldSet) error {
	r.Reset(line)
	if b[0] != '{' {
		return record.LineErr(line, "want a JSON object per line (a JSON access log), got %q", record.Truncate(string(b), 20))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return record.LineErr(line, "bad JSON: %s", record.JSONMsg(err))
	}
	if m == nil {
		return record.LineErr(line, "want a JSON object, got null")
	}
	r.Group = run
	r.Set(record.ColGroup)
	a := accessRec{m: m, r: r, mapped: mapped}
	for _, step := range []func() error{a.latency, a.time, a.status, a.requestID} {
		if err := step(); err != nil {
			return err
		}
	}
	a.methodPath()
	r.Attrs = record.CompactObject(m)
	r.Set(record.ColAttrs)
	return nil
}

// accessRec maps one line's fields: each step takes the fields it turns
// into canonical columns out of m, which keeps the rest for attrs.
type accessRec struct {
	m      map[string]json.RawMessage
	r      *record.Row
	mapped *record.FieldSet
}

// get returns the first of keys the line gives a value for ("-", "" and
// null are none), as text.
func (a accessRec) get(keys ...string) (key, s string, ok bool, err error) {
	for _, k := range keys {
		raw, present := a.m[k]
		if !present {
			continue
		}
		v := record.JSONVal(raw)
		switch {
		case v.Kind == 'z' || (v.Kind == 's' && (v.Text == "" || v.Text == "-")):
			continue
		case v.Kind == 's' || v.Kind == 'n':
			return k, strings.TrimSpace(v.Text), true, nil
		}
		return k, "", false, record.FieldErr(a.r.Line, k, "want a number or a string, got %s", v.Describe())
	}
	return "", "", false, nil
}

func (a accessRec) latency() error {
	keys := []string{"request_time"}
	if _, envoy := a.m["response_code"]; envoy {
		keys = append(keys, "duration")
	} else if _, _, has, _ := a.get("duration"); has && !a.mapped.Has("latency_ms") {
		if _, _, nginx, _ := a.get("request_time"); !nginx {
			// Envoy writes ms, Caddy and others seconds: without Envoy's
			// response_code nothing tells which.
			const unknown = "unit unknown: Envoy writes ms (with response_code), Caddy seconds (use {from} caddy); name it with {map} latency_ms=EXPR"
			if k := a.endKey(); k != "" {
				return record.FieldErr(a.r.Line, "duration", unknown+", and as the line's %s is the request's end, {map} ts=%s {time-is} end", k, k)
			}
			return record.FieldErr(a.r.Line, "duration", unknown)
		}
	}
	k, s, ok, err := a.get(keys...)
	if !ok {
		return err
	}
	text := s
	if k == "request_time" && !strings.ContainsAny(s, "eExX") {
		// nginx gives seconds: shifting the decimal exponent keeps 1.003 s
		// at exactly 1003 ms, where multiplying would not.
		text += "e3"
	}
	f, perr := strconv.ParseFloat(text, 64)
	if perr != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return record.FieldErr(a.r.Line, k, "not a number %q", s)
	}
	if text == s && k == "request_time" {
		f *= 1000
	}
	a.r.Latency = f
	a.r.Set(record.ColLatency)
	delete(a.m, k)
	return nil
}

// nginxTimeKeys are nginx's times, most precise first; all mark the end.
var nginxTimeKeys = []string{"msec", "time_iso8601", "time_local", "time", "timestamp", "@timestamp"}

func (a accessRec) time() error {
	k, s, ok, err := a.get("start_time")
	if err != nil {
		return err
	}
	if ok {
		t, perr := time.Parse(time.RFC3339Nano, s)
		if perr != nil {
			return record.FieldErr(a.r.Line, k, "want an RFC 3339 time such as 2024-05-01T10:00:00.123Z, got %q", s)
		}
		a.setTs(t.UnixMicro())
		delete(a.m, k)
		return nil
	}
	if a.mapped.Has("ts") {
		return nil
	}
	k, s, ok, err = a.get(nginxTimeKeys...)
	if !ok {
		return err
	}
	if a.mapped.Has("latency_ms") {
		return record.FieldErr(a.r.Line, k, "a time that marks the request's end (as nginx's do) and a mapped latency: "+
			"give the start as end less latency with {map} ts=%s {time-is} end", k)
	}
	us, perr := nginxTime(k, s)
	if perr != nil {
		return record.FieldErr(a.r.Line, k, "%s", perr.Error())
	}
	if a.r.Is(record.ColLatency) {
		us -= int64(math.Round(a.r.Latency * 1000))
	}
	a.setTs(us)
	return nil
}

// endKey is the line's time that marks the request's end, "" for none.
func (a accessRec) endKey() string {
	for _, k := range nginxTimeKeys {
		if _, ok := a.m[k]; ok {
			return k
		}
	}
	return ""
}

func (a accessRec) setTs(us int64) {
	a.r.TsUs = us
	a.r.Set(record.ColTsUs)
}

// nginxTime reads $msec (seconds since the epoch), an RFC 3339 time or
// $time_local (02/Jan/2006:15:04:05 -0700), in microseconds since the epoch.
func nginxTime(key, s string) (int64, error) {
	if key == "msec" {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f < 0 || f > 1e11 {
			return 0, fmt.Errorf("want seconds since the epoch such as 1714557600.123, got %q", s)
		}
		return int64(math.Round(f * 1e6)), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "02/Jan/2006:15:04:05 -0700"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMicro(), nil
		}
	}
	return 0, fmt.Errorf("want a time such as 2024-05-01T10:00:00+00:00 or 01/May/2024:10:00:00 +0000, got %q", s)
}

func (a accessRec) status() error {
	k, s, ok, err := a.get("response_code", "status")
	if !ok {
		return err
	}
	n, perr := strconv.ParseInt(s, 10, 64)
	if perr != nil || n < 0 || n > 999 {
		return record.FieldErr(a.r.Line, k, "want an HTTP status code, got %q", s)
	}
	a.r.Status = int32(n)
	a.r.Set(record.ColStatus)
	delete(a.m, k)
	return nil
}

func (a accessRec) requestID() error {
	k, s, ok, err := a.get("request_id", "x-request-id")
	if !ok {
		return err
	}
	a.r.ReqText = s
	a.r.Set(record.ColReqText)
	delete(a.m, k)
	return nil
}

// methodPath names the method and path alike for every log.
func (a accessRec) methodPath() {
	_, reqLine, _, _ := a.get("request")
	fromLine := strings.Fields(reqLine)
	for i, name := range []string{"method", "path"} {
		if _, ok := a.m[name]; ok {
			continue
		}
		keys := [][]string{{":method", "request_method"}, {"x-envoy-origin-path", "request_uri", "uri"}}[i]
		if _, s, ok, _ := a.get(keys...); ok {
			a.m[name] = record.JSONString(s)
		} else if len(fromLine) > i {
			a.m[name] = record.JSONString(fromLine[i])
		}
	}
}

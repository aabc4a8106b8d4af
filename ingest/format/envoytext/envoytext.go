package envoytext

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/ingest/record"
)

// Name names Envoy's text access log in its default format
// string, or in Istio's defaults (meshConfig.accessLogEncoding TEXT):
//
//	[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" %RESPONSE_CODE% %RESPONSE_FLAGS% ...
//
// (the fields after the response flags are in envoyTextLayouts). One row
// per line: ts = START_TIME (the request's start, UTC with milliseconds),
// latency_ms = DURATION (ms, from the start to the last byte out; "-" is
// null), status = RESPONSE_CODE (0: no response was sent), req_text =
// X-REQUEST-ID; the other fields go to attrs under the names of Istio's
// JSON format. A TCP proxy's line (request "- - -") is a connection, not a
// request: an envoy.connection event.
const Name = "envoy-text"

// envoyTextLayout is the fields after %RESPONSE_FLAGS% of one default
// format; a leading " marks a field the format quotes.
type envoyTextLayout struct {
	name   string
	fields []string
}

// envoyTail is the part every layout ends with (Envoy's default ends there).
var envoyTail = []string{"bytes_received", "bytes_sent", "duration", "upstream_service_time",
	`"x_forwarded_for`, `"user_agent`, `"request_id`, `"authority`, `"upstream_host`}

var istioTail = []string{"upstream_cluster", "upstream_local_address", "downstream_local_address",
	"downstream_remote_address", "requested_server_name", "route_name"}

var envoyTextLayouts = []envoyTextLayout{
	{"envoy", envoyTail},
	// Istio 1.5-1.8: the Mixer status, then the transport failure reason.
	{"istio-1.5", concat([]string{`"istio_mixer_status`, `"upstream_transport_failure_reason`}, envoyTail, istioTail)},
	{"istio-1.9", concat([]string{`"upstream_transport_failure_reason`}, envoyTail, istioTail)},
	// Istio 1.10 and later.
	{"istio", concat([]string{"response_code_details", "connection_termination_details", `"upstream_transport_failure_reason`}, envoyTail, istioTail)},
}

func concat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// envoyLayoutOf picks the layout whose field count and quoting fit the
// tokens after the response flags.
func envoyLayoutOf(rest []record.Token) (envoyTextLayout, bool) {
	for _, l := range envoyTextLayouts {
		if len(l.fields) != len(rest) {
			continue
		}
		fits := true
		for i, f := range l.fields {
			fits = fits && strings.HasPrefix(f, `"`) == rest[i].Quoted
		}
		if fits {
			return l, true
		}
	}
	return envoyTextLayout{}, false
}

// detectEnvoyText takes a first line that is one of the layouts.
func detectEnvoyText(_ string, head []byte) bool {
	lines := record.HeadLines(head, 1)
	if len(lines) != 1 || !bytes.HasPrefix(lines[0], []byte("[")) {
		return false
	}
	toks, ok := record.Tokens(lines[0])
	if !ok || len(toks) < 4 || !toks[1].Quoted {
		return false
	}
	if _, err := envoyStart(toks[0]); err != nil {
		return false
	}
	_, ok = envoyLayoutOf(toks[4:])
	return ok
}

// envoyStart reads [%START_TIME%]: RFC 3339 in brackets.
func envoyStart(t record.Token) (time.Time, error) {
	s := t.S
	if t.Quoted || len(s) < 3 || s[0] != '[' || s[len(s)-1] != ']' {
		return time.Time{}, fmt.Errorf("want [START_TIME] such as [2020-11-25T21:26:18.409Z], got %q", record.Truncate(s, 40))
	}
	ts, err := time.Parse(time.RFC3339Nano, s[1:len(s)-1])
	if err != nil {
		return time.Time{}, fmt.Errorf("want an RFC 3339 time such as [2020-11-25T21:26:18.409Z], got %q", record.Truncate(s, 40))
	}
	return ts, nil
}

func decodeEnvoyText(in record.Input, c record.Sink) (record.Produce, error) {
	run := record.RunName(in.DetectName())
	return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
		var r record.Row
		return record.TextLines(ctx, in.Reader(), func(line int64, b []byte) error {
			isReq, err := envoyTextLine(&r, c, line, b, run)
			if err != nil || !isReq {
				return err
			}
			return add(&r)
		})
	}), nil
}

// envoyTextLine fills r from one line; false for a TCP connection, which
// it adds to c as an event.
func envoyTextLine(r *record.Row, c record.Sink, line int64, b []byte, run string) (bool, error) {
	r.Reset(line)
	toks, ok := record.Tokens(b)
	if !ok {
		return false, record.LineErr(line, "a quoted field is not closed")
	}
	if len(toks) < 4 {
		return false, record.LineErr(line, "want [START_TIME] \"METHOD PATH PROTOCOL\" and the default format's fields, got %q", record.Truncate(string(b), 40))
	}
	ts, err := envoyStart(toks[0])
	if err != nil {
		return false, record.FieldErr(line, "start_time", "%s", err.Error())
	}
	layout, ok := envoyLayoutOf(toks[4:])
	if !ok {
		return false, record.LineErr(line, "%d fields after the response flags: not Envoy's or Istio's default text format (%s)", len(toks)-4, envoyLayoutList())
	}
	a := record.AttrSet{}
	method, path, proto := envoyRequest(toks[1].S)
	a.Str("method", method)
	a.Str("path", path)
	a.Str("protocol", proto)
	a.Str("response_flags", toks[3].S)
	for i, f := range layout.fields {
		a.Str(strings.TrimPrefix(f, `"`), toks[4+i].S)
	}
	if err := envoyCounts(a, line); err != nil {
		return false, err
	}
	if method == "-" && path == "-" {
		return false, envoyConnection(c, line, run, ts, toks[3].S, a)
	}
	r.TsUs = ts.UnixMicro()
	r.Set(record.ColTsUs)
	r.Group = run
	r.Set(record.ColGroup)
	if err := envoyValues(r, a, line, toks[2].S); err != nil {
		return false, err
	}
	r.Attrs = a.String()
	r.Set(record.ColAttrs)
	return true, nil
}

// envoyValues takes status, duration and request id out of attrs into r.
func envoyValues(r *record.Row, a record.AttrSet, line int64, code string) error {
	n, err := strconv.ParseInt(code, 10, 32)
	if err != nil || n < 0 || n > 999 {
		return record.FieldErr(line, "response_code", "want an HTTP status code, got %q", code)
	}
	r.Status = int32(n)
	r.Set(record.ColStatus)
	if raw, ok := a["duration"]; ok {
		r.Latency, _ = strconv.ParseFloat(string(raw), 64) // an integer: envoyCounts checked it
		r.Set(record.ColLatency)
		delete(a, "duration")
	}
	if raw, ok := a["request_id"]; ok {
		r.ReqText = record.JSONVal(raw).Text
		r.Set(record.ColReqText)
		delete(a, "request_id")
	}
	return nil
}

// envoyCounts makes the counts and times in attrs numbers.
func envoyCounts(a record.AttrSet, line int64) error {
	for _, k := range []string{"duration", "bytes_received", "bytes_sent", "upstream_service_time"} {
		raw, ok := a[k]
		if !ok {
			continue
		}
		s := record.JSONVal(raw).Text
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 {
			return record.FieldErr(line, k, "want a non-negative integer (ms or bytes) or -, got %q", s)
		}
		a.Num(k, v)
	}
	return nil
}

// envoyRequest splits "METHOD PATH PROTOCOL"; a path may hold spaces only
// when it was written so, so the protocol is the last word.
func envoyRequest(s string) (method, path, proto string) {
	f := strings.Fields(s)
	switch len(f) {
	case 0:
		return "", "", ""
	case 1:
		return f[0], "", ""
	case 2:
		return f[0], f[1], ""
	}
	return f[0], strings.Join(f[1:len(f)-1], " "), f[len(f)-1]
}

func envoyConnection(c record.Sink, line int64, run string, ts time.Time, flags string, a record.AttrSet) error {
	delete(a, "method")
	delete(a, "path")
	delete(a, "protocol")
	c.Event(record.Event{Line: line, Run: run, Type: "envoy.connection", Subject: record.JSONVal(a["upstream_host"]).Text,
		State: record.NilDash(flags), TsUs: ts.UnixMicro(), HasTs: true, Attrs: a.String()})
	return nil
}

func envoyLayoutList() string {
	var out []string
	for _, l := range envoyTextLayouts {
		out = append(out, fmt.Sprintf("%s: %d", l.name, len(l.fields)))
	}
	return strings.Join(out, ", ")
}

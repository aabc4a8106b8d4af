package traefik

import (
	"bytes"
	"context"
	"strconv"
	"time"

	json "github.com/goccy/go-json"
	"github.com/rewind-dev/rewind/ingest/record"
)

// Name names Traefik's JSON access log (accessLog.format: json),
// one object per line. One row per line: ts = StartUTC ("the time at which
// request processing started"; nanoseconds in the log, microseconds kept);
// latency_ms = Duration ("the total time taken (in nanoseconds) by
// processing the response, including the origin server's time but not the
// log writing time") / 1e6; status = DownstreamStatus ("the HTTP status
// code returned to the client"); req_text = request_X-Request-Id when the
// headers are kept. Every other field stays in attrs as written, with
// method and path added from RequestMethod and RequestPath.
const Name = "traefik"

// detectTraefik takes a first line that is a JSON object with StartUTC
// and Duration or DownstreamStatus.
func detectTraefik(_ string, head []byte) bool {
	if !bytes.Contains(record.FirstLine(head), []byte(`"StartUTC"`)) {
		return false // before parsing: most files are not Traefik's
	}
	m := record.FirstObject(head)
	return m["StartUTC"] != nil && (m["Duration"] != nil || m["DownstreamStatus"] != nil)
}

func decodeTraefik(in record.Input, c record.Sink) (record.Produce, error) {
	run := record.RunName(in.DetectName())
	return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
		var r record.Row
		return record.TextLines(ctx, in.Reader(), func(line int64, b []byte) error {
			if err := traefikLine(&r, line, bytes.TrimSpace(b)); err != nil {
				return err
			}
			r.Group = run
			r.Set(record.ColGroup)
			return add(&r)
		})
	}), nil
}

func traefikLine(r *record.Row, line int64, b []byte) error {
	r.Reset(line)
	if b[0] != '{' {
		return record.LineErr(line, "want a JSON object per line (Traefik's JSON access log), got %q", record.Truncate(string(b), 20))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return record.LineErr(line, "bad JSON: %s", record.JSONMsg(err))
	}
	if m == nil {
		return record.LineErr(line, "want a JSON object, got null")
	}
	for _, step := range []func(*record.Row, map[string]json.RawMessage) error{traefikStart, traefikDuration, traefikStatus} {
		if err := step(r, m); err != nil {
			return err
		}
	}
	if v := record.JSONVal(m["request_X-Request-Id"]); v.Kind == 's' && v.Text != "" && v.Text != "-" {
		r.ReqText = v.Text
		r.Set(record.ColReqText)
		delete(m, "request_X-Request-Id")
	}
	for k, from := range map[string]string{"method": "RequestMethod", "path": "RequestPath"} {
		if v, ok := m[from]; ok {
			m[k] = v
		}
	}
	r.Attrs = record.CompactObject(m)
	r.Set(record.ColAttrs)
	return nil
}

func traefikStart(r *record.Row, m map[string]json.RawMessage) error {
	v := record.JSONVal(m["StartUTC"])
	if v.Kind != 's' {
		return record.FieldErr(r.Line, "StartUTC", "want an RFC 3339 time, got %s", v.Describe())
	}
	t, err := time.Parse(time.RFC3339Nano, v.Text)
	if err != nil {
		return record.FieldErr(r.Line, "StartUTC", "want an RFC 3339 time such as 2024-08-25T04:34:37.306691884Z, got %q", v.Text)
	}
	r.TsUs = t.UnixMicro()
	r.Set(record.ColTsUs)
	delete(m, "StartUTC")
	return nil
}

// traefikDuration reads Duration, integer nanoseconds (absent: no latency).
func traefikDuration(r *record.Row, m map[string]json.RawMessage) error {
	raw, ok := m["Duration"]
	if !ok {
		return nil
	}
	v := record.JSONVal(raw)
	ns, err := strconv.ParseInt(v.Text, 10, 64)
	if v.Kind != 'n' || err != nil || ns < 0 {
		return record.FieldErr(r.Line, "Duration", "want integer nanoseconds, got %s", v.Describe())
	}
	r.Latency = float64(ns) / 1e6
	r.Set(record.ColLatency)
	delete(m, "Duration")
	return nil
}

func traefikStatus(r *record.Row, m map[string]json.RawMessage) error {
	v := record.JSONVal(m["DownstreamStatus"])
	n, err := strconv.ParseInt(v.Text, 10, 32)
	if v.Kind != 'n' || err != nil || n < 0 || n > 999 {
		return record.FieldErr(r.Line, "DownstreamStatus", "want an HTTP status code, got %s", v.Describe())
	}
	r.Status = int32(n)
	r.Set(record.ColStatus)
	delete(m, "DownstreamStatus")
	return nil
}

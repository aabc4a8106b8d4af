package gcplb

import (
	"bytes"
	"context"
	stdjson "encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	json "github.com/goccy/go-json"
	"github.com/rewind-dev/rewind/ingest/record"
)

// Name names Google Cloud HTTP(S) Load Balancer request logs as
// exported from Cloud Logging: LogEntry objects, one per line, or a JSON
// array as `gcloud logging read --format=json` prints it (pretty-printed
// over many lines). One row per entry: ts = timestamp, latency_ms =
// httpRequest.latency (a Duration string such as "0.058s", shifted
// exactly), status = httpRequest.status (absent: 0, no response),
// req_text = trace. Everything else stays in attrs (method, path and
// status_details added from requestMethod, requestUrl and
// jsonPayload.statusDetails). Rows are not scaled by the backend
// service's logConfig.sampleRate: the entries do not carry it.
const Name = "gcp-lb"

func detectGCPLB(_ string, head []byte) bool {
	t := record.JSONText(head)
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') || !bytes.Contains(t, []byte(`"httpRequest"`)) {
		return false
	}
	return bytes.Contains(t, []byte(`"http_load_balancer"`)) || bytes.Contains(t, []byte("LoadBalancerLogEntry"))
}

func decodeGCPLB(in record.Input, c record.Sink) (record.Produce, error) {
	run := record.RunName(in.DetectName())
	return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
		var r record.Row
		each := func(line int64, b []byte) error {
			if err := gcpEntry(&r, line, b); err != nil {
				return err
			}
			r.Group = run
			r.Set(record.ColGroup)
			return add(&r)
		}
		if t := record.JSONText(in.Head()); len(t) > 0 && t[0] == '[' {
			return gcpArray(in, each)
		}
		return record.TextLines(ctx, in.Reader(), func(line int64, b []byte) error { return each(line, bytes.TrimSpace(b)) })
	}), nil
}

// gcpArray walks a JSON array of entries, giving each the line it starts on.
func gcpArray(in record.Input, each func(int64, []byte) error) error {
	data, err := in.All()
	if err != nil {
		return err
	}
	dec := stdjson.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return record.LineErr(1, "bad JSON: %v", err)
	}
	lines := lineCounter{data: data, line: 1}
	for dec.More() {
		off := dec.InputOffset()
		var raw stdjson.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return gcpJSONErr(data, off, err)
		}
		start := off + int64(len(data[off:])-len(bytes.TrimLeft(data[off:], " \t\r\n,")))
		if err := each(lines.at(start), raw); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return gcpJSONErr(data, dec.InputOffset(), err)
	}
	return nil
}

// gcpJSONErr places a decoding error: at the end of the file when the
// array is cut short, else where the value starts.
func gcpJSONErr(data []byte, off int64, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return record.LineErr(lineAt(data, int64(len(bytes.TrimRight(data, " \t\r\n")))), "bad JSON: the array ends before its closing ]")
	}
	return record.LineErr(lineAt(data, off), "bad JSON: %v", err)
}

func lineAt(data []byte, off int64) int64 {
	return int64(bytes.Count(data[:min(int(off), len(data))], []byte("\n"))) + 1
}

// lineCounter is lineAt for offsets that never decrease: it counts from
// the last one, not from byte 0 for every element (a 47 MB array took 75 s).
type lineCounter struct {
	data      []byte
	off, line int64
}

func (c *lineCounter) at(off int64) int64 {
	off = min(off, int64(len(c.data)))
	if off > c.off {
		c.line += int64(bytes.Count(c.data[c.off:off], []byte("\n")))
		c.off = off
	}
	return c.line
}

func gcpEntry(r *record.Row, line int64, b []byte) error {
	r.Reset(line)
	var m map[string]json.RawMessage
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &m) != nil || m == nil {
		return record.LineErr(line, "want a LogEntry JSON object, got %q", record.Truncate(string(b), 20))
	}
	var hr map[string]json.RawMessage
	if v := record.JSONVal(m["httpRequest"]); v.Kind != 'o' || json.Unmarshal(m["httpRequest"], &hr) != nil || hr == nil {
		return record.FieldErr(line, "httpRequest", "want an object (an HTTP load balancer's request log), got %s", v.Describe())
	}
	for _, step := range []func(*record.Row, map[string]json.RawMessage, map[string]json.RawMessage) error{gcpTime, gcpLatency, gcpStatus} {
		if err := step(r, m, hr); err != nil {
			return err
		}
	}
	if v := record.JSONVal(m["trace"]); v.Kind == 's' && v.Text != "" {
		r.ReqText = v.Text
		r.Set(record.ColReqText)
		delete(m, "trace")
	}
	gcpAttrs(m, hr)
	r.Attrs = record.CompactObject(m)
	r.Set(record.ColAttrs)
	return nil
}

func gcpTime(r *record.Row, m, _ map[string]json.RawMessage) error {
	v := record.JSONVal(m["timestamp"])
	t, err := time.Parse(time.RFC3339Nano, v.Text)
	if v.Kind != 's' || err != nil {
		return record.FieldErr(r.Line, "timestamp", "want an RFC 3339 time such as 2020-06-08T23:41:30.078651Z, got %s", v.Describe())
	}
	r.TsUs = t.UnixMicro()
	r.Set(record.ColTsUs)
	delete(m, "timestamp")
	return nil
}

// gcpLatency reads a protobuf Duration in JSON: decimal seconds with an
// "s" suffix, at most nanosecond precision.
func gcpLatency(r *record.Row, _, hr map[string]json.RawMessage) error {
	raw, ok := hr["latency"]
	if !ok {
		return nil
	}
	v := record.JSONVal(raw)
	ns, good := record.DecimalNs(strings.TrimSuffix(v.Text, "s"))
	if v.Kind != 's' || !strings.HasSuffix(v.Text, "s") || !good || ns < 0 {
		return record.FieldErr(r.Line, "httpRequest.latency", `want a duration such as "0.058s", got %s`, v.Describe())
	}
	r.Latency = float64(ns) / 1e6
	r.Set(record.ColLatency)
	delete(hr, "latency")
	return nil
}

func gcpStatus(r *record.Row, _, hr map[string]json.RawMessage) error {
	r.Set(record.ColStatus)
	raw, ok := hr["status"]
	if !ok {
		return nil // no response was sent: status 0
	}
	v := record.JSONVal(raw)
	n, err := strconv.ParseInt(v.Text, 10, 32)
	if v.Kind != 'n' || err != nil || n < 0 || n > 999 {
		return record.FieldErr(r.Line, "httpRequest.status", "want an HTTP status code, got %s", v.Describe())
	}
	r.Status = int32(n)
	delete(hr, "status")
	return nil
}

// gcpAttrs keeps the entry as written, the consumed fields taken out, and
// names method, path and status_details alike for every format.
func gcpAttrs(m, hr map[string]json.RawMessage) {
	for k, from := range map[string]string{"method": "requestMethod", "path": "requestUrl"} {
		if v, ok := hr[from]; ok {
			m[k] = v
		}
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(m["jsonPayload"], &p) == nil {
		if v, ok := p["statusDetails"]; ok {
			m["status_details"] = v
		}
	}
	m["httpRequest"] = json.RawMessage(record.CompactObject(hr))
}

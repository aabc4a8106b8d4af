package aws

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/ingest/record"
)

// ALBName names the access log of an AWS Application Load Balancer:
// space-separated fields, some quoted, in the order of AWS's "Access log
// entries" (new fields are added at the end; unknown ones are ignored).
// One row per entry: ts = request_creation_time ("when the load balancer
// received the request from the client"; entries without it fall back to
// time, "when the load balancer generated a response", the end);
// latency_ms = request_processing_time + target_processing_time +
// response_processing_time (seconds, summed exactly), null when one is -1
// (not dispatched, or the connection closed: "not_dispatched" in attrs);
// status = elb_status_code ("-" is 0); req_text = trace_id.
const ALBName = "aws-alb"

var albFields = []string{"type", "time", "elb", "client", "target", "request_processing_time", "target_processing_time",
	"response_processing_time", "elb_status_code", "target_status_code", "received_bytes", "sent_bytes", "request",
	"user_agent", "ssl_cipher", "ssl_protocol", "target_group_arn", "trace_id", "domain_name", "chosen_cert_arn",
	"matched_rule_priority", "request_creation_time", "actions_executed", "redirect_url", "error_reason",
	"target_port_list", "target_status_code_list", "classification", "classification_reason", "conn_trace_id"}

// albMinFields is through the request line: what every ALB entry has.
const albMinFields = 13

var albTypes = map[string]bool{"http": true, "https": true, "h2": true, "grpcs": true, "ws": true, "wss": true}

func detectAWSALB(_ string, head []byte) bool {
	lines := record.HeadLines(head, 1)
	if len(lines) != 1 {
		return false
	}
	toks, ok := record.Tokens(lines[0])
	if !ok || len(toks) < albMinFields || !albTypes[toks[0].S] || !toks[12].Quoted {
		return false
	}
	_, err := time.Parse(time.RFC3339Nano, toks[1].S)
	return err == nil
}

func decodeAWSALB(in record.Input, c record.Sink) (record.Produce, error) {
	return lbDecode(in, albLine), nil
}

// lbDecode runs a load balancer's line decoder over the file's lines.
func lbDecode(in record.Input, line func(r *record.Row, line int64, b []byte) error) record.Produce {
	run := record.RunName(in.DetectName())
	return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
		var r record.Row
		return record.TextLines(ctx, in.Reader(), func(n int64, b []byte) error {
			if err := line(&r, n, b); err != nil {
				return err
			}
			r.Group = run
			r.Set(record.ColGroup)
			return add(&r)
		})
	})
}

func albLine(r *record.Row, line int64, b []byte) error {
	r.Reset(line)
	toks, ok := record.Tokens(b)
	if !ok {
		return record.LineErr(line, "a quoted field is not closed")
	}
	if len(toks) < albMinFields {
		return record.LineErr(line, "want at least %d fields (type through request), got %d", albMinFields, len(toks))
	}
	f := map[string]string{}
	a := record.AttrSet{}
	for i, t := range toks[:min(len(toks), len(albFields))] {
		f[albFields[i]] = t.S
	}
	ts, err := lbTime(line, f, "request_creation_time", "time")
	if err != nil {
		return err
	}
	r.TsUs = ts
	r.Set(record.ColTsUs)
	if err := lbLatency(r, a, line, f, "request_processing_time", "target_processing_time", "response_processing_time"); err != nil {
		return err
	}
	if err := lbStatus(r, line, "elb_status_code", f["elb_status_code"]); err != nil {
		return err
	}
	lbRequest(a, f["request"])
	lbRest(r, a, f, "trace_id", albFields, "request", "request_creation_time", "elb_status_code",
		"request_processing_time", "target_processing_time", "response_processing_time")
	return nil
}

// lbRest ends a load balancer's row (ALB, CloudFront): req_text is the
// field idKey, and every other field of keys that is not taken (read into
// a column or attr already) goes to attrs as written.
func lbRest(r *record.Row, a record.AttrSet, f map[string]string, idKey string, keys []string, taken ...string) {
	if id := record.NilDash(f[idKey]); id != "" {
		r.ReqText = id
		r.Set(record.ColReqText)
	}
	for _, k := range keys {
		if k != idKey && !slices.Contains(taken, k) {
			a.Str(k, f[k])
		}
	}
	r.Attrs = a.String()
	r.Set(record.ColAttrs)
}

// lbTime reads the first of keys that has a value, an ISO 8601 time.
func lbTime(line int64, f map[string]string, keys ...string) (int64, error) {
	for _, k := range keys {
		s := record.NilDash(f[k])
		if s == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return 0, record.FieldErr(line, k, "want an ISO 8601 time such as 2018-07-02T22:22:48.364000Z, got %q", record.Truncate(s, 40))
		}
		return t.UnixMicro(), nil
	}
	return 0, record.FieldErr(line, keys[0], "missing")
}

// lbLatency sums the processing times (seconds) into latency_ms exactly;
// any -1 (not dispatched) leaves it null. The times stay in attrs as written.
func lbLatency(r *record.Row, a record.AttrSet, line int64, f map[string]string, keys ...string) error {
	var sum int64
	dispatched := true
	for _, k := range keys {
		ns, ok := record.DecimalNs(f[k])
		if !ok || (ns < 0 && ns != -1e9) {
			return record.FieldErr(line, k, "want seconds such as 0.001 (or -1: not dispatched), got %q", f[k])
		}
		a.Raw(k, f[k])
		if ns < 0 {
			dispatched = false
		}
		sum += ns
	}
	if !dispatched {
		a.Flag("not_dispatched")
		return nil
	}
	r.Latency = float64(sum) / 1e6
	r.Set(record.ColLatency)
	return nil
}

// lbStatus reads a status code; "-" (no response: a TCP listener, a
// connection that closed) is 0.
func lbStatus(r *record.Row, line int64, key, s string) error {
	n := int64(0)
	if s != "-" {
		var err error
		if n, err = strconv.ParseInt(s, 10, 32); err != nil || n < 0 || n > 999 {
			return record.FieldErr(line, key, "want an HTTP status code or -, got %q", s)
		}
	}
	r.Status = int32(n)
	r.Set(record.ColStatus)
	return nil
}

// lbRequest splits a request line "METHOD URL PROTOCOL" as a load
// balancer logs it.
func lbRequest(a record.AttrSet, s string) {
	f := strings.Fields(s)
	if len(f) >= 1 {
		a.Str("method", f[0])
	}
	if len(f) >= 2 {
		a.Str("path", f[1])
	}
	if len(f) >= 3 {
		a.Str("protocol", f[2])
	}
}

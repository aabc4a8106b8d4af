package aws

import (
	"context"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/ingest/record"
)

// ELBName names the access log of an AWS Classic Load Balancer:
//
//	timestamp elb client:port backend:port request_processing_time backend_processing_time response_processing_time
//	elb_status_code backend_status_code received_bytes sent_bytes "request" "user_agent" ssl_cipher ssl_protocol
//
// (the last three since 2015). One row per entry: ts = timestamp, which
// AWS documents as "the time when the load balancer received the request
// from the client" (a start); latency_ms = the sum of the three processing
// times as for aws-alb; status = elb_status_code. A TCP or SSL listener's
// entry (request "- - - ") is a connection: an aws-elb.connection event.
const ELBName = "aws-elb"

var elbFields = []string{"timestamp", "elb", "client", "backend", "request_processing_time", "backend_processing_time",
	"response_processing_time", "elb_status_code", "backend_status_code", "received_bytes", "sent_bytes", "request",
	"user_agent", "ssl_cipher", "ssl_protocol"}

func detectAWSELB(_ string, head []byte) bool {
	lines := record.HeadLines(head, 1)
	if len(lines) != 1 {
		return false
	}
	toks, ok := record.Tokens(lines[0])
	if !ok || (len(toks) != 12 && len(toks) != len(elbFields)) || !toks[11].Quoted {
		return false
	}
	if _, ok := record.DecimalNs(toks[4].S); !ok {
		return false
	}
	_, err := time.Parse(time.RFC3339Nano, toks[0].S)
	return err == nil
}

func decodeAWSELB(in record.Input, c record.Sink) (record.Produce, error) {
	run := record.RunName(in.DetectName())
	return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
		var r record.Row
		return record.TextLines(ctx, in.Reader(), func(n int64, b []byte) error {
			isReq, err := elbLine(&r, c, n, b, run)
			if err != nil || !isReq {
				return err
			}
			return add(&r)
		})
	}), nil
}

func elbLine(r *record.Row, c record.Sink, line int64, b []byte, run string) (bool, error) {
	r.Reset(line)
	toks, ok := record.Tokens(b)
	if !ok {
		return false, record.LineErr(line, "a quoted field is not closed")
	}
	if len(toks) != 12 && len(toks) != len(elbFields) {
		return false, record.LineErr(line, "want 12 or 15 fields (a Classic Load Balancer entry), got %d", len(toks))
	}
	f := map[string]string{}
	for i, t := range toks {
		f[elbFields[i]] = t.S
	}
	ts, err := lbTime(line, f, "timestamp")
	if err != nil {
		return false, err
	}
	a := record.AttrSet{}
	if err := lbLatency(r, a, line, f, "request_processing_time", "backend_processing_time", "response_processing_time"); err != nil {
		return false, err
	}
	lbRequest(a, f["request"])
	for _, k := range elbFields[1:] {
		if !strings.HasSuffix(k, "_processing_time") && k != "elb_status_code" && k != "request" {
			a.Str(k, f[k])
		}
	}
	if strings.TrimSpace(f["request"]) == "- - -" {
		delete(a, "method")
		delete(a, "path")
		delete(a, "protocol")
		c.Event(record.Event{Line: line, Run: run, Type: "aws-elb.connection", Subject: record.NilDash(f["backend"]), TsUs: ts, HasTs: true, Attrs: a.String()})
		return false, nil
	}
	r.TsUs = ts
	r.Set(record.ColTsUs)
	r.Group = run
	r.Set(record.ColGroup)
	if err := lbStatus(r, line, "elb_status_code", f["elb_status_code"]); err != nil {
		return false, err
	}
	r.Attrs = a.String()
	r.Set(record.ColAttrs)
	return true, nil
}

package aws

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/ingest/record"
)

// CloudFrontName names CloudFront's standard access log: W3C extended
// format, tab-separated, after a `#Version:` and a `#Fields:` header that
// names the fields. One row per entry: ts = date + time (UTC), which AWS
// documents as "the time when the CloudFront server finished responding
// to the request" (the end, in whole seconds: nothing is subtracted, so
// the file's resolution stays 1000 ms); latency_ms = time-taken (seconds
// to the thousandth, "from when the server receives the viewer's request
// to when the server writes the last byte of the response to the output
// queue"); status = sc-status (000: the viewer closed the connection
// first, 0); req_text = x-edge-request-id. The other fields go to attrs
// under their W3C names, as written (URL-encoded).
const CloudFrontName = "cloudfront"

func detectCloudFront(_ string, head []byte) bool {
	lines := record.HeadLines(head, 2)
	return len(lines) == 2 && bytes.HasPrefix(lines[0], []byte("#Version:")) &&
		bytes.HasPrefix(lines[1], []byte("#Fields:")) && bytes.Contains(lines[1], []byte("x-edge-"))
}

func decodeCloudFront(in record.Input, c record.Sink) (record.Produce, error) {
	run := record.RunName(in.DetectName())
	return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
		var r record.Row
		var names []string
		return record.TextLines(ctx, in.Reader(), func(line int64, b []byte) error {
			if b[0] == '#' {
				if f, ok := bytes.CutPrefix(b, []byte("#Fields:")); ok {
					names = strings.Fields(string(f))
				}
				return nil
			}
			if names == nil {
				return record.LineErr(line, "an entry before the #Fields: header that names its fields")
			}
			if err := cloudfrontLine(&r, line, string(b), names); err != nil {
				return err
			}
			r.Group = run
			r.Set(record.ColGroup)
			return add(&r)
		})
	}), nil
}

func cloudfrontLine(r *record.Row, line int64, b string, names []string) error {
	r.Reset(line)
	vals := strings.Split(strings.TrimRight(b, "\t"), "\t")
	if len(vals) != len(names) {
		return record.LineErr(line, "%d tab-separated fields, the #Fields: header names %d", len(vals), len(names))
	}
	f := map[string]string{}
	for i, n := range names {
		f[n] = vals[i]
	}
	t, err := time.Parse("2006-01-02 15:04:05", f["date"]+" "+f["time"])
	if err != nil {
		return record.FieldErr(line, "date", "want date and time such as 2019-12-04 and 21:02:31 (UTC), got %q and %q", f["date"], f["time"])
	}
	r.TsUs = t.UnixMicro()
	r.Set(record.ColTsUs)
	if s := f["time-taken"]; s != "" && s != "-" {
		ns, ok := record.DecimalNs(s)
		if !ok || ns < 0 {
			return record.FieldErr(line, "time-taken", "want seconds such as 0.082, got %q", s)
		}
		r.Latency = float64(ns) / 1e6
		r.Set(record.ColLatency)
	}
	n, err := strconv.ParseInt(f["sc-status"], 10, 32)
	if err != nil || n < 0 || n > 999 {
		return record.FieldErr(line, "sc-status", "want an HTTP status code (000: no response), got %q", f["sc-status"])
	}
	r.Status = int32(n)
	r.Set(record.ColStatus)
	a := record.AttrSet{}
	a.Str("method", f["cs-method"])
	a.Str("path", f["cs-uri-stem"])
	lbRest(r, a, f, "x-edge-request-id", names, "date", "time", "time-taken", "sc-status", "cs-method", "cs-uri-stem")
	return nil
}

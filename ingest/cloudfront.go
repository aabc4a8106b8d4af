package ingest

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"time"
)

// FormatCloudFront names CloudFront's standard access log: W3C extended
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
const FormatCloudFront = "cloudfront"

func detectCloudFront(_ string, head []byte) bool {
	lines := headLines(head, 2)
	return len(lines) == 2 && bytes.HasPrefix(lines[0], []byte("#Version:")) &&
		bytes.HasPrefix(lines[1], []byte("#Fields:")) && bytes.Contains(lines[1], []byte("x-edge-"))
}

func decodeCloudFront(in *input, c *collector) (produce, error) {
	run := runName(in.detectName())
	return rows(func(ctx context.Context, add func(*row) error) error {
		var r row
		var names []string
		return textLines(ctx, in.reader(), func(line int64, b []byte) error {
			if b[0] == '#' {
				if f, ok := bytes.CutPrefix(b, []byte("#Fields:")); ok {
					names = strings.Fields(string(f))
				}
				return nil
			}
			if names == nil {
				return lineErr(line, "an entry before the #Fields: header that names its fields")
			}
			if err := cloudfrontLine(&r, line, string(b), names); err != nil {
				return err
			}
			r.group = run
			r.set(colGroup)
			return add(&r)
		})
	}), nil
}

func cloudfrontLine(r *row, line int64, b string, names []string) error {
	r.reset(line)
	vals := strings.Split(strings.TrimRight(b, "\t"), "\t")
	if len(vals) != len(names) {
		return lineErr(line, "%d tab-separated fields, the #Fields: header names %d", len(vals), len(names))
	}
	f := map[string]string{}
	for i, n := range names {
		f[n] = vals[i]
	}
	t, err := time.Parse("2006-01-02 15:04:05", f["date"]+" "+f["time"])
	if err != nil {
		return fieldErr(line, "date", "want date and time such as 2019-12-04 and 21:02:31 (UTC), got %q and %q", f["date"], f["time"])
	}
	r.tsUs = t.UnixMicro()
	r.set(colTsUs)
	if s := f["time-taken"]; s != "" && s != "-" {
		ns, ok := decimalNs(s)
		if !ok || ns < 0 {
			return fieldErr(line, "time-taken", "want seconds such as 0.082, got %q", s)
		}
		r.latency = float64(ns) / 1e6
		r.set(colLatency)
	}
	n, err := strconv.ParseInt(f["sc-status"], 10, 32)
	if err != nil || n < 0 || n > 999 {
		return fieldErr(line, "sc-status", "want an HTTP status code (000: no response), got %q", f["sc-status"])
	}
	r.status = int32(n)
	r.set(colStatus)
	a := attrSet{}
	a.str("method", f["cs-method"])
	a.str("path", f["cs-uri-stem"])
	lbRest(r, a, f, "x-edge-request-id", names, "date", "time", "time-taken", "sc-status", "cs-method", "cs-uri-stem")
	return nil
}

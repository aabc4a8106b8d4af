package har

import (
	"bytes"
	"context"
	stdjson "encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	json "github.com/goccy/go-json"
	"github.com/rewind-dev/rewind/ingest/record"
)

// Name names the HTTP Archive 1.2 (a browser's "Save all as HAR",
// Charles, mitmproxy, Insomnia): {"log": {"version", "creator", "pages",
// "entries"}}. One row per entry: ts = startedDateTime, latency_ms = time
// (fractional ms), status = response.status (0, no response, is an error
// by the status rule). A browser's response._error (Chrome, mitmproxy) makes
// the outcome error, canceled for net::ERR_ABORTED. The run is the file,
// since a HAR is one capture; the page of an entry is its pageref in attrs,
// and each page is a har.page event (title, onContentLoad, onLoad). attrs
// hold the method, URL, versions, sizes, timings (without -1, "did not
// happen"), server address, connection and the scalar extension fields
// (_priority, _resourceType, ...). Headers, cookies, query strings, post
// data and bodies are not loaded. The line of a row is the line where its
// entry starts.
const Name = "har"

// detectHar takes a JSON object whose first key is "log" and that names
// a HAR member near the start.
func detectHar(_ string, head []byte) bool {
	t := record.JSONText(head)
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	d := stdjson.NewDecoder(bytes.NewReader(t))
	if tok, err := d.Token(); err != nil || tok != stdjson.Delim('{') {
		return false
	}
	if key, err := d.Token(); err != nil || key != "log" {
		return false
	}
	for _, k := range []string{`"entries"`, `"creator"`, `"pages"`} {
		if bytes.Contains(t, []byte(k)) {
			return true
		}
	}
	return false
}

func decodeHar(in record.Input, c record.Sink) (record.Produce, error) {
	data, err := in.All()
	if err != nil {
		return nil, err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	h := &harDoc{c: c, run: record.RunName(in.DetectName())}
	return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
		h.ctx, h.add = ctx, add
		return h.read(data)
	}), nil
}

type harDoc struct {
	ctx    context.Context
	c      record.Sink
	add    func(*record.Row) error
	run    string
	r      record.Row
	n      int
	params map[string]json.RawMessage
}

func (h *harDoc) read(data []byte) error {
	d := record.NewDoc(data)
	err := harObject(d, "the HAR", func(key string) error {
		if key != "log" {
			return harSkip(d)
		}
		return harObject(d, "log", func(key string) error { return h.logMember(d, key) })
	})
	if err != nil {
		return err
	}
	if err := d.Trailing(); err != nil {
		return err
	}
	if h.params != nil {
		h.c.Experiment(record.CompactObject(h.params))
	}
	return nil
}

// harObject walks the members of the object that starts next.
func harObject(d *record.Doc, what string, fn func(key string) error) error {
	line := d.LineAt(harNext(d))
	tok, err := d.Dec.Token()
	if err != nil {
		return d.SyntaxErr(err)
	}
	if tok != stdjson.Delim('{') {
		return record.LineErr(line, "%s: want a JSON object, got %v", what, tok)
	}
	for d.Dec.More() {
		tok, err := d.Dec.Token()
		if err != nil {
			return d.SyntaxErr(err)
		}
		if err := fn(tok.(string)); err != nil {
			return err
		}
	}
	if _, err := d.Dec.Token(); err != nil {
		return d.SyntaxErr(err)
	}
	return nil
}

func harSkip(d *record.Doc) error {
	var raw stdjson.RawMessage
	if err := d.Dec.Decode(&raw); err != nil {
		return d.SyntaxErr(err)
	}
	return nil
}

func (h *harDoc) logMember(d *record.Doc, key string) error {
	switch key {
	case "entries":
		return harArray(d, key, h.entry)
	case "pages":
		return harArray(d, key, h.page)
	case "version", "creator", "browser":
		var raw stdjson.RawMessage
		if err := d.Dec.Decode(&raw); err != nil {
			return d.SyntaxErr(err)
		}
		if h.params == nil {
			h.params = map[string]json.RawMessage{}
		}
		h.params["har_"+key] = json.RawMessage(raw)
		return nil
	}
	return harSkip(d)
}

func harArray(d *record.Doc, key string, fn func(stdjson.RawMessage, int64) error) error {
	if o := harNext(d); o < len(d.Data) && d.Data[o] != '[' {
		return record.FieldErr(d.LineAt(o), key, "want a JSON array")
	}
	return d.EachElement(fn)
}

// harNext is the offset of the next value's first byte.
func harNext(d *record.Doc) int {
	o := int(d.Dec.InputOffset())
	for o < len(d.Data) && strings.IndexByte(" \t\r\n:,", d.Data[o]) >= 0 {
		o++
	}
	return o
}

// entry decodes one entry into a row.
func (h *harDoc) entry(raw stdjson.RawMessage, line int64) error {
	if h.n++; h.n%1024 == 0 && h.ctx.Err() != nil {
		return h.ctx.Err()
	}
	e, err := harMap(json.RawMessage(raw), line, "entries")
	if err != nil {
		return err
	}
	r := &h.r
	r.Reset(line)
	if r.TsUs, err = harTime(e, line, "startedDateTime"); err != nil {
		return err
	}
	r.Group = h.run
	r.Set(record.ColTsUs)
	r.Set(record.ColGroup)
	if err := harLatency(r, e["time"]); err != nil {
		return err
	}
	req, err := harMap(e["request"], line, "request")
	if err != nil {
		return err
	}
	resp, err := harMap(e["response"], line, "response")
	if err != nil {
		return err
	}
	if err := harStatus(r, resp); err != nil {
		return err
	}
	r.Attrs = harEntryAttrs(e, req, resp)
	r.Set(record.ColAttrs)
	return h.add(r)
}

// harMap decodes an object member; a missing one is an empty map.
func harMap(raw json.RawMessage, line int64, field string) (map[string]json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if len(raw) == 0 {
		return m, nil
	}
	if v := record.JSONVal(raw); v.Kind != 'o' || json.Unmarshal(raw, &m) != nil || m == nil {
		return nil, record.FieldErr(line, field, "want a JSON object, got %s", harDescribe(raw))
	}
	return m, nil
}

func harDescribe(raw json.RawMessage) string {
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
		return "an array"
	}
	return record.JSONVal(raw).Describe()
}

// harTime parses an RFC 3339 member (HAR's ISO 8601 with a zone).
func harTime(m map[string]json.RawMessage, line int64, field string) (int64, error) {
	v := record.JSONVal(m[field])
	if v.Kind != 's' {
		return 0, record.FieldErr(line, field, "want an RFC 3339 time such as 2026-01-02T15:04:05.123+01:00, got %s", v.Describe())
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(v.Text))
	if err != nil {
		return 0, record.FieldErr(line, field, "want an RFC 3339 time such as 2026-01-02T15:04:05.123+01:00, got %q", record.Truncate(v.Text, 40))
	}
	if t.Year() < 1 || t.Year() > 9999 {
		return 0, record.FieldErr(line, field, "out of range %q", record.Truncate(v.Text, 40))
	}
	return t.UnixMicro(), nil
}

// harLatency reads time, the entry's elapsed ms; -1 (HAR's "unknown")
// and a missing time leave latency_ms empty.
func harLatency(r *record.Row, raw json.RawMessage) error {
	v := record.JSONVal(raw)
	if v.Kind == 'z' {
		return nil
	}
	f, err := strconv.ParseFloat(v.Text, 64)
	if v.Kind != 'n' || err != nil || math.IsInf(f, 0) {
		return record.FieldErr(r.Line, "time", "not a number %s", v.Describe())
	}
	switch {
	case f == -1:
		return nil
	case f < 0:
		return record.FieldErr(r.Line, "time", "negative %s", v.Text)
	}
	r.Latency = f
	r.Set(record.ColLatency)
	return nil
}

// harStatus reads response.status, and response._error when a browser
// says why there is no (whole) response.
func harStatus(r *record.Row, resp map[string]json.RawMessage) error {
	v := record.JSONVal(resp["status"])
	if v.Kind == 'z' {
		return record.FieldErr(r.Line, "response.status", "missing")
	}
	n, err := strconv.ParseInt(v.Text, 10, 64)
	if v.Kind != 'n' || err != nil {
		return record.FieldErr(r.Line, "response.status", "want an integer, got %s", v.Describe())
	}
	if n < 0 || n > 999 {
		return record.FieldErr(r.Line, "response.status", "%s", record.OutOfRange(n, 0, 999))
	}
	r.Status = int32(n)
	r.Set(record.ColStatus)
	if e := record.JSONVal(resp["_error"]); e.Kind == 's' && e.Text != "" {
		r.Outcome = "error"
		if e.Text == "net::ERR_ABORTED" {
			r.Outcome = "canceled"
		}
		r.Set(record.ColOutcome)
	}
	return nil
}

// harEntryAttrs keeps what the entry says besides ts, time and status.
func harEntryAttrs(e, req, resp map[string]json.RawMessage) string {
	a := map[string]json.RawMessage{}
	harCopy(a, req, map[string]string{"method": "method", "url": "url", "httpVersion": "http_version",
		"headersSize": "request_headers_size", "bodySize": "request_body_size"})
	harCopy(a, resp, map[string]string{"statusText": "status_text", "redirectURL": "redirect_url",
		"headersSize": "response_headers_size", "bodySize": "response_body_size",
		"_error": "error", "_transferSize": "transfer_size"})
	if content, err := harMap(resp["content"], 0, "content"); err == nil {
		harCopy(a, content, map[string]string{"size": "content_size", "mimeType": "mime_type"})
	}
	harCopy(a, e, map[string]string{"pageref": "pageref", "serverIPAddress": "server_ip",
		"connection": "connection", "comment": "comment"})
	if t, err := harMap(e["timings"], 0, "timings"); err == nil {
		if s := harScalars(t); s != "{}" {
			a["timings"] = json.RawMessage(s)
		}
	}
	if ini, err := harMap(e["_initiator"], 0, "_initiator"); err == nil {
		harCopy(a, ini, map[string]string{"type": "initiator_type"})
	}
	for k, raw := range e {
		if strings.HasPrefix(k, "_") && harKeep(raw) {
			a[k] = raw
		}
	}
	return record.CompactObject(a)
}

// harCopy copies the members named in keys (HAR name -> attrs key) that
// say something: not null, "" or -1.
func harCopy(dst, src map[string]json.RawMessage, keys map[string]string) {
	for from, to := range keys {
		if raw, ok := src[from]; ok && harKeep(raw) {
			dst[to] = raw
		}
	}
}

// harKeep tells a scalar that says something.
func harKeep(raw json.RawMessage) bool {
	switch v := record.JSONVal(raw); v.Kind {
	case 's':
		return v.Text != ""
	case 'n':
		f, err := strconv.ParseFloat(v.Text, 64)
		return err == nil && f != -1
	case 'b':
		return true
	}
	return false
}

// harScalars renders an object's scalar members that say something.
func harScalars(m map[string]json.RawMessage) string {
	out := map[string]json.RawMessage{}
	for k, raw := range m {
		if harKeep(raw) {
			out[k] = raw
		}
	}
	return record.CompactObject(out)
}

// page decodes one page into a har.page event.
func (h *harDoc) page(raw stdjson.RawMessage, line int64) error {
	p, err := harMap(json.RawMessage(raw), line, "pages")
	if err != nil {
		return err
	}
	ts, err := harTime(p, line, "startedDateTime")
	if err != nil {
		return err
	}
	id := record.JSONVal(p["id"])
	if id.Kind != 's' {
		return record.FieldErr(line, "id", "want the page's id, a string, got %s", id.Describe())
	}
	a := map[string]json.RawMessage{}
	harCopy(a, p, map[string]string{"title": "title", "comment": "comment"})
	if t, err := harMap(p["pageTimings"], line, "pageTimings"); err == nil {
		harCopy(a, t, map[string]string{"onContentLoad": "on_content_load_ms", "onLoad": "on_load_ms"})
	}
	h.c.Event(record.Event{Line: line, Type: "har.page", Subject: id.Text, TsUs: ts, HasTs: true, Attrs: record.CompactObject(a)})
	return nil
}

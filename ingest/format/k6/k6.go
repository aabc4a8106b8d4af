package k6

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	json "github.com/goccy/go-json"
	"github.com/rewind-dev/rewind/ingest/record"
)

// Name names k6's JSON output (k6 run --out json=FILE): one object per
// line, a {"type":"Metric"} record the first time a metric appears and a
// {"type":"Point"} record per sample (grafana/k6 internal/output/json).
//
// k6 writes an HTTP request as up to nine points that share time and tags,
// one after the other (lib/netext/httpext Trail.SaveSamples): http_reqs,
// http_req_duration, http_req_blocked, _connecting, _tls_handshaking,
// _sending, _waiting, _receiving and, with a response callback,
// http_req_failed. They become one canonical row; every other point and
// every Metric record becomes an event.
const Name = "k6"

// k6HTTP lists the points of one HTTP request with the attrs key each gives
// the request's row (http_req_duration is the row itself). bit marks the
// metric in a group, so a second point of the same metric starts the next
// request even when two requests end at the same time with the same tags.
var k6HTTP = map[string]struct {
	bit  uint16
	attr string
}{
	"http_reqs":                {1 << 0, "reqs"},
	"http_req_duration":        {1 << 1, ""},
	"http_req_blocked":         {1 << 2, "blocked_ms"},
	"http_req_connecting":      {1 << 3, "connecting_ms"},
	"http_req_tls_handshaking": {1 << 4, "tls_handshaking_ms"},
	"http_req_sending":         {1 << 5, "sending_ms"},
	"http_req_waiting":         {1 << 6, "waiting_ms"},
	"http_req_receiving":       {1 << 7, "receiving_ms"},
	"http_req_failed":          {1 << 8, "failed"},
}

// k6Record is one line of k6's JSON output.
type k6Record struct {
	Type   string          `json:"type"`
	Metric string          `json:"metric"`
	Data   json.RawMessage `json:"data"`
}

// k6Data is the data of a Point record.
type k6Data struct {
	Time     json.RawMessage `json:"time"`
	Value    json.RawMessage `json:"value"`
	Tags     json.RawMessage `json:"tags"`
	Metadata json.RawMessage `json:"metadata"`
}

// k6Point is one sample, from the JSON or the CSV output.
type k6Point struct {
	line   int64
	csv    bool // names fields as the CSV header does
	metric string
	time   string    // as k6 wrote it: part of the request's identity
	end    time.Time // k6 stamps a sample when it is taken: an HTTP request's end
	unitUs int64     // the precision of time: 1e6 for whole seconds, 1e3 for ms, else 1
	value  float64
	// Tags and metadata as written, compared before anything is decoded:
	// the points of one request mostly repeat them byte for byte. rawTags
	// and rawMeta (JSON) are decoded into tags and meta on first use; the
	// CSV decoder fills tags and meta at once and gives its cells as raw.
	raw, rawTags, rawMeta []byte
	tags, meta            map[string]json.RawMessage
	decoded               bool
}

// detectK6 takes a file whose first line is a k6 Metric or Point record.
func detectK6(_ string, head []byte) bool {
	line := record.FirstLine(head)
	var rec k6Record
	if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &rec) != nil {
		return false
	}
	return (rec.Type == "Metric" || rec.Type == "Point") && rec.Metric != "" && record.JSONVal(rec.Data).Kind == 'o'
}

// decodeK6 streams the file line by line; only the points of the request
// being assembled are held.
func decodeK6(in record.Input, c record.Sink) (record.Produce, error) {
	return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
		g := &k6Requests{c: c, add: add}
		lines := record.NewLineReader(in.Reader())
		for {
			b, line, err := lines.Next()
			if err == io.EOF {
				return g.flush()
			}
			if err != nil {
				return err
			}
			if line%4096 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			if b = bytes.TrimSpace(b); len(b) > 0 {
				if err := k6DecodeLine(b, line, g); err != nil {
					return err
				}
			}
		}
	}), nil
}

func k6DecodeLine(b []byte, line int64, g *k6Requests) error {
	if !utf8.Valid(b) {
		return record.LineErr(line, "invalid UTF-8")
	}
	var rec k6Line
	if err := json.Unmarshal(b, &rec); err != nil {
		return k6Diagnose(b, line, err)
	}
	if rec.Metric == "" {
		return record.FieldErr(line, "metric", "missing (want the metric's name)")
	}
	switch rec.Type {
	case "Point":
		p, err := k6JSONPoint(line, rec.Metric, &rec.Data)
		if err != nil {
			return err
		}
		return g.point(p)
	case "Metric":
		var whole k6Record // the definition's members are not k6Data's
		if err := json.Unmarshal(b, &whole); err != nil {
			return record.LineErr(line, "bad JSON: %s", record.JSONMsg(err))
		}
		ev, err := k6MetricEvent(line, rec.Metric, whole.Data)
		if err == nil {
			g.c.Event(ev) // between the points of a request, as k6 writes it: no flush
		}
		return err
	}
	return record.FieldErr(line, "type", "want \"Metric\" or \"Point\", got %q", rec.Type)
}

// k6Line is a record decoded in one pass, for a Point's data.
type k6Line struct {
	Type   string `json:"type"`
	Metric string `json:"metric"`
	Data   k6Data `json:"data"`
}

// k6Diagnose names what made a line fail to decode: a data that is not an
// object, or the JSON itself.
func k6Diagnose(b []byte, line int64, err error) error {
	var rec k6Record
	if json.Unmarshal(b, &rec) != nil {
		return record.LineErr(line, "bad JSON: %s", record.JSONMsg(err))
	}
	if v := record.JSONVal(rec.Data); v.Kind != 'o' && v.Kind != 'z' {
		want := "a JSON object"
		if rec.Type == "Point" {
			want = "an object with time, value and tags"
		}
		return record.FieldErr(line, "data", "want %s, got %s", want, v.Describe())
	}
	return record.FieldErr(line, "data", "%s", record.JSONMsg(err))
}

func k6JSONPoint(line int64, metric string, d *k6Data) (k6Point, error) {
	p := k6Point{line: line, metric: metric, unitUs: 1}
	t := record.JSONVal(d.Time)
	if t.Kind != 's' {
		return p, record.FieldErr(line, "data.time", "want an RFC 3339 time, got %s", t.Describe())
	}
	var err error
	if p.end, err = time.Parse(time.RFC3339Nano, t.Text); err != nil {
		return p, record.FieldErr(line, "data.time", "want an RFC 3339 time such as 2021-02-24T13:37:10.123456789Z, got %q", t.Text)
	}
	p.time = t.Text
	if p.value, err = k6Value(d.Value); err != nil {
		return p, record.FieldErr(line, "data.value", "%v", err)
	}
	for _, f := range []struct {
		raw  json.RawMessage
		name string
	}{{d.Tags, "data.tags"}, {d.Metadata, "data.metadata"}} {
		if v := record.JSONVal(f.raw); v.Kind != 'o' && v.Kind != 'z' {
			return p, record.FieldErr(line, f.name, "want a JSON object, got %s", v.Describe())
		}
	}
	p.rawTags, p.rawMeta = d.Tags, d.Metadata
	return p, nil
}

// decode decodes the tags and metadata of a JSON point, once.
func (p *k6Point) decode() error {
	if p.decoded {
		return nil
	}
	var err error
	if p.tags, err = k6Object(p.rawTags, p.line, "data.tags"); err != nil {
		return err
	}
	p.meta, err = k6Object(p.rawMeta, p.line, "data.metadata")
	p.decoded = err == nil
	return err
}

func k6Value(raw json.RawMessage) (float64, error) {
	v := record.JSONVal(raw)
	if v.Kind != 'n' {
		return 0, fmt.Errorf("not a number %s", v.Describe())
	}
	f, err := strconv.ParseFloat(v.Text, 64)
	if err != nil {
		return 0, fmt.Errorf("out of range %s", v.Text)
	}
	return f, nil
}

// k6Object reads an optional object (tags, metadata): nil when absent or null.
func k6Object(raw json.RawMessage, line int64, field string) (map[string]json.RawMessage, error) {
	v := record.JSONVal(raw)
	if v.Kind == 'z' {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if v.Kind != 'o' || json.Unmarshal(raw, &m) != nil {
		return nil, record.FieldErr(line, field, "want a JSON object, got %s", v.Describe())
	}
	return m, nil
}

// k6MetricEvent keeps a metric's definition: its type as the state, the
// rest (contains, thresholds, submetrics) in attrs.
func k6MetricEvent(line int64, name string, raw json.RawMessage) (record.Event, error) {
	obj, err := k6Object(raw, line, "data")
	if err != nil {
		return record.Event{}, err
	}
	ev := record.Event{Line: line, Type: "k6_metric", Subject: name}
	if t := record.JSONVal(obj["type"]); t.Kind == 's' {
		ev.State = t.Text
		delete(obj, "type")
	}
	if n := record.JSONVal(obj["name"]); n.Kind == 's' && n.Text == name {
		delete(obj, "name")
	}
	if len(obj) > 0 {
		ev.Attrs = record.CompactObject(obj)
	}
	return ev, nil
}

// k6Requests assembles the points of one request: consecutive HTTP points
// with the same time and tags, each metric at most once.
type k6Requests struct {
	c     record.Sink
	add   func(*record.Row) error
	group []k6Point
	key   string // the group's canonical tags, once needed
	seen  uint16
	r     record.Row
}

func (g *k6Requests) point(p k6Point) error {
	h, ok := k6HTTP[p.metric]
	if !ok {
		if err := g.flush(); err != nil {
			return err
		}
		return g.event(&p)
	}
	if len(g.group) > 0 {
		same, err := g.sameRequest(&p)
		if err != nil {
			return err
		}
		if !same || g.seen&h.bit != 0 {
			if err := g.flush(); err != nil {
				return err
			}
		}
	}
	g.group, g.seen = append(g.group, p), g.seen|h.bit
	return nil
}

// sameRequest tells whether p has the group's time and tags. Tags that are
// not the same bytes are compared as objects: k6 v0.3x wrote their keys in
// a different order on every point, its CSV extra_tags too.
func (g *k6Requests) sameRequest(p *k6Point) (bool, error) {
	q := &g.group[0]
	if p.time != q.time {
		return false, nil
	}
	if bytes.Equal(p.raw, q.raw) && bytes.Equal(p.rawTags, q.rawTags) && bytes.Equal(p.rawMeta, q.rawMeta) {
		return true, nil
	}
	if err := p.decode(); err != nil {
		return false, err
	}
	if g.key == "" {
		if err := q.decode(); err != nil {
			return false, err
		}
		g.key = k6Canonical(q)
	}
	return k6Canonical(p) == g.key, nil
}

func k6Canonical(p *k6Point) string {
	return record.CompactObject(p.tags) + "\x00" + record.CompactObject(p.meta)
}

// flush emits the assembled request, or its points as events when it has
// no http_req_duration (a file cut in the middle of a request).
func (g *k6Requests) flush() error {
	group := g.group
	g.group, g.seen, g.key = g.group[:0], 0, ""
	for i := range group {
		if group[i].metric == "http_req_duration" {
			if err := k6Row(&g.r, group, i); err != nil {
				return err
			}
			return g.add(&g.r)
		}
	}
	for i := range group {
		if err := g.event(&group[i]); err != nil {
			return err
		}
	}
	return nil
}

func (g *k6Requests) event(p *k6Point) error {
	if err := p.decode(); err != nil {
		return err
	}
	g.c.Event(k6PointEvent(p))
	return nil
}

// k6Row fills r from the request whose duration point is group[d].
func k6Row(r *record.Row, group []k6Point, d int) error {
	dur := &group[d]
	if err := dur.decode(); err != nil {
		return err
	}
	r.Reset(dur.line)
	r.Latency, r.TsUs = dur.value, k6SendTime(dur)
	r.Set(record.ColLatency)
	r.Set(record.ColTsUs)
	attrs, err := k6RowTags(r, dur)
	if err != nil {
		return err
	}
	for i, p := range group {
		if i == d || p.metric == "http_reqs" && p.value == 1 {
			continue // http_reqs counts the request: 1, the row itself
		}
		if p.metric == "http_req_failed" && !r.Is(record.ColOutcome) {
			r.Outcome = k6Outcome(p.value == 0)
			r.Set(record.ColOutcome)
		}
		k6Put(attrs, "k6_", k6HTTP[p.metric].attr, k6Number(p.value))
	}
	k6Put(attrs, "k6_", "time", record.JSONQuote(dur.time))
	r.Attrs = record.CompactObject(attrs)
	r.Set(record.ColAttrs)
	return nil
}

// k6RowTags maps status, expected_response and scenario (or the group of
// setup and teardown) to their columns and returns the tags and metadata
// that go to attrs. scenario stays in attrs too: --run or a gathered
// experiment replaces the run it names.
func k6RowTags(r *record.Row, p *k6Point) (map[string]json.RawMessage, error) {
	if raw, ok := p.tags["status"]; ok {
		if err := k6Status(r, p, raw); err != nil {
			return nil, err
		}
	}
	if raw, ok := p.tags["expected_response"]; ok {
		if err := k6Expected(r, p, raw); err != nil {
			return nil, err
		}
	}
	attrs := make(map[string]json.RawMessage, len(p.tags)+len(p.meta)+9)
	for k, raw := range p.tags {
		if k == "status" || k == "expected_response" {
			continue
		}
		if v := record.JSONVal(raw); k == "scenario" && v.Kind == 's' && v.Text != "" {
			r.Group = v.Text
			r.Set(record.ColGroup)
		}
		attrs[k] = raw
	}
	if run := k6LifecycleRun(p.tags); run != "" && !r.Is(record.ColGroup) {
		r.Run = run
		r.Set(record.ColRun)
	}
	for k, raw := range p.meta {
		k6Put(attrs, "metadata_", k, raw)
	}
	return attrs, nil
}

// k6LifecycleRun names the run of a request made in setup() or teardown():
// k6 gives those no scenario tag, only the group ::setup or ::teardown
// (::setup::NAME inside a group). They are their own run, set as the row's
// run so that neither --run nor a file's run mixes them into a scenario's
// windows.
func k6LifecycleRun(tags map[string]json.RawMessage) string {
	g := record.JSONVal(tags["group"])
	if g.Kind != 's' {
		return ""
	}
	for _, run := range []string{"setup", "teardown"} {
		if g.Text == "::"+run || strings.HasPrefix(g.Text, "::"+run+"::") {
			return run
		}
	}
	return ""
}

// k6Status reads the status tag: "0" (or "") when there was no response.
func k6Status(r *record.Row, p *k6Point, raw json.RawMessage) error {
	v := record.JSONVal(raw)
	if v.Kind != 's' && v.Kind != 'n' {
		return record.FieldErr(p.line, p.field("status"), "want an HTTP status, got %s", v.Describe())
	}
	s := strings.TrimSpace(v.Text)
	n, err := strconv.ParseInt(s, 10, 64)
	switch {
	case s == "":
		n = 0
	case err != nil:
		return record.FieldErr(p.line, p.field("status"), "want an HTTP status, got %s", v.Describe())
	case n < 0 || n > 999:
		return record.FieldErr(p.line, p.field("status"), "%s", record.OutOfRange(n, 0, 999))
	}
	r.Status = int32(n)
	r.Set(record.ColStatus)
	return nil
}

// k6Expected reads k6's own verdict (the responseCallback, by default
// 200-399): the rule behind http_req_failed.
func k6Expected(r *record.Row, p *k6Point, raw json.RawMessage) error {
	v := record.JSONVal(raw)
	if (v.Kind == 's' || v.Kind == 'b') && (v.Text == "true" || v.Text == "false") {
		r.Outcome = k6Outcome(v.Text == "true")
		r.Set(record.ColOutcome)
		return nil
	}
	return record.FieldErr(p.line, p.field("expected_response"), "want \"true\" or \"false\", got %s", v.Describe())
}

func k6Outcome(ok bool) string {
	if ok {
		return "ok"
	}
	return "error"
}

// k6SendTime is when the request began sending: k6 stamps its points at the
// end of the response, http_req_duration (sending + waiting + receiving)
// earlier, kept in the time's own unit. Whole-second times (k6's CSV
// default) are kept as they are: they carry no sub-second information.
func k6SendTime(p *k6Point) int64 {
	endUs := p.end.UnixMicro()
	if p.unitUs >= 1e6 || !(p.value >= 0 && p.value < 1e12) {
		return endUs
	}
	us := p.end.Add(-time.Duration(math.Round(p.value * 1e6))).UnixMicro()
	if p.unitUs > 1 {
		us -= ((us % p.unitUs) + p.unitUs) % p.unitUs
	}
	return us
}

// k6PointEvent keeps a sample that is not part of an HTTP request (checks,
// iterations, vus, data_sent, custom metrics, ...): subject is the metric,
// state its value, attrs its tags and metadata.
func k6PointEvent(p *k6Point) record.Event {
	ev := record.Event{Line: p.line, Type: "k6_point", Subject: p.metric, State: record.FormatFloat(p.value),
		TsUs: p.end.UnixMicro(), HasTs: true}
	if len(p.tags)+len(p.meta) == 0 {
		return ev
	}
	attrs := make(map[string]json.RawMessage, len(p.tags)+len(p.meta))
	for k, v := range p.tags {
		attrs[k] = v
	}
	for k, v := range p.meta {
		k6Put(attrs, "metadata_", k, v)
	}
	ev.Attrs = record.CompactObject(attrs)
	return ev
}

// k6Put sets k, or prefix+k when a tag already took that name.
func k6Put(m map[string]json.RawMessage, prefix, k string, v json.RawMessage) {
	if _, taken := m[k]; taken {
		k = prefix + k
	}
	m[k] = v
}

// k6Number renders a value for attrs; JSON has no NaN or infinity.
func k6Number(f float64) json.RawMessage {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return record.JSONQuote(record.FormatFloat(f))
	}
	return json.RawMessage(record.FormatFloat(f))
}

// field names a tag as the file does: data.tags.X in JSON, the column in CSV.
func (p *k6Point) field(tag string) string {
	if p.csv {
		return tag
	}
	return "data.tags." + tag
}

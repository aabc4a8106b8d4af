package clf

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/ingest/record"
)

// Name names text access logs: the NCSA Common Log Format and the
// layouts built on it that nginx, Apache and Traefik write, read either by
// recognising the layout (common, combined, vhost_combined, followed by the
// timing fields operators add) or from the server's own log_format /
// LogFormat line given with --log-format. One row per line:
//
//	ts          the logged time; nginx writes it when the request ends, so
//	            its request time is taken off; Apache (%t) and Traefik write
//	            the start
//	latency_ms  nginx $request_time (s), Apache %D (µs), %T, %{ms}T,
//	            Traefik's trailing "12ms"
//	status      $status, %>s
//	req_text    $request_id, %L, %{UNIQUE_ID}e, X-Request-ID
//	run         the file's name
//
// Every other field goes to attrs under nginx's variable name (Apache's
// directives are named alike: %{User-Agent}i is http_user_agent), with
// the request line split into method, path and protocol. "-" is no value.
const Name = "clf"

// clfLayouts are the layouts recognised without --log-format, most fields
// first. Their time is the logged one; the trailing fields tell whether it
// is the request's end (nginx's $request_time follows).
var clfLayouts = func() []*layout {
	var out []*layout
	for _, s := range []string{
		`%v:%p %h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-Agent}i"`,
		`%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-Agent}i"`,
		`%h %l %u %t "%r" %>s %b`,
	} {
		lo, err := parseLayout(s)
		if err != nil {
			panic(err)
		}
		for _, it := range lo.items {
			if it.f != nil && it.f.name == "remote_host" {
				it.f.name = "remote_addr" // nginx's name; the server is not known yet
			}
		}
		lo.server, lo.open = "", true
		out = append(out, lo)
	}
	return out
}()

// detectCLF takes a first line that one of the recognised layouts reads.
func detectCLF(name string, head []byte) bool {
	line := record.FirstLine(head)
	return len(line) > 0 && line[0] != '{' && line[0] != '[' && recognisedLayout(line) != nil
}

// recognisedLayout is the first layout of clfLayouts whose fields the
// line gives, with a time and a status that read.
func recognisedLayout(line []byte) *layout {
	var r record.Row
	for _, lo := range clfLayouts {
		r.Reset(1)
		d := clfDecoder{lo: lo}
		if vals, rest, err := lo.split(line, nil); err == nil && (len(rest) == 0 || rest[0] == ' ') {
			if d.fields(&r, vals) == nil && r.Is(record.ColTsUs) && r.Is(record.ColStatus) {
				return lo
			}
		}
	}
	return nil
}

// decode reads the input's lines by lo (nil: the layout recognised from
// the first line); given says lo came with {log-format}.
func decode(in record.Input, out record.Sink, lo *layout, given bool) (record.Produce, error) {
	d := clfDecoder{run: record.RunName(in.DetectName()), lo: lo, given: given, said: &said{}}
	if lo == nil {
		if d.lo = recognisedLayout(record.FirstLine(in.Head())); d.lo == nil {
			return nil, record.LineErr(1, "not a Common Log Format line (nginx, Apache, Traefik): give the server's log format with {log-format}")
		}
	}
	out.TimeStep(d.lo.timeStep())
	return record.Chunks(in.Reader(), 1, record.LineEnd, 0, func(ch record.Chunk) record.ChunkResult {
		return d.chunk(ch, out)
	}), nil
}

// clfDecoder reads the lines of one file with one layout.
type clfDecoder struct {
	lo    *layout
	given bool // the layout came with --log-format: a line must end where it does
	run   string
	attrs attrList
	// last is the time text last read and its value: a busy log repeats
	// each second's text on many lines.
	lastTime   string
	lastTimeUs int64
	latName    string // the field the latency came from, for errors
	// fineTime is set once a time the layout gives in whole seconds came
	// with a fraction (Go reads one there): the file's times are finer.
	fineTime bool
	// endNoLatency is set once a line's time is its end with no duration to
	// take off (nginx without $request_time), to warn once.
	endNoLatency bool
	// startOrEnd is set once a recognised line without a duration gave a
	// time that one server writes at the start and another at the end.
	startOrEnd bool
	// said is what the file's chunks have passed on so far.
	said *said
}

// said is what a file's chunks have passed on to its Sink, in the file's
// order: each warning once, and a finer time step once.
type said struct {
	fineTime, endNoLatency, startOrEnd, guessed bool
}

// chunk decodes one chunk's lines (record.Chunks runs one per core), with
// a decoder of its own; what it noticed goes to out in the file's order.
func (d clfDecoder) chunk(ch record.Chunk, out record.Sink) record.ChunkResult {
	d.attrs, d.lastTime = attrList{}, ""
	var r record.Row
	var vals [][]byte
	data, line := ch.Data, ch.FirstLine
	if line == 1 {
		data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	}
	batches, err := record.ChunkBatches(0, data, func(bt *record.Builder) (bool, error) {
		if len(data) == 0 {
			return false, nil
		}
		b, rest := record.CutLine(data)
		b = bytes.TrimRight(b, "\r")
		data, line = rest, line+1
		if len(bytes.TrimSpace(b)) == 0 {
			return true, nil
		}
		r.Reset(line - 1)
		var err error
		if vals, err = d.line(&r, b, vals); err == nil {
			bt.Append(&r)
		}
		return true, err
	})
	if err != nil {
		return record.ChunkResult{Err: err}
	}
	return record.ChunkResult{Batches: batches, Done: func() { d.warn(out) }}
}

// warn passes on, once for the file, what this chunk noticed: the file's
// times are as fine as its finest chunk's, and each warning is said once.
func (d *clfDecoder) warn(out record.Sink) {
	s := d.said
	if d.fineTime && !s.fineTime {
		s.fineTime = true
		out.TimeStep(0)
	}
	if d.endNoLatency && !s.endNoLatency {
		s.endNoLatency = true
		out.Warn(endNoLatencyWarning(d.lo, d.given))
	}
	if d.startOrEnd && !s.startOrEnd {
		s.startOrEnd = true
		out.Warn(startOrEndWarning())
	}
	if d.given && d.lo.guessed && !s.guessed {
		s.guessed = true
		out.Warn(guessedWarning())
	}
}

// line decodes one line into r.
func (d *clfDecoder) line(r *record.Row, b []byte, vals [][]byte) ([][]byte, error) {
	vals, rest, err := d.lo.split(b, vals)
	if err != nil {
		return vals, atLine(err, r.Line)
	}
	d.attrs.reset()
	if err := d.fields(r, vals); err != nil {
		return vals, atLine(err, r.Line)
	}
	end, latName := d.lo.timeEnd(), d.latName
	switch {
	case d.given && len(rest) > 0:
		return vals, record.LineErr(r.Line, "the line goes on after the log format's last field: %q", record.Truncate(string(rest), 40))
	case !d.given:
		t := trailer{lo: d.lo, r: r, attrs: &d.attrs}
		if err := t.read(rest); err != nil {
			return vals, err
		}
		end, latName = t.nginx, "request_time"
		d.startOrEnd = d.startOrEnd || !end && r.Is(record.ColTsUs) && !r.Is(record.ColLatency)
	}
	return vals, d.finish(r, end, latName)
}

// finish moves an end time back by the request's duration, names the run
// and stores attrs. A duration that moves the start out of the years
// requests may have is the duration's error (latName), not the time's.
func (d *clfDecoder) finish(r *record.Row, end bool, latName string) error {
	if end && r.Is(record.ColTsUs) {
		if r.Is(record.ColLatency) {
			start := r.TsUs - int64(r.Latency*1000+0.5)
			if start < record.MinTsUs && r.TsUs >= record.MinTsUs {
				return record.FieldErr(r.Line, latName, "a duration of %s ms puts the request's start before the year 1900 (it ended at %s)",
					strconv.FormatFloat(r.Latency, 'f', -1, 64), time.UnixMicro(r.TsUs).UTC().Format(time.RFC3339Nano))
			}
			r.TsUs = start
		} else {
			d.endNoLatency = true
		}
	}
	r.Group = d.run
	r.Set(record.ColGroup)
	r.Attrs = d.attrs.json()
	r.Set(record.ColAttrs)
	return nil
}

func atLine(err error, line int64) error {
	if le, ok := err.(*record.LineError); ok {
		c := *le
		c.Line = line
		return &c
	}
	return err
}

// fields sets the row's columns and attrs from the layout's field values.
func (d *clfDecoder) fields(r *record.Row, vals [][]byte) error {
	i := 0
	for _, it := range d.lo.items {
		if it.f == nil {
			continue
		}
		v := vals[i]
		i++
		if absentValue(v) {
			continue
		}
		if err := d.field(r, it.f, v); err != nil {
			return err
		}
	}
	return nil
}

func (d *clfDecoder) field(r *record.Row, f *logField, v []byte) error {
	switch f.role {
	case roleStatus:
		n, ok := record.ParseStatus(v)
		if !ok {
			return record.FieldErr(r.Line, f.name, "want an HTTP status code, got %q", record.Truncate(string(v), 20))
		}
		r.Status = n
		r.Set(record.ColStatus)
	case roleTime:
		us, err := d.timeUs(f, v)
		if err != nil {
			return record.FieldErr(r.Line, f.name, "%s", err.Error())
		}
		r.TsUs = us
		r.Set(record.ColTsUs)
		d.attr(f.name, string(v))
		d.fineTime = d.fineTime || (f.stepMs == 1000 && bytes.IndexByte(v, '.') >= 0)
	case roleLatency:
		ms, err := f.latencyMs(v)
		if err != nil {
			return record.FieldErr(r.Line, f.name, "%s", err.Error())
		}
		r.Latency, d.latName = ms, f.name
		r.Set(record.ColLatency)
	case roleReqID:
		r.ReqText = unescape(v)
		r.Set(record.ColReqText)
	case roleRequest:
		d.request(unescape(v))
	default:
		d.attr(f.name, unescape(v))
	}
	return nil
}

// request splits a request line into method, path and protocol; one that
// does not split (a TLS handshake sent to a plain port) is kept whole.
func (d *clfDecoder) request(s string) {
	parts := strings.Split(s, " ")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
		d.attr("request", s)
		return
	}
	d.attr("method", parts[0])
	d.attr("path", parts[1])
	if len(parts) == 3 {
		d.attr("protocol", parts[2])
	}
}

func (d *clfDecoder) attr(k, v string) {
	d.attrs.add(k, v)
}

func (d *clfDecoder) timeUs(f *logField, v []byte) (int64, error) {
	if string(v) == d.lastTime {
		return d.lastTimeUs, nil
	}
	us, err := f.timeUs(v)
	if err == nil {
		d.lastTime, d.lastTimeUs = string(v), us
	}
	return us, err
}

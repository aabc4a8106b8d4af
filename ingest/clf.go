package ingest

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"

	json "github.com/goccy/go-json"
)

// FormatCLF names text access logs: the NCSA Common Log Format and the
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
const FormatCLF = "clf"

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
	line := firstLine(head)
	return len(line) > 0 && line[0] != '{' && line[0] != '[' && recognisedLayout(line) != nil
}

// recognisedLayout is the first layout of clfLayouts whose fields the
// line gives, with a time and a status that read.
func recognisedLayout(line []byte) *layout {
	var r row
	for _, lo := range clfLayouts {
		r.reset(1)
		d := clfDecoder{lo: lo}
		if vals, rest, err := lo.split(line, nil); err == nil && (len(rest) == 0 || rest[0] == ' ') {
			if d.fields(&r, vals) == nil && r.is(colTsUs) && r.is(colStatus) {
				return lo
			}
		}
	}
	return nil
}

func decodeCLF(layoutText string) func(in *input, c *collector) (produce, error) {
	return func(in *input, c *collector) (produce, error) {
		d := clfDecoder{run: runName(in.detectName()), c: c}
		if layoutText != "" {
			lo, err := parseLayout(layoutText)
			if err != nil {
				return nil, err
			}
			d.lo, d.given = lo, true
		} else if d.lo = recognisedLayout(firstLine(in.head)); d.lo == nil {
			return nil, lineErr(1, "not a Common Log Format line (nginx, Apache, Traefik): give the server's log format with --log-format")
		}
		c.timeStepMs = d.lo.timeStep()
		return rows(d.decode(in.reader())), nil
	}
}

// clfDecoder reads the lines of one file with one layout.
type clfDecoder struct {
	lo    *layout
	given bool // the layout came with --log-format: a line must end where it does
	run   string
	c     *collector
	attrs map[string]json.RawMessage
	// fineTime is set once a time the layout gives in whole seconds came
	// with a fraction (Go reads one there): the file's times are finer.
	fineTime bool
	// endNoLatency is set once a line's time is its end with no duration to
	// take off (nginx without $request_time), to warn once.
	endNoLatency bool
}

func (d *clfDecoder) decode(src io.Reader) func(ctx context.Context, add func(*row) error) error {
	return func(ctx context.Context, add func(*row) error) error {
		br := bufio.NewReaderSize(src, 64<<10)
		var r row
		var vals [][]byte
		for line := int64(1); ; line++ {
			b, err := br.ReadBytes('\n')
			if err != nil && err != io.EOF {
				return err
			}
			if line == 1 {
				b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
			}
			if b = bytes.TrimRight(b, "\r\n"); len(bytes.TrimSpace(b)) > 0 {
				r.reset(line)
				if vals, err = d.line(&r, b, vals); err != nil {
					return err
				}
				if err := add(&r); err != nil {
					return err
				}
			}
			if err == io.EOF {
				d.warn()
				return nil
			}
			if line%4096 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
		}
	}
}

func (d *clfDecoder) warn() {
	if d.fineTime && d.c != nil {
		d.c.timeStepMs = 0
	}
	if d.endNoLatency && d.c != nil {
		d.c.warnings = append(d.c.warnings, "nginx writes its times when a request ends and this log has no $request_time: "+
			"ts is each request's end, not its start (add $request_time to the log_format to tell them apart)")
	}
}

// line decodes one line into r.
func (d *clfDecoder) line(r *row, b []byte, vals [][]byte) ([][]byte, error) {
	vals, rest, err := d.lo.split(b, vals)
	if err != nil {
		return vals, atLine(err, r.line)
	}
	d.attrs = map[string]json.RawMessage{}
	if err := d.fields(r, vals); err != nil {
		return vals, atLine(err, r.line)
	}
	end := d.lo.timeEnd()
	switch {
	case d.given && len(rest) > 0:
		return vals, lineErr(r.line, "the line goes on after the log format's last field: %q", truncate(string(rest), 40))
	case !d.given:
		t := trailer{lo: d.lo, r: r, attrs: d.attrs}
		if err := t.read(rest); err != nil {
			return vals, err
		}
		end = t.nginx
	}
	d.finish(r, end)
	return vals, nil
}

// finish moves an end time back by the request's duration, names the run
// and stores attrs.
func (d *clfDecoder) finish(r *row, end bool) {
	if end && r.is(colTsUs) {
		if r.is(colLatency) {
			r.tsUs -= int64(r.latency*1000 + 0.5)
		} else {
			d.endNoLatency = true
		}
	}
	r.group = d.run
	r.set(colGroup)
	r.attrs = compactObject(d.attrs)
	r.set(colAttrs)
}

func atLine(err error, line int64) error {
	if le, ok := err.(*LineError); ok {
		c := *le
		c.Line = line
		return &c
	}
	return err
}

// fields sets the row's columns and attrs from the layout's field values.
func (d *clfDecoder) fields(r *row, vals [][]byte) error {
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

func (d *clfDecoder) field(r *row, f *logField, v []byte) error {
	switch f.role {
	case roleStatus:
		n, ok := parseStatus(v)
		if !ok {
			return fieldErr(r.line, f.name, "want an HTTP status code, got %q", truncate(string(v), 20))
		}
		r.status = n
		r.set(colStatus)
	case roleTime:
		us, err := f.timeUs(v)
		if err != nil {
			return fieldErr(r.line, f.name, "%s", err.Error())
		}
		r.tsUs = us
		r.set(colTsUs)
		d.attr(f.name, string(v))
		d.fineTime = d.fineTime || (f.stepMs == 1000 && bytes.IndexByte(v, '.') >= 0)
	case roleLatency:
		ms, err := f.latencyMs(v)
		if err != nil {
			return fieldErr(r.line, f.name, "%s", err.Error())
		}
		r.latency = ms
		r.set(colLatency)
	case roleReqID:
		r.reqText = unescape(v)
		r.set(colReqText)
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
	if d.attrs != nil {
		d.attrs[k] = jsonString(v)
	}
}

func parseStatus(v []byte) (int32, bool) {
	if len(v) == 0 || len(v) > 3 {
		return 0, false
	}
	n := int32(0)
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int32(c-'0')
	}
	return n, true
}

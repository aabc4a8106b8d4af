package haproxy

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/ingest/record"
	"github.com/rewind-dev/rewind/internal/param"
)

// Name names HAProxy's `option httplog` log, raw (`log stdout
// format raw`) or behind an RFC 3164 or RFC 5424 syslog prefix. Its default
// layout is the same text in 1.x and 2.x:
//
//	%ci:%cp [%tr] %ft %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %CC %CS %tsc %ac/%fc/%bc/%sc/%rc %sq/%bq %hr %hs %{+Q}r
//
// (1.x: [%t] and Tq/Tw/Tc/Tr/Tt). One row per request line: ts = the date in
// brackets, which HAProxy writes as the start of what the last timer
// measures (2.x: the request's first byte, 1.x: the connection's accept);
// latency_ms = the last timer (Ta, 1.x Tt), null when it is -1 or a
// `+` lower bound (option logasap); status = %ST (-1, no response, is 0).
// The date has no zone: it is the host's local time, read in the offset of
// an RFC 5424 prefix when the line has one, else as UTC (a warning says so).
// Every other field goes to attrs under the names of HAProxy's manual
// (section 8.2.3); a -1 timer is null there ("not reached"). Lines that are
// not requests (Proxy x started, Server b/s is DOWN, option tcplog
// connection lines) become haproxy.message events, timed by their syslog
// prefix (a tcplog line by its accept date).
const Name = "haproxy"

// haproxyDateLayout is %tr and %t: 06/Feb/2009:12:14:14.655.
const haproxyDateLayout = "02/Jan/2006:15:04:05.000"

// detectHaproxy takes a head whose first line that is not an HAProxy
// message is an httplog line, within the first lines.
func detectHaproxy(_ string, head []byte) bool {
	for _, b := range record.HeadLines(head, 32) {
		sh, msg := record.CutSyslog(b)
		if _, _, ok := haproxyPrefix(msg); ok {
			return true
		}
		if _, _, ok := haproxyMessageSubject(string(msg)); !ok && sh.App != "haproxy" {
			return false
		}
	}
	return false
}

// haproxyPrefix recognises `client [date] ` at the start of a log line and
// returns the tokens and the rest: the mark of a request or connection line.
func haproxyPrefix(msg []byte) ([]string, []byte, bool) {
	tok, rest := record.CutTokens(msg, 2)
	if tok == nil || !strings.Contains(tok[0], ":") {
		return nil, nil, false
	}
	d := tok[1]
	if len(d) != len(haproxyDateLayout)+2 || d[0] != '[' || d[len(d)-1] != ']' {
		return nil, nil, false
	}
	if _, err := time.Parse(haproxyDateLayout, d[1:len(d)-1]); err != nil {
		return nil, nil, false
	}
	return tok, rest, true
}

func decodeHaproxy(in record.Input, c record.Sink) (record.Produce, error) {
	run := record.RunName(in.DetectName())
	return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
		h := &haproxyLog{c: c, run: run}
		err := record.TextLines(ctx, in.Reader(), func(line int64, b []byte) error {
			isReq, err := h.line(line, b)
			if err != nil || !isReq {
				return err
			}
			return add(&h.r)
		})
		if err != nil {
			return err
		}
		h.flushPending()
		if h.utc {
			c.Warn(param.Textf("haproxy: the log's dates have no time zone; read as UTC " +
				"(send the log in RFC 5424 format, or shift ts with {map}, when HAProxy's host is not on UTC)"))
		}
		return nil
	}), nil
}

// haproxyLog is the state of one log: the row being filled, the reference
// time that gives RFC 3164 stamps their year, and the events waiting for one.
type haproxyLog struct {
	c       record.Sink
	run     string
	r       record.Row
	ref     time.Time      // the last request's date
	pending []record.Event // RFC 3164 events before the first request
	stamps  []string
	utc     bool // some request's date was read as UTC
	// noticeBytes is the text of the notices so far (haproxyMaxNotices).
	noticeBytes int
}

// line decodes one log line; true when it is a request row (in h.r).
func (h *haproxyLog) line(line int64, b []byte) (bool, error) {
	sh, msg := record.CutSyslog(b)
	tok, rest, ok := haproxyPrefix(msg)
	if !ok {
		return false, h.message(line, sh, string(msg))
	}
	loc := time.UTC
	if sh.Kind == "rfc5424" && !sh.T.IsZero() {
		_, off := sh.T.Zone()
		loc = time.FixedZone("", off)
	} else {
		h.utc = true
	}
	date, _ := time.ParseInLocation(haproxyDateLayout, tok[1][1:len(tok[1])-1], loc)
	h.setRef(date)
	a := record.AttrSet{}
	haproxyClient(a, tok[0])
	haproxySyslog(a, sh)
	mid, tail := record.CutTokens(rest, 3)
	if mid == nil {
		return false, record.LineErr(line, "want frontend_name, backend_name/server_name and timers after the date, got %q", record.Truncate(string(rest), 40))
	}
	a.Str("frontend_name", mid[0])
	if err := haproxyBackend(a, line, mid[1]); err != nil {
		return false, err
	}
	switch n := strings.Count(mid[2], "/") + 1; n {
	case 3:
		return false, h.tcpLine(line, sh, a, date, mid, tail)
	case 5:
	default:
		return false, record.FieldErr(line, "timers", "want TR/Tw/Tc/Tr/Ta (httplog) or Tw/Tc/Tt (tcplog), got %q", record.Truncate(mid[2], 40))
	}
	return true, h.request(line, a, date, mid[2], tail)
}

func (h *haproxyLog) setRef(t time.Time) {
	h.ref = t
	h.flushPending()
}

// request fills h.r from the fields after the timers of an httplog line.
func (h *haproxyLog) request(line int64, a record.AttrSet, date time.Time, timers string, tail []byte) error {
	r := &h.r
	r.Reset(line)
	r.TsUs = date.UnixMicro()
	r.Set(record.ColTsUs)
	r.Group = h.run
	r.Set(record.ColGroup)
	ta, err := haproxyTimers(a, line, timers, []string{"TR", "Tw", "Tc", "Tr", "Ta"})
	if err != nil {
		return err
	}
	if ta >= 0 {
		r.Latency = float64(ta)
		r.Set(record.ColLatency)
	}
	tok, rest := record.CutTokens(tail, 7)
	if tok == nil {
		return record.LineErr(line, "want status_code, bytes_read, cookies, termination_state, connections and queues after the timers, got %q", record.Truncate(string(tail), 40))
	}
	st, err := strconv.ParseInt(tok[0], 10, 32)
	if err != nil || st < -1 || st > 999 {
		return record.FieldErr(line, "status_code", "want an HTTP status code, got %q", record.Truncate(tok[0], 40))
	}
	r.Status = int32(max(st, 0))
	r.Set(record.ColStatus)
	if err := haproxyCount(a, line, "bytes_read", tok[1]); err != nil {
		return err
	}
	a.Str("captured_request_cookie", tok[2])
	a.Str("captured_response_cookie", tok[3])
	a.Str("termination_state", tok[4])
	if err := haproxyCounters(a, line, tok[5], tok[6]); err != nil {
		return err
	}
	haproxyRequestTail(a, rest)
	r.Attrs = a.String()
	r.Set(record.ColAttrs)
	return nil
}

// haproxyTimers puts the slash-separated timers in attrs under names (-1
// as null) and returns the last one: -1 when it is -1 or a lower bound.
func haproxyTimers(a record.AttrSet, line int64, s string, names []string) (int64, error) {
	parts := strings.Split(s, "/")
	last := int64(-1)
	for i, p := range parts {
		plus := strings.HasPrefix(p, "+")
		n, err := strconv.ParseInt(strings.TrimPrefix(p, "+"), 10, 64)
		if err != nil || n < -1 {
			return 0, record.FieldErr(line, names[i], "want milliseconds (an integer, -1 when not reached), got %q", record.Truncate(p, 40))
		}
		switch {
		case n == -1:
			a.Null(names[i])
		case plus:
			a.Num(names[i], n)
			a.Flag("logasap")
		default:
			a.Num(names[i], n)
		}
		if i == len(parts)-1 && !plus {
			last = n
		}
	}
	return last, nil
}

// haproxyCount reads a byte count, which option logasap may mark with a
// leading + (a lower bound).
func haproxyCount(a record.AttrSet, line int64, name, s string) error {
	n, err := strconv.ParseInt(strings.TrimPrefix(s, "+"), 10, 64)
	if err != nil || n < 0 {
		return record.FieldErr(line, name, "want a byte count, got %q", record.Truncate(s, 40))
	}
	if strings.HasPrefix(s, "+") {
		a.Flag("logasap")
	}
	a.Num(name, n)
	return nil
}

var (
	haproxyConnNames  = []string{"actconn", "feconn", "beconn", "srv_conn", "retries"}
	haproxyQueueNames = []string{"srv_queue", "backend_queue"}
)

// haproxyCounters reads %ac/%fc/%bc/%sc/%rc and %sq/%bq (retries may
// carry a + when the request was redispatched).
func haproxyCounters(a record.AttrSet, line int64, conns, queues string) error {
	for _, g := range []struct {
		s     string
		names []string
	}{{conns, haproxyConnNames}, {queues, haproxyQueueNames}} {
		parts := strings.Split(g.s, "/")
		if len(parts) != len(g.names) {
			return record.FieldErr(line, strings.Join(g.names, "/"), "want %d counts separated by /, got %q", len(g.names), record.Truncate(g.s, 40))
		}
		for i, p := range parts {
			if g.names[i] == "retries" && strings.HasPrefix(p, "+") {
				a.Flag("redispatched")
				p = p[1:]
			}
			n, err := strconv.ParseInt(p, 10, 64)
			if err != nil || n < 0 {
				return record.FieldErr(line, g.names[i], "want a count, got %q", record.Truncate(parts[i], 40))
			}
			a.Num(g.names[i], n)
		}
	}
	return nil
}

// haproxyRequestTail reads the optional {captured headers} blocks and the
// quoted request line, which HAProxy truncates (without its closing quote)
// past its log line length.
func haproxyRequestTail(a record.AttrSet, rest []byte) {
	for _, name := range []string{"captured_request_headers", "captured_response_headers"} {
		rest = bytes.TrimLeft(rest, " ")
		if len(rest) == 0 || rest[0] != '{' {
			break
		}
		end := bytes.IndexByte(rest, '}')
		if end < 0 {
			break
		}
		a.Str(name, string(rest[1:end]))
		rest = rest[end+1:]
	}
	rest = bytes.TrimSpace(rest)
	if len(rest) == 0 || rest[0] != '"' {
		a.Str("http_request", string(rest))
		return
	}
	req := string(rest[1:])
	if strings.HasSuffix(req, `"`) {
		req = req[:len(req)-1]
	} else {
		a.Flag("truncated")
	}
	a.Str("http_request", req)
	if f := strings.Fields(req); len(f) >= 2 && req != "<BADREQ>" {
		a.Str("method", f[0])
		a.Str("path", f[1])
		if len(f) >= 3 {
			a.Str("http_version", f[2])
		}
	}
}

func haproxyClient(a record.AttrSet, s string) {
	i := strings.LastIndexByte(s, ':')
	a.Str("client_ip", s[:i])
	a.Str("client_port", s[i+1:])
}

func haproxyBackend(a record.AttrSet, line int64, s string) error {
	b, srv, ok := strings.Cut(s, "/")
	if !ok {
		return record.FieldErr(line, "backend_name/server_name", "want backend/server, got %q", record.Truncate(s, 40))
	}
	a.Str("backend_name", b)
	a.Str("server_name", srv)
	return nil
}

func haproxySyslog(a record.AttrSet, sh record.SyslogHead) {
	a.Str("syslog_host", sh.Host)
	a.Str("syslog_pid", sh.PID)
}

// tcpLine makes an option tcplog line (%ci:%cp [%t] %ft %b/%s %Tw/%Tc/%Tt
// %B %ts %ac/%fc/%bc/%sc/%rc %sq/%bq) an event at its accept date.
func (h *haproxyLog) tcpLine(line int64, sh record.SyslogHead, a record.AttrSet, date time.Time, mid []string, tail []byte) error {
	if _, err := haproxyTimers(a, line, mid[2], []string{"Tw", "Tc", "Tt"}); err != nil {
		return err
	}
	tok, _ := record.CutTokens(tail, 4)
	if tok == nil {
		return record.LineErr(line, "want bytes_read, termination_state, connections and queues after the timers, got %q", record.Truncate(string(tail), 40))
	}
	if err := haproxyCount(a, line, "bytes_read", tok[0]); err != nil {
		return err
	}
	a.Str("termination_state", tok[1])
	if err := haproxyCounters(a, line, tok[2], tok[3]); err != nil {
		return err
	}
	if err := eventTime(line, "date", date); err != nil {
		return err
	}
	h.c.Event(record.Event{Line: line, Run: h.run, Type: "haproxy.message", Subject: mid[0], State: "connection",
		TsUs: date.UnixMicro(), HasTs: true, Attrs: a.String()})
	return nil
}

// message makes a line that is not a request an event, timed by its
// syslog prefix; an RFC 3164 one waits for a request date to give it a
// year. A line is refused unless it is one of HAProxy's notices or comes
// from HAProxy's syslog tag, and the notices of one file are bounded, so
// garbage between the requests is neither stored nor held in memory.
func (h *haproxyLog) message(line int64, sh record.SyslogHead, msg string) error {
	subject, state, known := haproxyMessageSubject(msg)
	if !known && sh.App != "haproxy" {
		return record.LineErr(line, "not an HAProxy request or notice: %q", record.Truncate(msg, 40))
	}
	if h.noticeBytes += len(msg); h.noticeBytes > haproxyMaxNotices {
		return record.LineErr(line, "the notices (lines that are not requests) pass %d MiB: not an HAProxy log", haproxyMaxNotices>>20)
	}
	if !sh.T.IsZero() {
		if err := eventTime(line, "timestamp", sh.T); err != nil {
			return err
		}
	}
	a := record.AttrSet{}
	a.Str("message", msg)
	haproxySyslog(a, sh)
	ev := record.Event{Line: line, Run: h.run, Type: "haproxy.message", Subject: subject, State: state}
	switch {
	case !sh.T.IsZero():
		ev.TsUs, ev.HasTs = sh.T.UnixMicro(), true
	case sh.Kind == "rfc3164":
		a.Str("syslog_time", sh.Stamp)
		ev.Attrs = a.String()
		if h.ref.IsZero() {
			h.pending = append(h.pending, ev)
			h.stamps = append(h.stamps, sh.Stamp)
			return nil
		}
		ev.TsUs, ev.HasTs = record.In3164Year(sh.Stamp, h.ref, h.ref.Location()).UnixMicro(), true
	}
	ev.Attrs = a.String()
	h.c.Event(ev)
	return nil
}

// haproxyMaxNotices bounds the text of one file's notices (docs/limits.md).
const haproxyMaxNotices = 64 << 20

// eventTime holds an event's time to the years requests are held to.
func eventTime(line int64, field string, t time.Time) error {
	if us := t.UnixMicro(); us < record.MinTsUs || us > record.MaxTsUs {
		return record.FieldErr(line, field, "time %s is out of range (want the years 1900 to 2199)", t.UTC().Format(time.RFC3339Nano))
	}
	return nil
}

// flushPending adds the events that waited for a year, timed when a
// request has given one.
func (h *haproxyLog) flushPending() {
	for i, ev := range h.pending {
		if !h.ref.IsZero() {
			ev.TsUs, ev.HasTs = record.In3164Year(h.stamps[i], h.ref, h.ref.Location()).UnixMicro(), true
		}
		h.c.Event(ev)
	}
	h.pending, h.stamps = nil, nil
}

// haproxyMessages are HAProxy's own notices: subject and state from the text.
var haproxyMessages = []struct {
	re    *regexp.Regexp
	state string // "" takes the second group
}{
	{regexp.MustCompile(`^Proxy (\S+?)\.? (started|stopped)`), ""},
	{regexp.MustCompile(`^Stopping (?:frontend|backend|proxy) (\S+)`), "stopping"},
	{regexp.MustCompile(`^Pausing (?:frontend|backend|proxy) (\S+)`), "pausing"},
	{regexp.MustCompile(`^(?:Health check for )?(?:[Bb]ackup )?[Ss]erver (\S+) (?:is )?(UP|DOWN|going DOWN|stopping|succeeded|failed|was DOWN|is DRAIN|leaving)`), ""},
	{regexp.MustCompile(`^backend (\S+) has no server available!`), "no server available"},
	{regexp.MustCompile(`^Connect from (\S+)`), "connect"},
}

// haproxyMessageSubject reads a notice's subject and state; ok is false for
// text that is none of HAProxy's known notices.
func haproxyMessageSubject(msg string) (subject, state string, ok bool) {
	for _, m := range haproxyMessages {
		g := m.re.FindStringSubmatch(msg)
		if g == nil {
			continue
		}
		if m.state != "" {
			return strings.TrimSuffix(g[1], "."), m.state, true
		}
		return g[1], g[2], true
	}
	return "", "", false
}

package ingest

import (
	"bytes"
	"time"

	"github.com/rewind-dev/rewind/ingest/record"
)

// syslogHead is what a syslog prefix says about the message after it: an
// RFC 5424 header (`<134>1 2024-05-01T10:00:00.123+02:00 host app 123 - - `),
// an RFC 3164 one (`<134>May  1 10:00:00 host app[123]: `, the host and the
// priority optional) or an RFC 3339 time in place of the RFC 3164 one (as
// rsyslog's high-precision template writes it).
type syslogHead struct {
	kind           string // "rfc5424", "rfc3164", "rfc3339"; "" when the line has no prefix
	host, app, pid string
	// t is the time of an RFC 5424 or RFC 3339 header, with its offset.
	t time.Time
	// stamp is an RFC 3164 time (no year, no zone) as written: Jan _2 15:04:05.
	stamp string
}

// cutSyslog splits a line into its syslog prefix and the message after it.
// A line without a recognised prefix is all message.
func cutSyslog(b []byte) (syslogHead, []byte) {
	rest := b
	if len(rest) > 2 && rest[0] == '<' {
		if i := bytes.IndexByte(rest[:min(len(rest), 6)], '>'); i > 1 && record.AllDigits(rest[1:i]) {
			rest = rest[i+1:]
		}
	}
	if bytes.HasPrefix(rest, []byte("1 ")) && len(rest) < len(b) {
		if h, msg, ok := cut5424(rest[2:]); ok {
			return h, msg
		}
	}
	if h, msg, ok := cut3164(rest); ok {
		return h, msg
	}
	if h, msg, ok := cutTag(rest); ok {
		return h, msg
	}
	return syslogHead{}, b
}

// cutTag reads a bare `APP[PID]: ` tag, as syslog daemons write a message
// whose header they dropped (HAProxy's manual shows its lines so).
func cutTag(b []byte) (syslogHead, []byte, bool) {
	i := bytes.Index(b, []byte("]: "))
	j := bytes.IndexByte(b, '[')
	if i < 0 || j < 1 || j > i || !record.AllDigits(b[j+1:i]) || bytes.IndexByte(b[:j], ' ') >= 0 {
		return syslogHead{}, nil, false
	}
	return syslogHead{kind: "tag", app: string(b[:j]), pid: string(b[j+1 : i])}, b[i+3:], true
}

// cut5424 reads TIMESTAMP HOSTNAME APP-NAME PROCID MSGID STRUCTURED-DATA.
func cut5424(b []byte) (syslogHead, []byte, bool) {
	tok, rest := cutTokens(b, 5)
	if tok == nil || len(rest) == 0 {
		return syslogHead{}, nil, false
	}
	h := syslogHead{kind: "rfc5424", host: nilDash(tok[1]), app: nilDash(tok[2]), pid: nilDash(tok[3])}
	if tok[0] != "-" {
		t, err := time.Parse(time.RFC3339Nano, tok[0])
		if err != nil {
			return syslogHead{}, nil, false
		}
		h.t = t
	}
	// Structured data: "-" or one or more [id param="value" ...] elements.
	if rest[0] == '-' {
		rest = rest[1:]
	} else {
		for len(rest) > 0 && rest[0] == '[' {
			end := sdEnd(rest)
			if end < 0 {
				return syslogHead{}, nil, false
			}
			rest = rest[end+1:]
		}
	}
	return h, bytes.TrimPrefix(rest, []byte(" ")), true
}

// sdEnd is the index of the ']' closing the SD element b starts with,
// skipping escaped characters and quoted values; -1 when there is none.
func sdEnd(b []byte) int {
	quoted := false
	for i := 1; i < len(b); i++ {
		switch {
		case b[i] == '\\':
			i++
		case b[i] == '"':
			quoted = !quoted
		case b[i] == ']' && !quoted:
			return i
		}
	}
	return -1
}

// cut3164 reads `Mmm dd hh:mm:ss [HOST] TAG: ` or an RFC 3339 time in place
// of the RFC 3164 one. TAG is APP or APP[PID].
func cut3164(b []byte) (syslogHead, []byte, bool) {
	var h syslogHead
	var rest []byte
	if len(b) > 16 && b[15] == ' ' && isStamp3164(b[:15]) {
		h.kind, h.stamp, rest = "rfc3164", string(b[:15]), b[16:]
	} else {
		tok, r := cutTokens(b, 1)
		if tok == nil || len(tok[0]) < 20 || tok[0][4] != '-' {
			return h, nil, false
		}
		t, err := time.Parse(time.RFC3339Nano, tok[0])
		if err != nil {
			return h, nil, false
		}
		h.kind, h.t, rest = "rfc3339", t, r
	}
	tok, r := cutTokens(rest, 1)
	if tok == nil {
		return h, nil, false
	}
	if !bytes.HasSuffix([]byte(tok[0]), []byte(":")) {
		h.host = tok[0]
		if tok, r = cutTokens(r, 1); tok == nil || !bytes.HasSuffix([]byte(tok[0]), []byte(":")) {
			return h, nil, false
		}
	}
	tag := tok[0][:len(tok[0])-1]
	if i := bytes.IndexByte([]byte(tag), '['); i > 0 && tag[len(tag)-1] == ']' {
		tag, h.pid = tag[:i], tag[i+1:len(tag)-1]
	}
	h.app = tag
	return h, r, true
}

// isStamp3164 checks `Mmm dd hh:mm:ss` (the day space-padded).
func isStamp3164(b []byte) bool {
	_, err := time.Parse(time.Stamp, string(b))
	return err == nil
}

// in3164Year places an RFC 3164 time, which has no year, in loc in the
// year that puts it nearest to ref (a time of the same log), so that a log
// crossing New Year keeps its order.
func in3164Year(stamp string, ref time.Time, loc *time.Location) time.Time {
	t, _ := time.ParseInLocation(time.Stamp, stamp, loc)
	var best time.Time
	for y := ref.Year() - 1; y <= ref.Year()+1; y++ {
		c := time.Date(y, t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, loc)
		if best.IsZero() || absDur(c.Sub(ref)) < absDur(best.Sub(ref)) {
			best = c
		}
	}
	return best
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// cutTokens takes n tokens separated by runs of spaces off b, and returns
// them and what follows the space after the last one; nil when b has fewer.
func cutTokens(b []byte, n int) ([]string, []byte) {
	out := make([]string, 0, n)
	for len(out) < n {
		b = bytes.TrimLeft(b, " ")
		if len(b) == 0 {
			return nil, nil
		}
		i := bytes.IndexByte(b, ' ')
		if i < 0 {
			out, b = append(out, string(b)), nil
			continue
		}
		out, b = append(out, string(b[:i])), b[i+1:]
	}
	return out, b
}

func nilDash(s string) string {
	if s == "-" {
		return ""
	}
	return s
}

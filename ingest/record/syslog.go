package record

import (
	"bytes"
	"time"
)

// SyslogHead is what a syslog prefix says about the message after it: an
// RFC 5424 header (`<134>1 2024-05-01T10:00:00.123+02:00 host app 123 - - `),
// an RFC 3164 one (`<134>May  1 10:00:00 host app[123]: `, the host and the
// priority optional) or an RFC 3339 time in place of the RFC 3164 one (as
// rsyslog's high-precision template writes it).
type SyslogHead struct {
	Kind           string // "rfc5424", "rfc3164", "rfc3339", "tag"; "" when the line has no prefix
	Host, App, PID string
	// T is the time of an RFC 5424 or RFC 3339 header, with its offset.
	T time.Time
	// Stamp is an RFC 3164 time (no year, no zone) as written: Jan _2 15:04:05.
	Stamp string
}

// CutSyslog splits a line into its syslog prefix and the message after it.
// A line without a recognised prefix is all message.
func CutSyslog(b []byte) (SyslogHead, []byte) {
	rest := b
	if len(rest) > 2 && rest[0] == '<' {
		if i := bytes.IndexByte(rest[:min(len(rest), 6)], '>'); i > 1 && AllDigits(rest[1:i]) {
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
	return SyslogHead{}, b
}

// cutTag reads a bare `APP[PID]: ` tag, as syslog daemons write a message
// whose header they dropped (HAProxy's manual shows its lines so).
func cutTag(b []byte) (SyslogHead, []byte, bool) {
	i := bytes.Index(b, []byte("]: "))
	j := bytes.IndexByte(b, '[')
	if i < 0 || j < 1 || j > i || !AllDigits(b[j+1:i]) || bytes.IndexByte(b[:j], ' ') >= 0 {
		return SyslogHead{}, nil, false
	}
	return SyslogHead{Kind: "tag", App: string(b[:j]), PID: string(b[j+1 : i])}, b[i+3:], true
}

// cut5424 reads TIMESTAMP HOSTNAME APP-NAME PROCID MSGID STRUCTURED-DATA.
func cut5424(b []byte) (SyslogHead, []byte, bool) {
	tok, rest := CutTokens(b, 5)
	if tok == nil || len(rest) == 0 {
		return SyslogHead{}, nil, false
	}
	h := SyslogHead{Kind: "rfc5424", Host: NilDash(tok[1]), App: NilDash(tok[2]), PID: NilDash(tok[3])}
	if tok[0] != "-" {
		t, err := time.Parse(time.RFC3339Nano, tok[0])
		if err != nil {
			return SyslogHead{}, nil, false
		}
		h.T = t
	}
	// Structured data: "-" or one or more [id param="value" ...] elements.
	if rest[0] == '-' {
		rest = rest[1:]
	} else {
		for len(rest) > 0 && rest[0] == '[' {
			end := sdEnd(rest)
			if end < 0 {
				return SyslogHead{}, nil, false
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
func cut3164(b []byte) (SyslogHead, []byte, bool) {
	var h SyslogHead
	var rest []byte
	if len(b) > 16 && b[15] == ' ' && isStamp3164(b[:15]) {
		h.Kind, h.Stamp, rest = "rfc3164", string(b[:15]), b[16:]
	} else {
		tok, r := CutTokens(b, 1)
		if tok == nil || len(tok[0]) < 20 || tok[0][4] != '-' {
			return h, nil, false
		}
		t, err := time.Parse(time.RFC3339Nano, tok[0])
		if err != nil {
			return h, nil, false
		}
		h.Kind, h.T, rest = "rfc3339", t, r
	}
	tok, r := CutTokens(rest, 1)
	if tok == nil {
		return h, nil, false
	}
	if !bytes.HasSuffix([]byte(tok[0]), []byte(":")) {
		h.Host = tok[0]
		if tok, r = CutTokens(r, 1); tok == nil || !bytes.HasSuffix([]byte(tok[0]), []byte(":")) {
			return h, nil, false
		}
	}
	tag := tok[0][:len(tok[0])-1]
	if i := bytes.IndexByte([]byte(tag), '['); i > 0 && tag[len(tag)-1] == ']' {
		tag, h.PID = tag[:i], tag[i+1:len(tag)-1]
	}
	h.App = tag
	return h, r, true
}

// isStamp3164 checks `Mmm dd hh:mm:ss` (the day space-padded).
func isStamp3164(b []byte) bool {
	_, err := time.Parse(time.Stamp, string(b))
	return err == nil
}

// In3164Year places an RFC 3164 time, which has no year, in loc in the
// year that puts it nearest to ref (a time of the same log), so that a log
// crossing New Year keeps its order.
func In3164Year(stamp string, ref time.Time, loc *time.Location) time.Time {
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

// CutTokens takes n tokens separated by runs of spaces off b, and returns
// them and what follows the space after the last one; nil when b has fewer.
func CutTokens(b []byte, n int) ([]string, []byte) {
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

// NilDash is s, or "" for a log's "-" (no value).
func NilDash(s string) string {
	if s == "-" {
		return ""
	}
	return s
}

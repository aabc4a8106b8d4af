package clf

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/rewind-dev/rewind/ingest/record"
)

// A trailer reads the fields operators add after a recognised NCSA layout,
// each by a shape that tells its unit, or by a key that names it:
//
//	0.004 0.001, 0.003           nginx $request_time (s, always 3 decimals)
//	                             and $upstream_response_time
//	rt=0.004 urt="0.003"         nginx's key=value recipe (rt, uct, uht, urt)
//	"10.0.0.1"                   a quoted field ($http_x_forwarded_for), kept
//	12 "router" "http://b" 3ms   Traefik: requests so far, router, server, ms
//
// A bare whole number is refused: Apache's %D (µs), %{ms}T (ms) and %T (s)
// all write one, and nothing in the line tells which.
type trailer struct {
	lo    *layout // the recognised layout, for the --log-format a refusal suggests
	r     *record.Row
	attrs *attrList
	nginx bool // an nginx $request_time: the logged time is the end
	n     int  // fields read so far
	extra int  // quoted fields with no name so far
	// upstream: attrs has upstream_response_time (scanned: looked for it
	// once), so a line of many fields is not scanned once per field.
	upstream, scanned bool
}

type trailerToken struct {
	key    string // key=value
	val    []byte
	quoted bool
}

// The shapes every line's trailer is tried against are matched by hand
// (a regexp match per token was a tenth of a CLF decode): nginxSeconds is
// ^[0-9]+\.[0-9]{3}$, traefikMs ^[0-9]+ms$, wholeNumber ^[0-9]+$,
// decimal ^[0-9]*\.[0-9]+$ and trailerKey the length of
// ^[A-Za-z_][A-Za-z0-9_]*= (0: none); TestTrailerShapesMatchRegexps holds
// them to those regexps. The shapes of refusals stay regexps.
var (
	squidResult = regexp.MustCompile(`^[A-Z]+_[A-Z_]+:[A-Z_]+$`)
	h2oSeconds  = regexp.MustCompile(`^[0-9]+\.[0-9]{6}$`)
)

// digits is how many ASCII digits v starts with.
func digits(v []byte) int {
	for i, b := range v {
		if b < '0' || b > '9' {
			return i
		}
	}
	return len(v)
}

func nginxSeconds(v []byte) bool {
	i := digits(v)
	return i > 0 && len(v) == i+4 && v[i] == '.' && digits(v[i+1:]) == 3
}

func traefikMs(v []byte) bool {
	i := digits(v)
	return i > 0 && string(v[i:]) == "ms"
}

func wholeNumber(v []byte) bool { return len(v) > 0 && digits(v) == len(v) }

func decimal(v []byte) bool {
	i := digits(v)
	return i < len(v)-1 && v[i] == '.' && digits(v[i+1:]) == len(v)-i-1
}

func trailerKey(v []byte) int {
	word := func(b byte, first bool) bool {
		return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == '_' || !first && b >= '0' && b <= '9'
	}
	for i, b := range v {
		switch {
		case b == '=' && i > 0:
			return i + 1
		case !word(b, i == 0):
			return 0
		}
	}
	return 0
}

// nginxKeys are the keys of nginx's documented upstream-timing format.
var nginxKeys = map[string]string{"uct": "upstream_connect_time", "uht": "upstream_header_time", "urt": "upstream_response_time"}

func (t *trailer) read(rest []byte) error {
	toks, err := t.tokens(rest)
	if err != nil {
		return err
	}
	if t.traefik(toks) {
		return nil
	}
	for _, tok := range toks {
		t.n++
		if err := t.token(tok); err != nil {
			return err
		}
	}
	return nil
}

func (t *trailer) field() string { return fmt.Sprintf("trailing field %d", t.n) }

func (t *trailer) token(tok trailerToken) error {
	switch {
	case tok.key == "rt" || tok.key == "request_time":
		return t.requestTime(tok.val)
	case tok.key != "":
		name := tok.key
		if n, ok := nginxKeys[name]; ok {
			name = n
		}
		t.set(name, tok.val)
	case tok.quoted:
		t.extra++
		t.set(fmt.Sprintf("extra_%d", t.extra), tok.val)
	case !t.nginx && nginxSeconds(tok.val):
		return t.requestTime(tok.val)
	case t.nginx && !t.hasUpstream() && upstreamList(tok.val):
		t.set("upstream_response_time", tok.val)
	case wholeNumber(tok.val):
		return record.FieldErr(t.r.Line, t.field(), "%s is a whole number of unknown unit: Apache's %%D (µs), %s (ms) and %%T (s) all write one. "+
			"Give the server's LogFormat with {log-format}, e.g. {log-format} '%s %%D' (for lighttpd's or Tomcat's log, "+
			"whose %%t is the request's end, its own format line and {server})", tok.val, "%{ms}T", t.lo.text)
	case squidResult.Match(tok.val):
		builtin := "common"
		if strings.Contains(t.lo.text, "Referer") {
			builtin = "combined"
		}
		return record.FieldErr(t.r.Line, t.field(), "%q is Squid's result and hierarchy (%%Ss:%%Sh): this is Squid's %s log, whose time is when "+
			"a request ended; read it with {server} squid {log-format} %s", tok.val, builtin, builtin)
	case h2oSeconds.Match(tok.val):
		return record.FieldErr(t.r.Line, t.field(), "%q has no known unit: h2o's %s writes seconds with 6 decimals; if the log is h2o's, "+
			"read it with {server} h2o {log-format} '%s %s'", tok.val, "%{duration}x", t.lo.text, "%{duration}x")
	case decimal(tok.val) || bytes.Equal(tok.val, []byte("-")):
		return record.FieldErr(t.r.Line, t.field(), "%q has no known unit (nginx's $request_time has 3 decimals): give the server's log_format or LogFormat with {log-format}", tok.val)
	default:
		return record.FieldErr(t.r.Line, t.field(), "%q is not a field rewind knows after this layout: give the server's log_format or LogFormat with {log-format}", record.Truncate(string(tok.val), 40))
	}
	return nil
}

func (t *trailer) requestTime(v []byte) error {
	if absentValue(v) {
		return nil
	}
	f := logField{shift: 3}
	ms, err := f.latencyMs(v)
	if err != nil {
		return record.FieldErr(t.r.Line, "request_time", "%s", err.Error())
	}
	t.r.Latency, t.nginx = ms, true
	t.r.Set(record.ColLatency)
	return nil
}

func (t *trailer) set(k string, v []byte) {
	if !absentValue(v) {
		t.attrs.add(k, unescape(v))
		t.upstream = t.upstream || k == "upstream_response_time"
	}
}

func (t *trailer) hasUpstream() bool {
	if !t.upstream && !t.scanned {
		t.upstream, t.scanned = t.attrs.has("upstream_response_time"), true
	}
	return t.upstream
}

// traefik reads Traefik's common format: the requests received since it
// started, the router, the server and the duration in whole ms. Traefik
// logs the request's start (StartUTC).
func (t *trailer) traefik(toks []trailerToken) bool {
	if len(toks) != 4 || toks[0].quoted || !(wholeNumber(toks[0].val) || absentValue(toks[0].val)) || !toks[1].quoted || !toks[2].quoted ||
		toks[3].quoted || !traefikMs(toks[3].val) {
		return false
	}
	t.set("request_count", toks[0].val)
	t.set("router_name", toks[1].val)
	t.set("server_url", toks[2].val)
	f := logField{shift: 0, whole: true}
	ms, _ := f.latencyMs(bytes.TrimSuffix(toks[3].val, []byte("ms")))
	t.r.Latency = ms
	t.r.Set(record.ColLatency)
	return true
}

// upstreamList is nginx's list of upstream times: "0.001, 0.003 : 0.002"
// or "-". Its parts are split at runs of ',', ':' and ' ', as
// strings.FieldsFunc would, without copying the line.
func upstreamList(v []byte) bool {
	for len(v) > 0 {
		end := bytes.IndexAny(v, ",: ")
		if end < 0 {
			end = len(v)
		}
		if part := v[:end]; len(part) > 0 && !(len(part) == 1 && part[0] == '-') && !decimal(part) {
			return false
		}
		v = v[min(end+1, len(v)):]
	}
	return true
}

// tokens splits the trailer at spaces; a quoted field may hold spaces, and
// an upstream list ("0.001, 0.003", "a : b") is one token.
func (t *trailer) tokens(rest []byte) ([]trailerToken, error) {
	var out []trailerToken
	for len(rest) > 0 {
		if rest[0] != ' ' {
			return nil, record.FieldErr(t.r.Line, fmt.Sprintf("trailing field %d", len(out)+1), "want a space before it, got %q", record.Truncate(string(rest), 20))
		}
		rest = rest[1:]
		if len(rest) == 0 {
			break
		}
		var tok trailerToken
		if k := trailerKey(rest); k > 0 {
			tok.key = string(rest[:k-1])
			rest = rest[k:]
		}
		var err error
		if tok.val, tok.quoted, rest, err = t.value(rest, len(out)+1); err != nil {
			return nil, err
		}
		out = append(out, tok)
	}
	return out, nil
}

// value is one quoted or bare value at the start of rest.
func (t *trailer) value(rest []byte, n int) (v []byte, quoted bool, tail []byte, err error) {
	if len(rest) > 0 && rest[0] == '"' {
		for j := 1; j < len(rest); j++ {
			switch rest[j] {
			case '\\':
				j++
			case '"':
				return rest[1:j], true, rest[j+1:], nil
			}
		}
		return nil, false, nil, record.FieldErr(t.r.Line, fmt.Sprintf("trailing field %d", n), "no closing quote")
	}
	end := listEnd(rest, 0)
	return rest[:end], false, rest[end:], nil
}

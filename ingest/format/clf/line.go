package clf

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rewind-dev/rewind/ingest/record"
)

// split cuts one line into the values of the layout's fields, in order;
// rest is what follows the last literal when the layout ends in one and
// the line goes on (the trailing fields of a recognised NCSA layout).
func (lo *layout) split(b []byte, vals [][]byte) (out [][]byte, rest []byte, err error) {
	out = vals[:0]
	pos := 0
	for i, it := range lo.items {
		if it.f == nil {
			if !bytes.HasPrefix(b[pos:], []byte(it.lit)) {
				return nil, nil, lo.mismatch(i, b, pos)
			}
			pos += len(it.lit)
			continue
		}
		for it.f.pad && pos < len(b) && b[pos] == ' ' { // Squid's %6tr: spaces before the value
			pos++
		}
		end, err := lo.valueEnd(i, b, pos)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, b[pos:end])
		pos = end
	}
	return out, b[pos:], nil
}

// valueEnd is where the value of field i, starting at pos, ends: at the
// text that follows it in the layout (an unescaped quote for a quoted
// value), or at the line's end for a last field.
func (lo *layout) valueEnd(i int, b []byte, pos int) (int, error) {
	f := lo.items[i].f
	if f.role == roleList {
		return listEnd(b, pos), nil
	}
	if i+1 == len(lo.items) {
		if j := bytes.IndexByte(b[pos:], ' '); lo.open && j >= 0 {
			return pos + j, nil
		}
		return len(b), nil
	}
	next := lo.items[i+1].lit
	if i > 0 && strings.HasSuffix(lo.items[i-1].lit, `"`) && strings.HasPrefix(next, `"`) {
		for j := pos; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j, nil
			}
		}
		return 0, &record.LineError{Field: f.name, Msg: "no closing quote"}
	}
	from := pos
	if f.role == roleTime {
		// A time whose layout holds spaces (%{%d/%b/%Y:%H:%M:%S %z}t)
		// runs past as many spaces as it holds before the text after it.
		for k := strings.Count(f.goLayout, " "); k > 0; k-- {
			j := bytes.IndexByte(b[from:], ' ')
			if j < 0 {
				break
			}
			from += j + 1
		}
	}
	j := bytes.Index(b[from:], []byte(next))
	if j < 0 && from > pos { // "-": no time
		from = pos
		j = bytes.Index(b[pos:], []byte(next))
	}
	if j < 0 {
		return 0, &record.LineError{Field: f.name, Msg: fmt.Sprintf("want %q after it, got %q", next, record.Truncate(string(b[pos:]), 40))}
	}
	return from + j, nil
}

// listEnd is the end of nginx's upstream list: values separated by ", "
// (servers tried in turn) and " : " (internal redirects).
func listEnd(b []byte, pos int) int {
	j := pos
	for {
		for j < len(b) && b[j] != ' ' {
			j++
		}
		switch {
		case bytes.HasPrefix(b[j:], []byte(" : ")) && j+3 < len(b):
			j += 3
		case j > pos && b[j-1] == ',' && j+1 < len(b):
			j++
		default:
			return j
		}
	}
}

func (lo *layout) mismatch(i int, b []byte, pos int) error {
	after := "the line's start"
	if i > 0 && lo.items[i-1].f != nil {
		after = lo.items[i-1].f.name
	}
	return &record.LineError{Msg: fmt.Sprintf("does not match the log format at column %d (after %s): want %q, got %q",
		pos+1, after, lo.items[i].lit, record.Truncate(string(b[pos:]), 40))}
}

// unescape decodes the escapes nginx (\x22) and Apache (\", \\, \xhh) write
// in text values, but for control characters. Where the decoded bytes are not UTF-8 (a binary
// request line), the value is kept as written, which is.
func unescape(v []byte) string {
	if bytes.IndexByte(v, '\\') < 0 {
		return string(v)
	}
	out := make([]byte, 0, len(v))
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' || i+1 == len(v) {
			out = append(out, v[i])
			continue
		}
		i++
		switch c := v[i]; c {
		case 'x':
			if i+2 < len(v) && isHex(v[i+1]) && isHex(v[i+2]) {
				n, _ := strconv.ParseUint(string(v[i+1:i+3]), 16, 8)
				if n < 0x20 || n == 0x7f {
					// A control character stays escaped: it is no text, and
					// printed raw it would drive a terminal.
					out = append(out, v[i-1:i+3]...)
				} else {
					out = append(out, byte(n))
				}
				i += 2
				continue
			}
			out = append(out, '\\', c)
		case '"', '\\':
			out = append(out, c)
		default:
			out = append(out, '\\', c)
		}
	}
	if !utf8.Valid(out) {
		return string(v)
	}
	return string(out)
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// absentValue is how servers write "no value".
func absentValue(v []byte) bool { return len(v) == 0 || (len(v) == 1 && v[0] == '-') }

// timeUs reads a time field in µs since the epoch.
func (f *logField) timeUs(v []byte) (int64, error) {
	s := string(v)
	if f.epochUnitUs > 0 {
		return record.EpochUs(s, f.epochUnitUs, f.wholeEpoch)
	}
	t, err := time.Parse(f.goLayout, s)
	if err != nil {
		return 0, fmt.Errorf("want a time like %q, got %q", time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC).Format(f.goLayout), record.Truncate(s, 40))
	}
	return t.UnixMicro(), nil
}

// latencyMs reads a duration field in ms, exactly: the value's decimal
// exponent is shifted, never multiplied.
func (f *logField) latencyMs(v []byte) (float64, error) {
	s := string(v)
	if !logDecimal(s, !f.whole) {
		return 0, fmt.Errorf("want a %s, got %q", f.latencyUnit(), record.Truncate(s, 40))
	}
	ms, err := strconv.ParseFloat(s+"e"+strconv.Itoa(f.shift), 64)
	if err != nil || math.IsInf(ms, 0) {
		return 0, fmt.Errorf("want a %s, got %q", f.latencyUnit(), record.Truncate(s, 40))
	}
	return ms, nil
}

// logDecimal tells whether s is written in decimal digits, with a '.'
// and more digits after it where frac allows one, as NDJSON's numbers are:
// no sign, exponent, underscore, hexadecimal or Inf, which ParseFloat
// would take.
func logDecimal(s string, frac bool) bool {
	whole, fraction, dot := strings.Cut(s, ".")
	return record.DigitsOnly(whole) && (!dot || frac && record.DigitsOnly(fraction))
}

func (f *logField) latencyUnit() string {
	unit := map[int]string{3: "seconds", 0: "ms", -3: "µs"}[f.shift]
	if f.whole {
		return "whole number of " + unit
	}
	return "number of " + unit
}

// attrList gathers one line's attrs: pairs in any order, written as a JSON
// object with sorted keys (as compactObject writes attrs) without a map or
// an encoder per line.
type attrList struct {
	kv  []kvPair
	buf []byte
	// order is the stable order by key of the pairs of the last line,
	// whose keys were keys: a line whose keys come as the last line's did
	// (every line of one layout) takes it without comparing them.
	keys  []string
	order []int
}

type kvPair struct{ k, v string }

func (a *attrList) reset() { a.kv = a.kv[:0] }

func (a *attrList) add(k, v string) { a.kv = append(a.kv, kvPair{k, v}) }

func (a *attrList) has(k string) bool {
	for _, p := range a.kv {
		if p.k == k {
			return true
		}
	}
	return false
}

// compareKeys orders attrs keys (a variable, so a test can count the
// comparisons a line's sort makes).
var compareKeys = strings.Compare

// json is the object; a key given twice keeps its last value.
func (a *attrList) json() string {
	kv, order := a.kv, a.sorted()
	b := append(a.buf[:0], '{')
	for j, i := range order {
		p := kv[i]
		if j+1 < len(order) && kv[order[j+1]].k == p.k {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = appendJSONString(b, p.k)
		b = append(b, ':')
		b = appendJSONString(b, p.v)
	}
	b = append(b, '}')
	a.buf = b
	return string(b)
}

// sorted is the order of the pairs by key: stable, so the last of a key
// given twice stays last; n log n, as a line may carry thousands of
// fields.
func (a *attrList) sorted() []int {
	same := len(a.keys) == len(a.kv)
	for i := 0; same && i < len(a.kv); i++ {
		same = a.keys[i] == a.kv[i].k
	}
	if same {
		return a.order
	}
	a.keys, a.order = a.keys[:0], a.order[:0]
	for i, p := range a.kv {
		a.keys, a.order = append(a.keys, p.k), append(a.order, i)
	}
	slices.SortStableFunc(a.order, func(x, y int) int { return compareKeys(a.kv[x].k, a.kv[y].k) })
	return a.order
}

// appendJSONString quotes valid UTF-8 text as JSON, escaping only what JSON
// requires (quotes, backslashes, control characters).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\t':
			b = append(b, '\\', 't')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

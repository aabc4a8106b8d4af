package ingest

import (
	"bytes"
	"unicode/utf8"
)

// textCheck follows a text input through the guard and notes the first line
// that holds invalid UTF-8, or, in JSON, a lone UTF-16 surrogate escape
// ("\udc00"). Decoders replace both with U+FFFD without a word (Go's JSON,
// XML and the attrs builders alike), so the check is made on the bytes
// before any decoder sees them, once for every format. It does not fail the
// read: a decoder that keeps the bytes names the field first
// (validateBatch); what no decoder reported fails the file at the end
// (input.TextErr).
type textCheck struct {
	pending []byte // an incomplete UTF-8 sequence, or the tail a surrogate escape may start in
	badLine int64  // first line with bad text; 0: none
	what    string
}

// surrogateTail is how many bytes of a chunk are kept for the next: an
// escape pair \udXXX\udXXX is 12 bytes, with a backslash before it.
const surrogateTail = 13

// scan checks b, whose first byte is on line (1-based); eof: b ends the
// input.
func (t *textCheck) scan(b []byte, line int64, json, eof bool) {
	if t.badLine > 0 {
		return
	}
	data := b
	if len(t.pending) > 0 {
		data = append(t.pending, b...)
		line -= int64(bytes.Count(t.pending, []byte{'\n'}))
	}
	if i := invalidUTF8(data); i >= 0 {
		t.badLine, t.what = line+int64(bytes.Count(data[:i], []byte{'\n'})), "invalid UTF-8"
		return
	}
	if r, n := utf8.DecodeLastRune(data); eof && r == utf8.RuneError && n == 1 {
		t.badLine, t.what = line+int64(bytes.Count(data, []byte{'\n'})), "invalid UTF-8: the input ends inside a character"
		return
	}
	if json {
		if i := loneSurrogate(data, len(t.pending), eof); i >= 0 {
			t.badLine, t.what = line+int64(bytes.Count(data[:i], []byte{'\n'})), "invalid UTF-8: a lone UTF-16 surrogate escape "+string(data[i:i+6])
			return
		}
	}
	tail := data[len(data)-min(len(data), surrogateTail):]
	for k := 0; k < utf8.UTFMax-1 && len(tail) > 0 && !utf8.RuneStart(tail[0]); k++ {
		tail = tail[1:] // start the tail on a character
	}
	t.pending = append(t.pending[:0:0], tail...)
}

// invalidUTF8 is the offset of the first invalid sequence in b, -1 when
// there is none; an incomplete sequence at the end is not invalid yet.
func invalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			if !utf8.FullRune(b[i:]) && len(b)-i < utf8.UTFMax {
				return -1 // continued in the next read
			}
			return i
		}
		i += n
	}
	return -1
}

// loneSurrogate is the offset of the first \uD800-\uDFFF escape that is not
// half of a high-low pair, -1 when there is none. An escape preceded by an
// odd run of backslashes is text (\\udc00), not an escape. The bytes before
// seen were checked by the previous read: a low half there had its pair.
func loneSurrogate(b []byte, seen int, eof bool) int {
	for off := 0; ; {
		i := bytes.Index(b[off:], []byte(`\u`))
		if i < 0 {
			return -1
		}
		i += off
		off = i + 2
		if !escapeAt(b, i) || len(b) < i+6 {
			continue
		}
		switch surrogate(b[i+2 : i+6]) {
		case 'h':
			if len(b) < i+12 && !eof && bytes.HasPrefix([]byte(`\u`)[:min(2, len(b)-i-6)], b[i+6:min(len(b), i+8)]) {
				return -1 // the pair may end in the next read
			}
			if len(b) < i+12 {
				return i
			}
			if b[i+6] == '\\' && b[i+7] == 'u' && surrogate(b[i+8:i+12]) == 'l' {
				off = i + 12
				continue
			}
			return i
		case 'l':
			if i+6 > seen { // a low half complete before was paired then
				return i
			}
		}
	}
}

// escapeAt says whether the backslash at i starts an escape: it is preceded
// by an even run of backslashes.
func escapeAt(b []byte, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
		n++
	}
	return n%2 == 0
}

// surrogate classifies four hex digits: 'h' for D800-DBFF, 'l' for
// DC00-DFFF, 0 otherwise.
func surrogate(hex []byte) byte {
	if hex[0] != 'd' && hex[0] != 'D' {
		return 0
	}
	switch hex[1] {
	case '8', '9', 'a', 'b', 'A', 'B':
		return 'h'
	case 'c', 'd', 'e', 'f', 'C', 'D', 'E', 'F':
		return 'l'
	}
	return 0
}

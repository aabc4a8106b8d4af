package ndjson

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/rewind-dev/rewind/ingest/record"
)

// countTopKeys counts the members of the JSON object in raw (keys at depth
// one) in one pass over the bytes: when it exceeds the decoded map's size,
// a key was given twice. Malformed input gives any count; the decoder has
// refused it by then.
func countTopKeys(raw []byte) int {
	n, depth := 0, 0
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			j := i + 1
			for j < len(raw) && raw[j] != '"' {
				if raw[j] == '\\' {
					j++
				}
				j++
			}
			if depth == 1 {
				k := j + 1
				for k < len(raw) && (raw[k] == ' ' || raw[k] == '\t' || raw[k] == '\r' || raw[k] == '\n') {
					k++
				}
				if k < len(raw) && raw[k] == ':' {
					n++
				}
			}
			i = j
		}
	}
	return n
}

// checkJSONObject refuses what a JSON decoder would otherwise let through
// silently: bytes that are not UTF-8 (decoders replace them with U+FFFD) and
// a key given twice (the last one would win). It runs on the lines the fast
// flat scanner does not take (that one refuses both by itself).
func checkJSONObject(raw []byte, line int64) error {
	if !utf8.Valid(raw) {
		off := firstInvalidUTF8(raw)
		if key, ok := keyAt(raw, off); ok {
			return record.FieldErr(line, key, "invalid UTF-8 in the key")
		}
		return record.FieldErr(line, fieldAt(raw, off), "invalid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil // not an object: the decoder words that error
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := t.(string)
		if seen[key] {
			return record.FieldErr(line, key, "given twice in one object")
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil
		}
	}
	return nil
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// keyAt is the key that byte offset off of a JSON object lies in, when it
// lies in one: the string around off is followed by a colon.
func keyAt(raw []byte, off int) (string, bool) {
	open := bytes.LastIndexByte(raw[:off], '"')
	end := bytes.IndexByte(raw[off:], '"')
	if open < 0 || end < 0 {
		return "", false
	}
	rest := bytes.TrimLeft(raw[off+end+1:], " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return "", false
	}
	return string(raw[open+1 : off+end]), true
}

// fieldAt names the key whose value holds byte offset off of a JSON object:
// the last `"key":` before it.
func fieldAt(raw []byte, off int) string {
	head := raw[:off]
	for {
		colon := bytes.LastIndex(head, []byte(`":`))
		if colon < 0 {
			return ""
		}
		open := bytes.LastIndexByte(head[:colon], '"')
		if open >= 0 && (open == 0 || bytes.ContainsAny(head[open-1:open], "{, \t\r\n")) {
			return string(head[open+1 : colon])
		}
		head = head[:colon]
	}
}

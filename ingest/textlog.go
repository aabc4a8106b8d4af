package ingest

import (
	"bytes"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"
	"github.com/rewind-dev/rewind/ingest/record"
)

// This file holds what the line-oriented server logs (haproxy, envoy-text,
// aws-alb, aws-elb, cloudfront) share: the line loop, a tokenizer for
// space-separated fields with quoted ones, and attrs built field by field.

// headLines returns up to n non-blank lines of head, leaving out a last line
// the head may have cut.
func headLines(head []byte, n int) [][]byte {
	text := bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	cut := len(head) >= headBytes
	var out [][]byte
	for len(text) > 0 && len(out) < n {
		line, rest, found := bytes.Cut(text, []byte("\n"))
		if !found && cut {
			break
		}
		if line = bytes.TrimRight(line, "\r"); len(bytes.TrimSpace(line)) > 0 {
			out = append(out, line)
		}
		text = rest
	}
	return out
}

// token is one field of a line: its text and whether it was quoted.
type token struct {
	s      string
	quoted bool
}

// tokens splits a line at spaces; a field that starts with a double quote
// runs to the next quote not escaped by a backslash and is returned without
// its quotes (escapes kept as written). ok is false when a quote is not
// closed.
func tokens(b []byte) (out []token, ok bool) {
	for i := 0; i < len(b); {
		if b[i] == ' ' {
			i++
			continue
		}
		if b[i] != '"' {
			j := bytes.IndexByte(b[i:], ' ')
			if j < 0 {
				j = len(b) - i
			}
			out = append(out, token{s: string(b[i : i+j])})
			i += j
			continue
		}
		j := i + 1
		for j < len(b) && b[j] != '"' {
			if b[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(b) {
			return out, false
		}
		out = append(out, token{s: string(b[i+1 : j]), quoted: true})
		i = j + 1
	}
	return out, true
}

// attrSet builds a row's or an event's attrs; compactObject renders it
// with sorted keys.
type attrSet map[string]json.RawMessage

// str sets k to s unless s is "" or "-" (a log's "no value").
func (a attrSet) str(k, s string) {
	if s != "" && s != "-" {
		a[k] = jsonString(s)
	}
}

func (a attrSet) num(k string, n int64) { a[k] = json.RawMessage(strconv.FormatInt(n, 10)) }

func (a attrSet) null(k string) { a[k] = json.RawMessage("null") }

func (a attrSet) flag(k string) { a[k] = json.RawMessage("true") }

// raw sets k to a number exactly as the log wrote it (a decimal such as
// 0.001048), which JSON keeps.
func (a attrSet) raw(k, s string) { a[k] = json.RawMessage(s) }

func (a attrSet) String() string { return record.CompactObject(a) }

// lbRequest splits a request line "METHOD URL PROTOCOL" as a load
// balancer logs it.
func lbRequest(a attrSet, s string) {
	f := strings.Fields(s)
	if len(f) >= 1 {
		a.str("method", f[0])
	}
	if len(f) >= 2 {
		a.str("path", f[1])
	}
	if len(f) >= 3 {
		a.str("protocol", f[2])
	}
}

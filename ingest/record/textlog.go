package record

import (
	"bytes"
	"strconv"

	json "github.com/goccy/go-json"
)

// This file holds what the line-oriented server logs (haproxy, envoy-text,
// aws-alb, aws-elb, cloudfront) share: the first lines for detection, a
// tokenizer for space-separated fields with quoted ones, and attrs built
// field by field.

// HeadLines returns up to n non-blank lines of head, leaving out a last line
// the head may have cut.
func HeadLines(head []byte, n int) [][]byte {
	text := bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	cut := len(head) >= HeadBytes
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

// Token is one field of a line: its text and whether it was quoted.
type Token struct {
	S      string
	Quoted bool
}

// Tokens splits a line at spaces; a field that starts with a double quote
// runs to the next quote not escaped by a backslash and is returned without
// its quotes (escapes kept as written). ok is false when a quote is not
// closed.
func Tokens(b []byte) (out []Token, ok bool) {
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
			out = append(out, Token{S: string(b[i : i+j])})
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
		out = append(out, Token{S: string(b[i+1 : j]), Quoted: true})
		i = j + 1
	}
	return out, true
}

// AttrSet builds a row's or an event's attrs; CompactObject renders it
// with sorted keys.
type AttrSet map[string]json.RawMessage

// Str sets k to s unless s is "" or "-" (a log's "no value").
func (a AttrSet) Str(k, s string) {
	if s != "" && s != "-" {
		a[k] = JSONString(s)
	}
}

func (a AttrSet) Num(k string, n int64) { a[k] = json.RawMessage(strconv.FormatInt(n, 10)) }

func (a AttrSet) Null(k string) { a[k] = json.RawMessage("null") }

func (a AttrSet) Flag(k string) { a[k] = json.RawMessage("true") }

// Raw sets k to a number exactly as the log wrote it (a decimal such as
// 0.001048), which JSON keeps.
func (a AttrSet) Raw(k, s string) { a[k] = json.RawMessage(s) }

func (a AttrSet) String() string { return CompactObject(a) }

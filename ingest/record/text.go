package record

import (
	"bytes"
	"maps"
	"slices"
	"strconv"

	json "github.com/goccy/go-json"
)

func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func FormatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// CompactObject renders an object with sorted keys, so attrs are stable.
func CompactObject(m map[string]json.RawMessage) string {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		if err := json.Compact(&b, m[k]); err != nil {
			b.Write(m[k])
		}
	}
	b.WriteByte('}')
	return b.String()
}

// FieldSet is a set of field names; nil is empty. (A pointer keeps row
// comparable.)
type FieldSet struct{ m map[string]bool }

func (s *FieldSet) Has(k string) bool { return s != nil && s.m[k] }

// NewFieldSet is the set of keys.
func NewFieldSet(keys ...string) *FieldSet {
	s := &FieldSet{m: make(map[string]bool, len(keys))}
	for _, k := range keys {
		s.m[k] = true
	}
	return s
}

// Keys are the set's names, sorted.
func (s *FieldSet) Keys() []string {
	if s == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(s.m))
}

// JSONQuote is s as a JSON string.
func JSONQuote(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// JSONString quotes s as JSON, leaving <, > and & as they are (attrs are
// data, not HTML).
func JSONString(s string) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(b.Bytes(), "\n")
}

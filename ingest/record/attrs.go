package record

import (
	"slices"
	"strings"
)

// AttrPair is one attrs member; raw values are JSON numbers, written as
// they are.
type AttrPair struct {
	Key, Val string
	Raw      bool
}

// AppendAttrPairs renders kvs as a JSON object with sorted keys (of a key
// given twice, the first is kept).
func AppendAttrPairs(buf []byte, kvs []AttrPair) []byte {
	slices.SortStableFunc(kvs, func(a, b AttrPair) int { return strings.Compare(a.Key, b.Key) })
	buf = append(buf, '{')
	for i, kv := range kvs {
		if i > 0 && kv.Key == kvs[i-1].Key {
			continue
		}
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = AppendQuotedJSON(buf, kv.Key)
		buf = append(buf, ':')
		if kv.Raw {
			buf = append(buf, kv.Val...)
		} else {
			buf = AppendQuotedJSON(buf, kv.Val)
		}
	}
	return append(buf, '}')
}

// AppendQuotedJSON quotes s for JSON. Bytes that are not UTF-8 pass
// through, for the shared validation to refuse.
func AppendQuotedJSON(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			buf = append(buf, '\\', c)
		case c < 0x20:
			buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			buf = append(buf, c)
		}
	}
	return append(buf, '"')
}

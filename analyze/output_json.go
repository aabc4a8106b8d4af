package analyze

import (
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/rewind-dev/rewind/internal/jsontext"
)

// jsonKeys are the columns' names as JSON object keys, each followed by
// ": ", encoded once per writer rather than once per row.
func jsonKeys(cols []Column) ([][]byte, error) {
	keys := make([][]byte, len(cols))
	for i, c := range cols {
		k, err := jsontext.Marshal(c.Name)
		if err != nil {
			return nil, err
		}
		keys[i] = append(k, ": "...)
	}
	return keys, nil
}

// appendJSON appends v encoded as jsontext.Marshal encodes it. The values
// a row holds most (numbers, booleans, plain strings, null) are written
// directly: through encoding/json, a replay's 125 k windows spent more in
// allocation and reflection than in deciding them (issue 41). Anything
// else goes through jsontext.Marshal; TestAppendJSONMatchesMarshal holds
// the two equal.
func appendJSON(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case int32:
		return strconv.AppendInt(b, int64(x), 10), nil
	case float64:
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			return appendFloat(b, x), nil
		}
	case string:
		if plainString(x) {
			b = append(b, '"')
			b = append(b, x...)
			return append(b, '"'), nil
		}
	}
	j, err := jsontext.Marshal(v)
	return append(b, j...), err
}

// appendFloat is encoding/json's float64 encoding: the shortest decimal
// that reads back the same, with an exponent only below 1e-6 or from 1e21
// on, and that exponent without a leading zero (1e-07 becomes 1e-7).
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// plainString reports whether s encodes as itself between quotes:
// printable ASCII without a quote or a backslash (encoding/json escapes
// those, control characters, invalid UTF-8, U+2028 and U+2029).
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

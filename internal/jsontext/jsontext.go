// Package jsontext is encoding/json as rewind writes it for people and
// programs alike: text reads as written (a threshold p(95)<200 stays
// p(95)<200, not p(95)\u003c200), with no trailing newline.
package jsontext

import (
	"bytes"
	"encoding/json"
)

// Marshal is json.Marshal without HTML escaping.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

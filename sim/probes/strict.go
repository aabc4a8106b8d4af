package probes

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
)

// object is one decoded JSON object with its path in the file, so every
// error can say which field it is about. encoding/json's own strict mode
// names neither the field's path nor the keys that would have been valid.
type object struct {
	path   string
	fields map[string]json.RawMessage
}

// decodeObject accepts only the given keys.
func decodeObject(path string, raw json.RawMessage, keys ...string) (object, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return object{}, fieldErr(topLevel(path), "want a JSON object, got %s", excerpt(raw))
	}
	o := object{path: path, fields: fields}
	var unknown []string
	for k := range fields {
		if !slices.Contains(keys, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return o, fieldErr(o.at(unknown[0]), "unknown key (want %s)", orList(keys))
	}
	return o, nil
}

func topLevel(path string) string {
	if path == "" {
		return "scenario"
	}
	return path
}

// at is the path of one of the object's keys.
func (o object) at(key string) string {
	if o.path == "" {
		return key
	}
	return o.path + "." + key
}

// get treats null like an absent key.
func (o object) get(key string) (json.RawMessage, bool) {
	raw, ok := o.fields[key]
	if !ok || strings.TrimSpace(string(raw)) == "null" {
		return nil, false
	}
	return raw, true
}

func (o object) int(key string, required bool, dst *int) error {
	return o.value(key, required, dst, "an integer")
}

func (o object) str(key string, required bool, dst *string) error {
	return o.value(key, required, dst, "a string")
}

func (o object) value(key string, required bool, dst any, want string) error {
	raw, ok := o.get(key)
	if !ok {
		if required {
			return fieldErr(o.at(key), "required")
		}
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fieldErr(o.at(key), "want %s, got %s", want, excerpt(raw))
	}
	return nil
}

// ints decodes a required list of integers.
func (o object) ints(key string, dst *[]int) error {
	items, err := list(o, key, true)
	if err != nil {
		return err
	}
	*dst = make([]int, len(items))
	for i, raw := range items {
		if err := json.Unmarshal(raw, &(*dst)[i]); err != nil {
			return fieldErr(index(o.at(key), i), "want an integer, got %s", excerpt(raw))
		}
	}
	return nil
}

func list(o object, key string, required bool) ([]json.RawMessage, error) {
	raw, ok := o.get(key)
	if !ok {
		if required {
			return nil, fieldErr(o.at(key), "required")
		}
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fieldErr(o.at(key), "want a list, got %s", excerpt(raw))
	}
	return items, nil
}

// decodeList decodes a list of objects with one decoder per element.
func decodeList[T any](o object, key string, required bool, decode func(string, json.RawMessage) (T, error)) ([]T, error) {
	items, err := list(o, key, required)
	if err != nil || items == nil {
		return nil, err
	}
	out := make([]T, 0, len(items))
	for i, raw := range items {
		v, err := decode(index(o.at(key), i), raw)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// excerpt quotes a bad value briefly; a long one is cut.
func excerpt(raw json.RawMessage) string {
	s := []rune(strings.TrimSpace(string(raw)))
	if len(s) > 24 {
		return string(s[:21]) + "..."
	}
	return string(s)
}

func orList(keys []string) string {
	if len(keys) == 1 {
		return keys[0]
	}
	return strings.Join(keys[:len(keys)-1], ", ") + " or " + keys[len(keys)-1]
}

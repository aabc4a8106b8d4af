package ndjson

import (
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"

	json "github.com/goccy/go-json"

	"github.com/rewind-dev/rewind/ingest/record"
)

// decodeObject decodes one JSON object of a canonical log. It fills r and
// returns true for an attempt; metadata and events go to c.
func decodeObject(raw []byte, r *record.Row, c record.Sink) (bool, error) {
	if !utf8.Valid(raw) {
		return false, checkJSONObject(raw, r.Line)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return false, record.LineErr(r.Line, "bad JSON: %s", record.JSONMsg(err))
	}
	if countTopKeys(raw) != len(m) {
		if err := checkJSONObject(raw, r.Line); err != nil {
			return false, err
		}
	}
	if m == nil {
		return false, record.LineErr(r.Line, "want a JSON object, got null")
	}
	kind := "request"
	if rec, ok := m["record"]; ok {
		v := record.JSONVal(rec)
		if v.Kind != 's' {
			return false, record.FieldErr(r.Line, "record", "want a string, got %s", v.Describe())
		}
		kind = v.Text
	}
	switch kind {
	case "request":
		return true, requestObject(m, r)
	case "experiment":
		return false, experimentObject(c, m, r.Line)
	case "run":
		return false, runObject(c, m, r.Line)
	case "event":
		return false, eventObject(c, m, r.Line)
	}
	return false, record.FieldErr(r.Line, "record", "unknown record kind %q (want request, experiment, run or event)", kind)
}

func requestObject(m map[string]json.RawMessage, r *record.Row) error {
	extra := map[string]json.RawMessage{}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k == "record" {
			continue
		}
		if k == "attrs" {
			if err := mergeAttrs(extra, m[k], r.Line); err != nil {
				return err
			}
			continue
		}
		known, err := false, error(nil)
		if !r.Raw.Has(k) {
			known, err = record.SetField(r, k, record.JSONVal(m[k]))
		}
		if err != nil {
			return err
		}
		if !known {
			extra[k] = m[k]
		}
	}
	if len(extra) > 0 {
		r.Attrs = record.CompactObject(extra)
		r.Set(record.ColAttrs)
	}
	return nil
}

func mergeAttrs(dst map[string]json.RawMessage, raw json.RawMessage, line int64) error {
	v := record.JSONVal(raw)
	if v.Kind == 'z' {
		return nil
	}
	var obj map[string]json.RawMessage
	if v.Kind != 'o' || json.Unmarshal(raw, &obj) != nil {
		return record.FieldErr(line, "attrs", "want a JSON object, got %s", v.Describe())
	}
	for k, x := range obj {
		dst[k] = x
	}
	return nil
}

// optString reads an optional string member.
func optString(m map[string]json.RawMessage, key string, line int64) (string, bool, error) {
	raw, ok := m[key]
	if !ok {
		return "", false, nil
	}
	v := record.JSONVal(raw)
	switch v.Kind {
	case 'z':
		return "", false, nil
	case 's':
		return v.Text, true, nil
	case 'n':
		if key == "subject" {
			return v.Text, true, nil
		}
	}
	return "", false, record.FieldErr(line, key, "want a string, got %s", v.Describe())
}

func optObject(m map[string]json.RawMessage, key string, line int64) (string, error) {
	raw, ok := m[key]
	if !ok {
		return "", nil
	}
	v := record.JSONVal(raw)
	if v.Kind == 'z' {
		return "", nil
	}
	var obj map[string]json.RawMessage
	if v.Kind != 'o' || json.Unmarshal(raw, &obj) != nil {
		return "", record.FieldErr(line, key, "want a JSON object, got %s", v.Describe())
	}
	return record.CompactObject(obj), nil
}

func experimentObject(c record.Sink, m map[string]json.RawMessage, line int64) error {
	name, _, err := optString(m, "experiment", line)
	if err != nil {
		return err
	}
	params, err := optObject(m, "params", line)
	if err != nil {
		return err
	}
	c.NamedExperiment(name, params)
	return nil
}

func runObject(c record.Sink, m map[string]json.RawMessage, line int64) error {
	var rm record.RunMeta
	var err error
	if rm.Experiment, _, err = optString(m, "experiment", line); err != nil {
		return err
	}
	var ok bool
	if rm.Run, ok, err = optString(m, "run", line); err != nil {
		return err
	} else if !ok {
		return record.FieldErr(line, "run", "missing in a run record")
	}
	if rm.Role, rm.HasRole, err = optString(m, "role", line); err != nil {
		return err
	}
	if rm.Params, err = optObject(m, "params", line); err != nil {
		return err
	}
	c.Run(rm)
	return nil
}

func eventObject(c record.Sink, m map[string]json.RawMessage, line int64) error {
	ev := record.Event{Line: line}
	dst := map[string]*string{"experiment": &ev.Experiment, "run": &ev.Run, "type": &ev.Type, "subject": &ev.Subject, "state": &ev.State}
	for _, k := range []string{"experiment", "run", "type", "subject", "state"} {
		s, _, err := optString(m, k, line)
		if err != nil {
			return err
		}
		*dst[k] = s
	}
	if ev.Type == "" {
		return record.FieldErr(line, "type", "missing in an event record")
	}
	if raw, ok := m["t_ms"]; ok && record.JSONVal(raw).Kind != 'z' {
		v := record.JSONVal(raw)
		x, err := strconv.ParseFloat(v.Text, 64)
		if v.Kind != 'n' || err != nil {
			return record.FieldErr(line, "t_ms", "not a number %s", v.Describe())
		}
		ev.TMs, ev.HasTMs = x, true
	}
	if raw, ok := m["ts"]; ok && record.JSONVal(raw).Kind != 'z' {
		var r record.Row
		r.Reset(line)
		if err := record.SetTs(&r, record.JSONVal(raw)); err != nil {
			return record.FieldErr(line, "ts", "%v", err)
		}
		ev.TsUs, ev.HasTs = r.TsUs, true
	}
	extra := map[string]json.RawMessage{}
	for k, raw := range m {
		switch k {
		case "record", "experiment", "run", "type", "subject", "state", "t_ms", "ts":
		case "attrs":
			if err := mergeAttrs(extra, raw, line); err != nil {
				return err
			}
		default:
			extra[k] = raw
		}
	}
	if len(extra) > 0 {
		ev.Attrs = record.CompactObject(extra)
	}
	c.Event(ev)
	return nil
}

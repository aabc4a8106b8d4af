package ingest

import (
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"

	json "github.com/goccy/go-json"

	"github.com/rewind-dev/rewind/ingest/record"
	"github.com/rewind-dev/rewind/internal/param"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// collector gathers what a file says besides attempts: experiment and run
// parameters, and side-table events.
type collector struct {
	// warnings are things a decoder noticed that do not stop the ingest
	// (spans skipped, say); the ingest reports them.
	warnings []*param.Error
	// timeStepMs is the resolution of the times the file logs, where the
	// format knows it (0 where not): the times rows get from it may look
	// finer, as an end time less a duration does.
	timeStepMs  float64
	experiments []expMeta
	runs        []runMeta
	events      *array.RecordBuilder
	nEvents     int
	// done holds event batches absorbed from other collectors.
	done []arrow.RecordBatch
}

// Experiment stores parameters of the ingest's experiment (record.Sink).
func (c *collector) Experiment(params string) {
	c.experiments = append(c.experiments, expMeta{params: params})
}

// Run stores a run the file names (record.Sink).
func (c *collector) Run(r record.RunMeta) {
	c.runs = append(c.runs, runMeta{experiment: r.Experiment, run: r.Run, role: r.Role, hasRole: r.HasRole, params: r.Params})
}

// Warn reports what a decoder skipped or assumed (record.Sink).
func (c *collector) Warn(w *param.Error) { c.warnings = append(c.warnings, w) }

// TimeStep is the resolution of the file's times (record.Sink).
func (c *collector) TimeStep(ms float64) { c.timeStepMs = ms }

// absorb takes over what another collector gathered, after what this one has.
func (c *collector) absorb(o *collector) {
	c.experiments = append(c.experiments, o.experiments...)
	for _, w := range o.warnings {
		// each chunk of a file may say the same
		if !slices.ContainsFunc(c.warnings, func(s *param.Error) bool { return s.Error() == w.Error() }) {
			c.warnings = append(c.warnings, w)
		}
	}
	// the file's times are as fine as its finest chunk's
	c.timeStepMs = min(c.timeStepMs, o.timeStepMs)
	c.runs = append(c.runs, o.runs...)
	if o.nEvents > 0 {
		c.done = append(c.done, o.events.NewRecordBatch())
		c.nEvents += o.nEvents
	}
	o.events.Release()
}

// eventBatches returns every event gathered, as record batches.
func (c *collector) eventBatches() []arrow.RecordBatch {
	out := append([]arrow.RecordBatch(nil), c.done...)
	c.done = nil
	if c.events.Fields()[evLine].Len() > 0 {
		out = append(out, c.events.NewRecordBatch())
	}
	return out
}

func (c *collector) release() {
	releaseAll(c.done)
	c.events.Release()
}

type expMeta struct {
	experiment string // "" means the ingest's experiment
	params     string // JSON object text, "" when none
}

type runMeta struct {
	experiment, run, role string
	hasRole               bool
	params                string
}

var eventSchema = arrow.NewSchema([]arrow.Field{
	{Name: "line", Type: arrow.PrimitiveTypes.Int64},
	{Name: "experiment", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "run", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "type", Type: arrow.BinaryTypes.String},
	{Name: "t_ms", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "subject", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "state", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "attrs", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "ts_us", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "ord", Type: arrow.PrimitiveTypes.Int64},
}, nil)

// add appends one event.
// The event columns add writes, by name: a column added or moved in
// eventSchema cannot make it write the wrong one.
var (
	evLine, evExperiment, evRun = eventCol("line"), eventCol("experiment"), eventCol("run")
	evType, evTMs, evSubject    = eventCol("type"), eventCol("t_ms"), eventCol("subject")
	evState, evAttrs, evTsUs    = eventCol("state"), eventCol("attrs"), eventCol("ts_us")
	evOrd                       = eventCol("ord")
)

func (c *collector) Event(ev record.Event) {
	f := c.events.Fields()
	f[evLine].(*array.Int64Builder).Append(ev.Line)
	appendNonEmpty(f[evExperiment], ev.Experiment)
	appendNonEmpty(f[evRun], ev.Run)
	f[evType].(*array.StringBuilder).Append(ev.Type)
	if ev.HasTMs {
		f[evTMs].(*array.Float64Builder).Append(ev.TMs)
	} else {
		f[evTMs].AppendNull()
	}
	appendNonEmpty(f[evSubject], ev.Subject)
	appendNonEmpty(f[evState], ev.State)
	appendNonEmpty(f[evAttrs], ev.Attrs)
	if ev.HasTs {
		f[evTsUs].(*array.Int64Builder).Append(ev.TsUs)
	} else {
		f[evTsUs].AppendNull()
	}
	// Events of one line (a whole journal on one line) keep their order.
	f[evOrd].(*array.Int64Builder).Append(int64(c.nEvents))
	c.nEvents++
}

func appendNonEmpty(b array.Builder, s string) {
	if s == "" {
		b.AppendNull()
	} else {
		b.(*array.StringBuilder).Append(s)
	}
}

func newCollector() *collector {
	return &collector{events: array.NewRecordBuilder(memory.DefaultAllocator, eventSchema)}
}

// decodeObject decodes one JSON object of a canonical log. It fills r and
// returns true for an attempt; metadata and events go to c.
func decodeObject(raw []byte, r *record.Row, c *collector) (bool, error) {
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
		return false, c.experimentObject(m, r.Line)
	case "run":
		return false, c.runObject(m, r.Line)
	case "event":
		return false, c.eventObject(m, r.Line)
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

func (c *collector) experimentObject(m map[string]json.RawMessage, line int64) error {
	name, _, err := optString(m, "experiment", line)
	if err != nil {
		return err
	}
	params, err := optObject(m, "params", line)
	if err != nil {
		return err
	}
	c.experiments = append(c.experiments, expMeta{experiment: name, params: params})
	return nil
}

func (c *collector) runObject(m map[string]json.RawMessage, line int64) error {
	var rm runMeta
	var err error
	if rm.experiment, _, err = optString(m, "experiment", line); err != nil {
		return err
	}
	var ok bool
	if rm.run, ok, err = optString(m, "run", line); err != nil {
		return err
	} else if !ok {
		return record.FieldErr(line, "run", "missing in a run record")
	}
	if rm.role, rm.hasRole, err = optString(m, "role", line); err != nil {
		return err
	}
	if rm.params, err = optObject(m, "params", line); err != nil {
		return err
	}
	c.runs = append(c.runs, rm)
	return nil
}

func (c *collector) eventObject(m map[string]json.RawMessage, line int64) error {
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

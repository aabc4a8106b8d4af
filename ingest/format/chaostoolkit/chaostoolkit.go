package chaostoolkit

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rewind-dev/rewind/ingest/record"
)

// Name names the journal.json that `chaos run` writes. A
// journal is a timeline, not requests: it gives no request rows. Every
// activity result (the method's run[], rollbacks[], and the steady-state
// probes before, after and during the method) becomes two events,
// <type>_start and <type>_end (type action or probe) at the activity's
// start and end, subject the activity's name, state its status
// (succeeded, failed), attrs its phase (method, rollback,
// steady-state-before, -after, -during), provider type, duration and
// tolerance_met; the start event carries the activity's definition, the
// end event its output and exception. The experiment's own start and end
// become experiment_start and experiment_end (state: the run's status).
// Title, status, deviated, chaoslib-version, platform, node, start, end
// and duration are stored as the experiment's parameters, under
// "chaostoolkit". Journal times have no zone (chaoslib writes UTC
// datetime.isoformat()): they are read as UTC; newer journals' +00:00 is
// honoured.
const Name = "chaostoolkit"

var (
	ctkVersion    = regexp.MustCompile(`"chaoslib-version"\s*:`)
	ctkExperiment = regexp.MustCompile(`"experiment"\s*:\s*\{`)
	ctkRun        = regexp.MustCompile(`"(?:steady_states"\s*:\s*\{|run"\s*:\s*\[)`)
)

// detectChaostoolkit takes a JSON object that names chaoslib's version,
// or holds an experiment object with steady-state results or a run array.
func detectChaostoolkit(name string, head []byte) bool {
	t := record.JSONText(head)
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	return ctkVersion.Match(t) || ctkExperiment.Match(t) && ctkRun.Match(t)
}

func decodeChaostoolkit(in record.Input, c record.Sink) (record.Produce, error) {
	data, err := in.All()
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, emit func(arrow.RecordBatch) error) error {
		j := &ctkJournal{c: c, params: map[string]json.RawMessage{}}
		if err := j.read(record.JSONText(data)); err != nil {
			return err
		}
		j.params["steady_state_met"] = json.RawMessage(record.CompactObject(j.steady))
		if len(j.steady) == 0 {
			delete(j.params, "steady_state_met")
		}
		c.Experiment(record.CompactObject(map[string]json.RawMessage{
			"chaostoolkit": json.RawMessage(record.CompactObject(j.params))}))
		return nil
	}, nil
}

// ctkJournal reads one journal into events and parameters.
type ctkJournal struct {
	c      record.Sink
	params map[string]json.RawMessage
	steady map[string]json.RawMessage // steady_state_met of before and after
	title  string
	status string
	bounds []ctkBound // the journal's start and end, added once its status is known
}

type ctkBound struct {
	key string // start or end
	at  record.RawAt
}

// ctkParams are the journal members kept as experiment parameters.
var ctkParams = map[string]string{"chaoslib-version": "chaoslib_version", "platform": "platform", "node": "node",
	"status": "status", "deviated": "deviated", "start": "start", "end": "end", "duration": "duration"}

func (j *ctkJournal) read(data []byte) error {
	d := record.NewDoc(data)
	raw, line, err := d.Value()
	if err != nil {
		return err
	}
	if err := d.Trailing(); err != nil {
		return err
	}
	j.steady = map[string]json.RawMessage{}
	err = record.WalkObject(raw, line, func(key string, v json.RawMessage, line int64) error {
		if p, ok := ctkParams[key]; ok && record.JSONVal(v).Kind != 'z' {
			j.params[p] = v
		}
		switch key {
		case "experiment":
			return j.experiment(v, line)
		case "status":
			j.status = record.JSONVal(v).Text
		case "start", "end":
			j.bounds = append(j.bounds, ctkBound{key, record.RawAt{Raw: v, Line: line}})
		case "steady_states":
			return j.steadyStates(v, line)
		case "run":
			return record.WalkArray(v, line, key, j.phase("method", -1))
		case "rollbacks":
			return record.WalkArray(v, line, key, j.phase("rollback", -1))
		}
		return nil
	})
	if err != nil {
		return err
	}
	return j.experimentBounds()
}

func (j *ctkJournal) experiment(raw json.RawMessage, line int64) error {
	return record.WalkObject(raw, line, func(key string, v json.RawMessage, line int64) error {
		switch key {
		case "title":
			j.title = record.JSONVal(v).Text
			j.params["title"] = v
		case "description", "tags", "version":
			j.params[key] = v
		}
		return nil
	})
}

// experimentBounds adds the experiment's start and end as events.
func (j *ctkJournal) experimentBounds() error {
	for _, b := range j.bounds {
		ev := record.Event{Line: b.at.Line, Type: "experiment_" + b.key, Subject: j.title, State: j.status}
		if err := ctkTime(&ev, b.at.Raw, b.key); err != nil {
			return err
		}
		j.c.Event(ev)
	}
	return nil
}

func (j *ctkJournal) steadyStates(raw json.RawMessage, line int64) error {
	return record.WalkObject(raw, line, func(key string, v json.RawMessage, line int64) error {
		switch key {
		case "before", "after":
			return j.hypothesis(v, line, key, -1)
		case "during":
			i := 0
			return record.WalkArray(v, line, "steady_states.during", func(v json.RawMessage, line int64) error {
				i++
				return j.hypothesis(v, line, "during", i)
			})
		}
		return nil
	})
}

// hypothesis reads one steady-state hypothesis result; iteration numbers
// the results of a continuous hypothesis (during), from 1.
func (j *ctkJournal) hypothesis(raw json.RawMessage, line int64, when string, iteration int) error {
	return record.WalkObject(raw, line, func(key string, v json.RawMessage, line int64) error {
		switch key {
		case "steady_state_met":
			if iteration < 0 {
				j.steady[when] = v
			}
		case "probes":
			return record.WalkArray(v, line, "probes", j.phase("steady-state-"+when, iteration))
		}
		return nil
	})
}

// phase reads the activity results of one phase of the run.
func (j *ctkJournal) phase(name string, iteration int) func(json.RawMessage, int64) error {
	index := 0
	return func(raw json.RawMessage, line int64) error {
		index++
		return j.activity(raw, line, name, index, iteration)
	}
}

// ctkResult is one activity result as the journal has it.
type ctkResult struct {
	def                    map[string]json.RawMessage // the activity definition
	status                 string
	start, end             record.RawAt
	duration, toleranceMet json.RawMessage
	rest                   map[string]json.RawMessage // output, exception and the like
}

func (j *ctkJournal) activity(raw json.RawMessage, line int64, phase string, index, iteration int) error {
	res := ctkResult{start: record.RawAt{Line: line}, end: record.RawAt{Line: line}, rest: map[string]json.RawMessage{}}
	err := record.WalkObject(raw, line, func(key string, v json.RawMessage, vline int64) error {
		switch key {
		case "activity":
			if err := json.Unmarshal(v, &res.def); err != nil || record.JSONVal(v).Kind != 'o' {
				return record.FieldErr(vline, "activity", "want an object, got %s", record.JSONVal(v).Describe())
			}
		case "status":
			res.status = record.JSONVal(v).Text
		case "start":
			res.start = record.RawAt{Raw: v, Line: vline}
		case "end":
			res.end = record.RawAt{Raw: v, Line: vline}
		case "duration":
			res.duration = v
		case "tolerance_met":
			res.toleranceMet = v
		default:
			res.rest[key] = v
		}
		return nil
	})
	if err != nil {
		return err
	}
	return j.activityEvents(&res, phase, index, iteration)
}

func (j *ctkJournal) activityEvents(res *ctkResult, phase string, index, iteration int) error {
	kind := record.JSONVal(res.def["type"]).Text
	if kind == "" {
		kind = "activity"
	}
	common := map[string]json.RawMessage{"phase": record.JSONString(phase), "index": json.RawMessage(strconv.Itoa(index))}
	if iteration > 0 {
		common["iteration"] = json.RawMessage(strconv.Itoa(iteration))
	}
	var provider map[string]json.RawMessage
	if json.Unmarshal(res.def["provider"], &provider) == nil && record.JSONVal(provider["type"]).Kind == 's' {
		common["provider_type"] = provider["type"]
	}
	for k, v := range map[string]json.RawMessage{"duration": res.duration, "tolerance_met": res.toleranceMet} {
		if v != nil {
			common[k] = v
		}
	}
	name := record.JSONVal(res.def["name"]).Text
	for _, side := range []struct {
		suffix string
		at     record.RawAt
		extra  map[string]json.RawMessage
	}{{"_start", res.start, map[string]json.RawMessage{"activity": json.RawMessage(record.CompactObject(res.def))}},
		{"_end", res.end, res.rest}} {
		ev := record.Event{Line: side.at.Line, Type: kind + side.suffix, Subject: name, State: res.status}
		if err := ctkTime(&ev, side.at.Raw, strings.TrimPrefix(side.suffix, "_")); err != nil {
			return err
		}
		attrs := map[string]json.RawMessage{}
		for _, m := range []map[string]json.RawMessage{common, side.extra} {
			for k, v := range m {
				attrs[k] = v
			}
		}
		ev.Attrs = record.CompactObject(attrs)
		j.c.Event(ev)
	}
	return nil
}

// ctkLayouts are the times journals hold: isoformat() with an offset
// (newer chaoslib) or without one (older chaoslib, UTC).
var ctkLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999"}

// ctkTime sets the event's time from an ISO 8601 value; a missing or null
// time leaves the event without one.
func ctkTime(ev *record.Event, raw json.RawMessage, field string) error {
	v := record.JSONVal(raw)
	if v.Kind == 'z' {
		return nil
	}
	if v.Kind == 's' {
		for _, layout := range ctkLayouts {
			if t, err := time.Parse(layout, v.Text); err == nil {
				ev.TsUs, ev.HasTs = t.UnixMicro(), true
				return nil
			}
		}
	}
	return record.FieldErr(ev.Line, field, "want an ISO 8601 time such as 2024-05-01T10:00:00.123456, got %s", v.Describe())
}

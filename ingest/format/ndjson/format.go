// Package ndjson reads rewind's canonical JSON: NDJSON of canonical records
// (one object a line, read in parallel chunk by chunk; a stream of
// pretty-printed objects is read as a document) and a JSON array of them
// (format json). A record is a request unless its "record" member says
// experiment, run or event; those go to the record.Sink. The line decoder
// that follows a live log (record.LineDecoder, for rewind watch) is the same
// code, so both accept and refuse the same lines.
package ndjson

import (
	"github.com/rewind-dev/rewind/ingest/record"
	"github.com/rewind-dev/rewind/internal/param"
)

// Names of the formats ({from} ndjson, {from} json).
const (
	Name     = "ndjson" // canonical NDJSON (.ndjson, .jsonl)
	JSONName = "json"   // a JSON array of canonical records
)

// Format is canonical NDJSON as a record.Format (and a record.LineDecoder).
type Format struct{}

func (Format) Name() string  { return Name }
func (Format) About() string { return "canonical NDJSON, one record per line (.ndjson, .jsonl)" }
func (Format) Detect(name string, head []byte) bool {
	return detectNDJSON(name, head)
}
func (Format) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decodeNDJSONInput(in, out)
}

// InLineOrder and TimesFromTs are its record.Streamed answers: rows come
// in line order, and a record may give t_ms or an experiment of its own.
func (Format) InLineOrder() bool { return true }
func (Format) TimesFromTs() bool { return false }

// JSON is a JSON array of canonical records as a record.Format.
type JSON struct{}

func (JSON) Name() string  { return JSONName }
func (JSON) About() string { return "a JSON array of canonical records" }
func (JSON) Detect(_ string, head []byte) bool {
	return detectJSONArray(head)
}
func (JSON) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return wholeDoc(decodeJSONArray)(in, out)
}

// InLineOrder and TimesFromTs are its record.Streamed answers: neither.
func (JSON) InLineOrder() bool { return false }
func (JSON) TimesFromTs() bool { return false }

func detectJSONArray(head []byte) bool {
	t := record.JSONText(head)
	return len(t) > 0 && t[0] == '['
}

func detectNDJSON(name string, head []byte) bool {
	t := record.JSONText(head)
	return len(t) > 0 && t[0] == '{' || record.HasExt(name, ".ndjson", ".jsonl", ".json")
}

// wholeDoc adapts a decoder of a whole in-memory document.
func wholeDoc(dec func(data []byte, c record.Sink) record.Produce) func(record.Input, record.Sink) (record.Produce, error) {
	return func(in record.Input, c record.Sink) (record.Produce, error) {
		data, err := in.All()
		if err != nil {
			return nil, err
		}
		return dec(data, c), nil
	}
}

// collector is the record.Sink of one chunk of lines, or of the one line
// DecodeLine reads: what its records say besides requests, kept to be
// passed on to the file's Sink in the file's order (record.ChunkResult's
// Done), or read by DecodeLine.
type collector struct {
	experiments []expMeta
	runs        []record.RunMeta
	events      []record.Event
	warnings    []*param.Error
}

type expMeta struct {
	experiment string // "" means the ingest's experiment
	params     string // JSON object text, "" when none
}

func (c *collector) Event(ev record.Event)    { c.events = append(c.events, ev) }
func (c *collector) Experiment(params string) { c.NamedExperiment("", params) }
func (c *collector) NamedExperiment(experiment, params string) {
	c.experiments = append(c.experiments, expMeta{experiment: experiment, params: params})
}
func (c *collector) Run(r record.RunMeta) { c.runs = append(c.runs, r) }
func (c *collector) Warn(w *param.Error)  { c.warnings = append(c.warnings, w) }
func (c *collector) TimeStep(ms float64)  {} // canonical records give no time step

// passOn gives what c gathered to the file's Sink, in order.
func (c *collector) passOn(file record.Sink) {
	for _, e := range c.experiments {
		file.NamedExperiment(e.experiment, e.params)
	}
	for _, r := range c.runs {
		file.Run(r)
	}
	for _, ev := range c.events {
		file.Event(ev)
	}
	for _, w := range c.warnings {
		file.Warn(w)
	}
}

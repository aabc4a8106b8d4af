// Package simlog writes simulator output in rewind's canonical NDJSON log format,
// the format `rewind ingest` reads without flags.
//
// A canonical NDJSON file holds one JSON object per line. A line without a
// "record" key (or with "record":"request") is one attempt in the request log;
// its keys are the columns of the requests table (see the README's schema).
// Other lines carry metadata and side tables:
//
//	{"record":"experiment","experiment":"storm","params":{...}}
//	{"record":"run","experiment":"storm","run":"...","role":"","params":{...}}
//	{"record":"event","experiment":"...","run":"...","type":"state","t_ms":..,"subject":"3","state":"healthy","attrs":{...}}
//
// Params become the defaults of the analyses (window size, experiment start,
// fault window, tick, ...).
package simlog

import (
	"bufio"
	"encoding/json"
	"io"
)

// Request is one attempt. Pointer fields are omitted when nil, so a log only
// carries the columns its simulator knows.
type Request struct {
	Experiment string   `json:"experiment,omitempty"`
	Run        string   `json:"run"`
	Role       string   `json:"role,omitempty"`
	Req        int64    `json:"req"`
	Attempt    *int     `json:"attempt,omitempty"`
	TMs        *float64 `json:"t_ms,omitempty"`
	LatencyMs  *float64 `json:"latency_ms,omitempty"`
	Outcome    string   `json:"outcome"`
	Status     *int     `json:"status,omitempty"`
	Tagged     *bool    `json:"tagged,omitempty"`
	UserID     *int64   `json:"user_id,omitempty"`
	BatchID    *int64   `json:"batch_id,omitempty"`
	ClientID   *int64   `json:"client_id,omitempty"`
	Retried    *bool    `json:"retried,omitempty"`
	DropReason string   `json:"drop_reason,omitempty"`
	Count      *int64   `json:"count,omitempty"`
	// Attrs holds fields the schema does not name; they are kept in the
	// requests table's attrs column.
	Attrs map[string]any `json:"attrs,omitempty"`
}

// Experiment carries parameters stored with an experiment.
type Experiment struct {
	Record     string         `json:"record"` // always "experiment"
	Experiment string         `json:"experiment"`
	Params     map[string]any `json:"params,omitempty"`
}

// Run carries parameters stored with one run of an experiment.
type Run struct {
	Record     string         `json:"record"` // always "run"
	Experiment string         `json:"experiment,omitempty"`
	Run        string         `json:"run"`
	Role       string         `json:"role,omitempty"`
	Params     map[string]any `json:"params,omitempty"`
}

// Event is a row of the events side table: replica states, restarts, and
// anything else that is not an attempt.
type Event struct {
	Record     string         `json:"record"` // always "event"
	Experiment string         `json:"experiment,omitempty"`
	Run        string         `json:"run"`
	Type       string         `json:"type"`
	TMs        *float64       `json:"t_ms,omitempty"`
	Subject    string         `json:"subject,omitempty"`
	State      string         `json:"state,omitempty"`
	Attrs      map[string]any `json:"attrs,omitempty"`
}

// Writer writes canonical NDJSON lines.
type Writer struct {
	w   *bufio.Writer
	enc *json.Encoder
}

// NewWriter returns a Writer on w. Call Flush when done.
func NewWriter(w io.Writer) *Writer {
	bw := bufio.NewWriterSize(w, 1<<16)
	return &Writer{w: bw, enc: json.NewEncoder(bw)}
}

// Experiment writes an experiment metadata line.
func (w *Writer) Experiment(e Experiment) error { e.Record = "experiment"; return w.enc.Encode(e) }

// Run writes a run metadata line.
func (w *Writer) Run(r Run) error { r.Record = "run"; return w.enc.Encode(r) }

// Request writes one attempt.
func (w *Writer) Request(r Request) error { return w.enc.Encode(r) }

// Event writes one side-table event.
func (w *Writer) Event(e Event) error { e.Record = "event"; return w.enc.Encode(e) }

// Flush writes buffered lines to the underlying writer.
func (w *Writer) Flush() error { return w.w.Flush() }

// Int, Float, Bool and Int64 return pointers for the optional fields.
func Int(v int) *int           { return &v }
func Int64(v int64) *int64     { return &v }
func Float(v float64) *float64 { return &v }
func Bool(v bool) *bool        { return &v }

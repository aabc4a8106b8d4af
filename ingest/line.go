package ingest

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/rewind-dev/rewind/ingest/record"
)

// Attempt is what one line of a canonical NDJSON log says, as much as a
// consumer that reads a log line by line (rewind watch) needs. It is decoded
// by the same code as an ingest, so both accept and refuse the same lines.
type Attempt struct {
	// Record is the line's kind: request, experiment, run or event.
	Record     string
	Experiment string
	Run        string
	Role       string
	HasRole    bool   // the line gives a role (a run record may give "")
	Outcome    string // lower case; "" when the line gives none
	Tagged     bool   // false when the line gives none, as in the requests table
	HasTagged  bool   // the line gives tagged (true or false)
	TMs        float64
	HasTMs     bool
	LatencyMs  float64
	HasLatency bool
	Status     int64
	HasStatus  bool
	Count      int64 // requests the line stands for: 1 when it gives none
	// EventType and Subject are an event record's (TMs, HasTMs its time).
	EventType, Subject string
}

// DecodeLine decodes one line (1-based number line, used in errors) of a
// canonical NDJSON log. It returns true for a request line; for a run record
// it returns false with Run and Role filled, for other records false. Errors
// are *LineError without a file name: the caller adds it. A request line must
// name its outcome unless it gives a count, as in an ingest.
func DecodeLine(b []byte, line int64) (Attempt, bool, error) {
	var r record.Row
	r.Reset(line)
	if len(b) == 0 || b[0] != '{' {
		return Attempt{}, false, record.LineErr(line, "bad JSON: want an object starting with '{', got %q", record.Truncate(string(b), 20))
	}
	if scanFlat(b, &r) {
		return attemptOf(&r)
	}
	r.Reset(line)
	c := newCollector()
	defer c.release()
	isReq, err := decodeObject(b, &r, c)
	switch {
	case err != nil:
		return Attempt{}, false, err
	case isReq:
		return attemptOf(&r)
	case len(c.runs) == 1:
		rm := c.runs[0]
		return Attempt{Record: "run", Experiment: rm.experiment, Run: rm.run, Role: rm.role, HasRole: rm.hasRole}, false, nil
	case len(c.experiments) == 1:
		return Attempt{Record: "experiment", Experiment: c.experiments[0].experiment}, false, nil
	}
	a := Attempt{Record: "event"}
	if c.nEvents == 1 {
		rb := c.events.NewRecordBatch()
		defer rb.Release()
		a.EventType = rb.Column(evType).(*array.String).Value(0)
		if sub := rb.Column(evSubject); sub.IsValid(0) {
			a.Subject = sub.(*array.String).Value(0)
		}
		if t := rb.Column(evTMs); t.IsValid(0) {
			a.TMs, a.HasTMs = t.(*array.Float64).Value(0), true
		}
	}
	return a, false, nil
}

func attemptOf(r *record.Row) (Attempt, bool, error) {
	if !r.Is(record.ColOutcome) && !r.Is(record.ColCount) {
		return Attempt{}, false, record.FieldErr(r.Line, "outcome", "missing")
	}
	// Clone: scanFlat leaves strings pointing into the caller's line buffer.
	a := Attempt{Record: "request", Experiment: strings.Clone(r.Experiment), Run: strings.Clone(r.Run),
		Role: strings.Clone(r.Role), HasRole: r.Is(record.ColRole), Outcome: strings.Clone(r.Outcome), Tagged: r.Tagged, HasTagged: r.Is(record.ColTagged), TMs: r.TMs, HasTMs: r.Is(record.ColTMs),
		LatencyMs: r.Latency, HasLatency: r.Is(record.ColLatency), Status: int64(r.Status), HasStatus: r.Is(record.ColStatus), Count: 1}
	if r.Is(record.ColCount) {
		a.Count = r.Count
	}
	return a, true, nil
}

// eventCol is the index of eventSchema's column name, so that a column
// added or moved there cannot make DecodeLine read the wrong one.
func eventCol(name string) int {
	idx := eventSchema.FieldIndices(name)
	if len(idx) != 1 {
		panic("ingest: eventSchema has no column " + name)
	}
	return idx[0]
}

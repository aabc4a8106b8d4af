package ndjson

import (
	"strings"

	"github.com/rewind-dev/rewind/ingest/record"
)

// DecodeLine decodes one line (1-based number line, used in errors) of a
// canonical NDJSON log (record.LineDecoder). It returns true for a request
// line; for a run record it returns false with Run and Role filled, for
// other records false. Errors are *record.LineError without a file name:
// the caller adds it. A request line must name its outcome unless it gives
// a count, as in an ingest.
func (Format) DecodeLine(b []byte, line int64) (record.Attempt, bool, error) {
	var r record.Row
	r.Reset(line)
	if len(b) == 0 || b[0] != '{' {
		return record.Attempt{}, false, record.LineErr(line, "bad JSON: want an object starting with '{', got %q", record.Truncate(string(b), 20))
	}
	if scanFlat(b, &r) {
		return attemptOf(&r)
	}
	r.Reset(line)
	c := new(collector)
	isReq, err := decodeObject(b, &r, c)
	switch {
	case err != nil:
		return record.Attempt{}, false, err
	case isReq:
		return attemptOf(&r)
	case len(c.runs) == 1:
		rm := c.runs[0]
		return record.Attempt{Record: "run", Experiment: rm.Experiment, Run: rm.Run, Role: rm.Role, HasRole: rm.HasRole}, false, nil
	case len(c.experiments) == 1:
		return record.Attempt{Record: "experiment", Experiment: c.experiments[0].experiment}, false, nil
	}
	a := record.Attempt{Record: "event"}
	if len(c.events) == 1 {
		ev := c.events[0]
		a.EventType, a.Subject = ev.Type, ev.Subject
		if ev.HasTMs {
			a.TMs, a.HasTMs = ev.TMs, true
		}
	}
	return a, false, nil
}

func attemptOf(r *record.Row) (record.Attempt, bool, error) {
	if !r.Is(record.ColOutcome) && !r.Is(record.ColCount) {
		return record.Attempt{}, false, record.FieldErr(r.Line, "outcome", "missing")
	}
	// Clone: scanFlat leaves strings pointing into the caller's line buffer.
	a := record.Attempt{Record: "request", Experiment: strings.Clone(r.Experiment), Run: strings.Clone(r.Run),
		Role: strings.Clone(r.Role), HasRole: r.Is(record.ColRole), Outcome: strings.Clone(r.Outcome), Tagged: r.Tagged, HasTagged: r.Is(record.ColTagged), TMs: r.TMs, HasTMs: r.Is(record.ColTMs),
		LatencyMs: r.Latency, HasLatency: r.Is(record.ColLatency), Status: int64(r.Status), HasStatus: r.Is(record.ColStatus), Count: 1}
	if r.Is(record.ColCount) {
		a.Count = r.Count
	}
	return a, true, nil
}

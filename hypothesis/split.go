package hypothesis

import (
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/store"
)

// Event is a --baseline-until event: a type (action_start), and a subject
// when BySubject (action_start:inject-latency).
type Event struct {
	Type, Subject string
	BySubject     bool
}

// EventAt is what a split at an event reads of an experiment's events:
// the event's first t_ms (NULL when it has none) and, read only then, the
// experiment's distinct types of events with a t_ms, in order, which the
// refusal names.
type EventAt struct {
	At    sql.NullFloat64
	Types []string
}

// EventReader reads an event of experiment exp: from a database's events
// (DBEvent), or where the events are (an engine's reduce step).
type EventReader func(exp string, ev Event) (EventAt, error)

// DBEvent reads the events of db.
func DBEvent(db store.Querier) EventReader {
	return func(exp string, ev Event) (EventAt, error) {
		var out EventAt
		err := db.QueryRow(`SELECT min(t_ms) FROM events WHERE experiment = ? AND type = ? AND (NOT ? OR subject = ?)`,
			exp, ev.Type, ev.BySubject, ev.Subject).Scan(&out.At)
		if err != nil || out.At.Valid {
			return out, err
		}
		out.Types, err = store.QueryStrings(db, `SELECT DISTINCT type FROM events WHERE experiment = ? AND t_ms IS NOT NULL ORDER BY type`, exp)
		return out, err
	}
}

// splitMs reads --baseline-until: a duration from t_ms 0, or the first
// event of a type (action_start), or of a type and subject
// (action_start:inject-latency), in the experiment's events as read reads
// them.
func splitMs(exp, v string, read EventReader) (float64, string, error) {
	if d, err := time.ParseDuration(v); err == nil {
		if d <= 0 {
			return 0, "", param.Errorf("baseline-until", "{baseline-until} %s: want a positive duration or an event", v)
		}
		return float64(d) / float64(time.Millisecond), "t = " + v, nil
	}
	var ev Event
	ev.Type, ev.Subject, ev.BySubject = strings.Cut(v, ":")
	at, err := read(exp, ev)
	if err != nil {
		return 0, "", err
	}
	if at.At.Valid {
		return at.At.Float64, fmt.Sprintf("the first %s (t = %s ms)", v, TrimFloat(at.At.Float64)), nil
	}
	have := "it has no timed events (ingest a Chaos Toolkit journal into the experiment for action_start)"
	if len(at.Types) > 0 {
		have = "its timed event types: " + strings.Join(at.Types, ", ")
	}
	return 0, "", param.Errorf("baseline-until", "{baseline-until} %s: not a duration (2m, 90s) and no such event in experiment %q; %s", v, exp, have)
}

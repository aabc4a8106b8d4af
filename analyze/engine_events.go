package analyze

import (
	"fmt"
	"strings"

	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/store"
)

// eventsCols are the dataset's events as the engine reads them (an empty
// folder has no schema to infer).
const eventsCols = "experiment STRING, run STRING, seq BIGINT, type STRING, t_ms DOUBLE, subject STRING, state STRING, attrs STRING, file_id INT, line BIGINT"

// eventsView makes the dataset's events a view of the engine's session:
// its folder with the columns given, so that a folder without parts reads
// as empty.
func (r *Remote) eventsView() error {
	if _, err := r.run("_remote_events_view", "CREATE OR REPLACE TEMPORARY VIEW events ("+eventsCols+") USING parquet OPTIONS (path "+
		engine.String(strings.TrimRight(r.dataset, "/")+"/events")+")"); err != nil {
		return fmt.Errorf("dataset %s: table events: %w", r.dataset, err)
	}
	return nil
}

// splitEventCols are the columns of _remote_split_event: per type of the
// experiment's events, the first t_ms of the event a split names (NULL in
// every other type's row) and the type's rows with a t_ms.
const splitEventCols = "type VARCHAR, first_t_ms DOUBLE, timed BIGINT"

// splitEvent is hypothesis.DBEvent over the dataset's events: one reduce
// step, a row per event type (_remote_split_event), from which the
// in-memory database reads what the local reader reads: the event's first
// t_ms and, without one, the timed types in DuckDB's order.
func (r *Remote) splitEvent(exp string, ev hypothesis.Event) (hypothesis.EventAt, error) {
	var out hypothesis.EventAt
	if err := r.eventsView(); err != nil {
		return out, err
	}
	if err := r.reduce("_remote_split_event", splitEventCols, splitEventStep(exp, ev)); err != nil {
		return out, err
	}
	q := r.Querier()
	if err := q.QueryRow(`SELECT min(first_t_ms) FROM _remote_split_event`).Scan(&out.At); err != nil || out.At.Valid {
		return out, err
	}
	var err error
	out.Types, err = store.QueryStrings(q, `SELECT type FROM _remote_split_event WHERE timed > 0 ORDER BY type`)
	return out, err
}

// splitEventStep is the Spark SQL of _remote_split_event (splitEventCols)
// for event ev of experiment exp: the local reader's filters (type, and
// subject when named), both engines comparing strings byte for byte.
func splitEventStep(exp string, ev hypothesis.Event) string {
	match := "type = " + engine.String(ev.Type)
	if ev.BySubject {
		match += " AND subject = " + engine.String(ev.Subject)
	}
	return `SELECT type, min(t_ms) FILTER (WHERE ` + match + `) AS first_t_ms, count(t_ms) AS timed
FROM events WHERE experiment = ` + engine.String(exp) + `
GROUP BY type`
}

package main

import (
	"testing"

	"github.com/rewind-dev/rewind/ingest"
)

// One row is "1 row", not "1 rows" (issue 28: plurals right).
func TestIngestedLinePlural(t *testing.T) {
	for _, c := range []struct {
		r    ingest.Result
		want string
	}{
		{ingest.Result{Path: "a.ndjson", Format: "ndjson", Experiment: "e", Rows: 1, Events: 1}, "a.ndjson: ndjson, experiment e: 1 row, 1 event"},
		{ingest.Result{Path: "a.ndjson", Format: "ndjson", Experiment: "e", Rows: 2, Events: 3}, "a.ndjson: ndjson, experiment e: 2 rows, 3 events"},
	} {
		if got := ingestedLine(c.r); got != c.want {
			t.Errorf("ingestedLine = %q, want %q", got, c.want)
		}
	}
}

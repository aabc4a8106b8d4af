package ndjson

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/ingest/record"
)

// TestArrayElementNotObject: an element of a JSON array that is no object
// is named by its place in the array, its line and what it is, not by
// encoding/json's words for the Go type it failed to fill.
func TestArrayElementNotObject(t *testing.T) {
	ok := `{"run":"a","req":1,"outcome":"ok"}`
	for _, c := range []struct{ doc, want string }{
		{"[" + ok + ",\n5]", `:2: element 2 of the array: want a JSON object (one canonical record), got number 5`},
		{"[\n\"a\"]", `:2: element 1 of the array: want a JSON object (one canonical record), got "a"`},
		{"[" + ok + ", " + ok + ",\n\n[1, 2]]", `:3: element 3 of the array: want a JSON object (one canonical record), got array [1, 2]`},
		{"[null]", `:1: element 1 of the array: want a JSON object (one canonical record), got null`},
		{"[true]", `:1: element 1 of the array: want a JSON object (one canonical record), got boolean true`},
	} {
		err := decodeJSONArray([]byte(c.doc), new(collector))(context.Background(), func(rb arrow.RecordBatch) error {
			rb.Release()
			return nil
		})
		var le *record.LineError
		if !errors.As(err, &le) {
			t.Fatalf("%q: got %v, want a line error", c.doc, err)
		}
		if diff := cmp.Diff(c.want, le.Error()); diff != "" {
			t.Errorf("%q (-want +got):\n%s", c.doc, diff)
		}
	}
}

package ingest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDocumentsAnyLayout: every whole-document JSON format reads the same
// rows and events from its real files compacted onto one line and
// pretty-printed over many (only the line numbers differ).
func TestDocumentsAnyLayout(t *testing.T) {
	paths := []string{"../fixtures/chaos/gunluk.json"}
	for _, g := range []string{"testdata/real/har/*/input.har", "testdata/real/otlp/*/input.json", "testdata/real/chaostoolkit/*/input.json"} {
		m, _ := filepath.Glob(g)
		paths = append(paths, m...)
	}
	const rowsSQL = `SELECT concat_ws(',', run, req, coalesce(req_text, ''), ts, latency_ms, outcome, status, attrs) FROM requests ORDER BY seq`
	// Events of one line (all of a compacted file's) have no order but
	// their decoder's: compared as a set.
	const eventsSQL = `SELECT concat_ws(',', type, ts, subject, state, attrs) AS e FROM events ORDER BY e`
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
		var compact, pretty bytes.Buffer
		if json.Compact(&compact, data) != nil || json.Indent(&pretty, data, "", "\t") != nil {
			continue // an NDJSON file (the collector's file exporter): not one document
		}
		var got [2][2][]string
		for i, body := range [][]byte{compact.Bytes(), pretty.Bytes()} {
			db, _ := openDB(t)
			mustIngest(t, db, Options{}, writeFile(t, filepath.Base(p), string(body)))
			got[i] = [2][]string{queryStrings(t, db, rowsSQL), queryStrings(t, db, eventsSQL)}
		}
		if len(got[0][0])+len(got[0][1]) == 0 {
			t.Errorf("%s: nothing read", p)
		}
		if diff := cmp.Diff(got[0], got[1]); diff != "" {
			t.Errorf("%s: one line vs pretty-printed (-compact +pretty):\n%s", p, diff)
		}
	}
}

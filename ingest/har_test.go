package ingest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	harformat "github.com/rewind-dev/rewind/ingest/format/har"
)

// harOf wraps entries (JSON text) in a HAR document, one entry a line
// after the first three lines.
func harOf(entries ...string) string {
	return "{\"log\": {\"version\": \"1.2\",\n\"creator\": {\"name\": \"test\", \"version\": \"1\"},\n\"entries\": [\n" +
		strings.Join(entries, ",\n") + "\n]}}\n"
}

const harEntry = `{"startedDateTime": "2026-01-02T15:04:05.123+01:00", "time": %s, "request": {"method": "GET", "url": "https://example.com/"},` +
	` "response": {"status": %s, "_error": %s}, "timings": {"blocked": -1, "dns": -1, "wait": 12.5, "receive": 0.25}}`

func harEntryWith(time, status, errText string) string {
	return fmt.Sprintf(harEntry, time, status, errText)
}

// What no real file in testdata shows: an aborted request (canceled, even
// with a status), time -1 (unknown), sub-ms time, and the -1 timings left
// out.
func TestHarOutcomes(t *testing.T) {
	db, _ := openDB(t)
	har := harOf(harEntryWith("0.375", "200", `"net::ERR_ABORTED"`), harEntryWith("-1", "0", "null"),
		harEntryWith("12.75", "503", `""`), harEntryWith("1", "0", `"net::ERR_CONNECTION_REFUSED"`))
	res := mustIngest(t, db, Options{}, writeFile(t, "capture.har", har))
	if res[0].Format != harformat.Name {
		t.Fatalf("format %q", res[0].Format)
	}
	got := queryStrings(t, db, `SELECT concat_ws(' ', run, strftime(ts, '%Y-%m-%dT%H:%M:%S.%f'), coalesce(latency_ms::VARCHAR, '-'), status, outcome, line, attrs->'timings')
		FROM requests ORDER BY seq`)
	want := []string{
		`capture 2026-01-02T14:04:05.123000 0.375 200 canceled 4 {"receive":0.25,"wait":12.5}`,
		`capture 2026-01-02T14:04:05.123000 - 0 error 5 {"receive":0.25,"wait":12.5}`,
		`capture 2026-01-02T14:04:05.123000 12.75 503 error 6 {"receive":0.25,"wait":12.5}`,
		`capture 2026-01-02T14:04:05.123000 1.0 0 error 7 {"receive":0.25,"wait":12.5}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	got = queryStrings(t, db, `SELECT params::VARCHAR FROM experiments`)
	if diff := cmp.Diff([]string{`{"har_creator":{"name":"test","version":"1"},"har_version":"1.2"}`}, got); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
	// --ok-status decides a status without _error; _error wins over it.
	db2, _ := openDB(t)
	mustIngest(t, db2, Options{OkStatus: "200-599"}, writeFile(t, "capture.har", har))
	got = queryStrings(t, db2, `SELECT string_agg(outcome, ' ' ORDER BY seq) FROM requests`)
	if diff := cmp.Diff([]string{"canceled error ok error"}, got); diff != "" {
		t.Errorf("outcomes with --ok-status 200-599 (-want +got):\n%s", diff)
	}
}

func TestHarErrors(t *testing.T) {
	ok := harEntryWith("1", "200", "null")
	for name, c := range map[string]struct{ har, want string }{
		"no startedDateTime": {harOf(strings.Replace(ok, `"startedDateTime": "2026-01-02T15:04:05.123+01:00", `, "", 1)),
			`:4: field "startedDateTime": want an RFC 3339 time such as 2026-01-02T15:04:05.123+01:00, got null`},
		"local time": {harOf(strings.Replace(ok, "05.123+01:00", "05.123", 1)),
			`:4: field "startedDateTime": want an RFC 3339 time such as 2026-01-02T15:04:05.123+01:00, got "2026-01-02T15:04:05.123"`},
		"time text":     {harOf(ok, harEntryWith(`"12"`, "200", "null")), `:5: field "time": not a number "12"`},
		"negative time": {harOf(harEntryWith("-3", "200", "null")), `:4: field "time": negative -3`},
		"status text":   {harOf(harEntryWith("1", `"200"`, "null")), `:4: field "response.status": want an integer, got "200"`},
		"status range":  {harOf(harEntryWith("1", "1200", "null")), `:4: field "response.status": out of range 1200 (want 0..999)`},
		"no response": {harOf(`{"startedDateTime": "2026-01-02T15:04:05Z", "time": 1, "request": {}}`),
			`:4: field "response.status": missing`},
		"entry not an object": {harOf(`[1, 2]`), `:4: field "entries": want a JSON object, got an array`},
		"entries not an array": {"{\"log\": {\"creator\": {},\n \"entries\": {}}}",
			`:2: field "entries": want a JSON array`},
		"truncated":     {harOf(ok)[:120], `: bad JSON: unexpected end of file (truncated?)`},
		"after the end": {harOf(ok) + `{"log": {}}`, `: bad JSON: unexpected data after the end of the document`},
		"bad page": {"{\"log\": {\"creator\": {},\n\"pages\": [{\"id\": 1, \"startedDateTime\": \"2026-01-02T15:04:05Z\"}], \"entries\": []}}",
			`:2: field "id": want the page's id, a string, got number 1`},
	} {
		t.Run(name, func(t *testing.T) {
			db, _ := openDB(t)
			before := snapshot(t, db)
			path := writeFile(t, "capture.har", c.har)
			_, err := Files(context.Background(), db, Options{From: harformat.Name}, []string{path})
			if err == nil || !strings.HasPrefix(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v\nwant %q after the path", err, c.want)
			}
			if snapshot(t, db) != before {
				t.Error("a failed ingest changed the database")
			}
		})
	}
}

func TestHarDetect(t *testing.T) {
	for name, c := range map[string]struct {
		head string
		har  bool
	}{
		"HAR":                  {`{"log": {"version": "1.2", "creator": {"name": "WebInspector"}, "entries": []}}`, true},
		"HAR with a BOM":       {"\xef\xbb\xbf{\n  \"log\": {\n    \"version\": \"1.2\",\n    \"creator\": {}", true},
		"log is not first":     {`{"run": "a", "log": {"entries": []}}`, false},
		"a log record":         {`{"log": "GET / 200"}` + "\n" + `{"log": "GET /a 404"}`, false},
		"a canonical NDJSON":   {`{"run":"a","req":1,"outcome":"ok"}`, false},
		"an array of HAR logs": {`[{"log": {"entries": []}}]`, false},
	} {
		got, _ := Detect("x.json", []byte(c.head))
		if (got == harformat.Name) != c.har {
			t.Errorf("%s: detected as %q", name, got)
		}
	}
}

func FuzzHar(f *testing.F) { fuzzFormat(f, harformat.Name, "testdata/real/har/*/input*") }

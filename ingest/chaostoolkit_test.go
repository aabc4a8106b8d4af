package ingest

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/ingest/format/chaostoolkit"
)

func FuzzChaosToolkit(f *testing.F) {
	fuzzFormat(f, chaostoolkit.Name, "testdata/real/chaostoolkit/*/input*")
}

const ctkJournalFixture = "testdata/real/chaostoolkit/redis-stop-completed/input.json"

func TestChaostoolkitDetect(t *testing.T) {
	cases := []struct {
		head string
		want bool
	}{
		{`{"chaoslib-version": "1.44.0", "platform": "Linux"}`, true},
		{`{"experiment": {"title": "x"}, "start": "2024", "run": [`, true},
		{`{"experiment": {"title": "x"}, "steady_states": {"before": null}}`, true},
		{`{"experiment":"e1","run":"a","req":1,"outcome":"ok"}`, false}, // a canonical record
		{`{"experiment": {"title": "x"}}`, false},                       // an experiment definition, not a journal
		{`[{"chaoslib-version": "1"}]`, false},
	}
	for _, c := range cases {
		if got := (chaostoolkit.Format{}).Detect("journal.json", []byte(c.head)); got != c.want {
			t.Errorf("detectChaostoolkit(%q) = %v, want %v", c.head, got, c.want)
		}
	}
}

// A journal alone loads events and experiment parameters, no requests.
func TestChaostoolkitParams(t *testing.T) {
	db, _ := openDB(t)
	res := mustIngest(t, db, Options{}, ctkJournalFixture)
	if res[0].Rows != 0 || res[0].Events != 12 {
		t.Errorf("rows %d, events %d: want 0 and 12", res[0].Rows, res[0].Events)
	}
	got := queryStrings(t, db, `SELECT params::VARCHAR FROM experiments`)
	want := `{"chaostoolkit":{"chaoslib_version":"1.44.0","description":"Simula indisponibilidade do Redis e observa se o sistema continua funcional.",` +
		`"deviated":false,"duration":1.1652209758758545,"end":"2025-04-26T00:12:47.199491+00:00","node":"Lfmpaes-PC","platform":"Linux-5.15.167.4-microsoft-standard-WSL2-x86_64-with-glibc2.39",` +
		`"start":"2025-04-26T00:12:46.036684+00:00","status":"completed","steady_state_met":{"after":true,"before":true},"tags":["redis","chaos","docker"],` +
		`"title":"Teste simples de falha no Redis","version":"1.0.0"}}`
	if diff := cmp.Diff([]string{want}, got); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
}

// Ingested into the experiment of a load log, the method's actions give the
// fault window on the requests' time axis.
func TestChaostoolkitFaultWindow(t *testing.T) {
	db, _ := openDB(t)
	load := writeFile(t, "load.ndjson", `{"ts":"2025-04-26T00:12:45.000Z","outcome":"ok","latency_ms":3}
{"ts":"2025-04-26T00:12:46.500Z","outcome":"error","latency_ms":3000}
`)
	mustIngest(t, db, Options{Experiment: "redis"}, load, ctkJournalFixture)
	got := queryStrings(t, db, `SELECT min(t_ms) FILTER (WHERE type = 'action_start') || '..' || max(t_ms) FILTER (WHERE type = 'action_end')
		|| ' ' || count(DISTINCT experiment) FROM events WHERE attrs->>'phase' = 'method'`)
	// the first request (00:12:45.000) is t_ms 0; the actions ran from .074813 to 47.130052
	if diff := cmp.Diff([]string{"1074.813..2130.052 1"}, got); diff != "" {
		t.Errorf("fault window (-want +got):\n%s", diff)
	}
	inWindow := queryStrings(t, db, `SELECT count(*) FROM requests r, (SELECT min(ts) FILTER (WHERE type = 'action_start') s,
		max(ts) FILTER (WHERE type = 'action_end') e FROM events WHERE attrs->>'phase' = 'method') w WHERE r.ts BETWEEN w.s AND w.e`)
	if inWindow[0] != "1" {
		t.Errorf("requests in the fault window: %s, want 1", inWindow[0])
	}
}

func TestChaostoolkitErrors(t *testing.T) {
	cases := map[string]struct{ in, want string }{
		"bad-start": {"{\"chaoslib-version\": \"1.9.0\",\n\"run\": [{\"activity\": {\"type\": \"action\", \"name\": \"a\"},\n\"start\": \"yesterday\"}]}",
			`:3: field "start": want an ISO 8601 time such as 2024-05-01T10:00:00.123456, got "yesterday"`},
		"numeric-end": {"{\"chaoslib-version\": \"1.9.0\",\n\"end\": 12}",
			`:2: field "end": want an ISO 8601 time such as 2024-05-01T10:00:00.123456, got number 12`},
		"activity-not-object": {"{\"chaoslib-version\": \"1.9.0\",\n\"rollbacks\": [{\"activity\": \"stop\"}]}",
			`:2: field "activity": want an object, got "stop"`},
		"run-not-array": {"{\"chaoslib-version\": \"1.9.0\",\n\"run\": {}}", `:2: field "run": want an array, got object {}`},
		"truncated": {"{\"chaoslib-version\": \"1.9.0\",\n\"run\": [\n" + `{"activity": {}` + "\n",
			`:4: bad JSON: unexpected end of file (truncated?)`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			db, _ := openDB(t)
			mustIngest(t, db, Options{}, chaosFixture)
			before := snapshot(t, db)
			path := writeFile(t, "journal.json", c.in)
			_, err := Files(context.Background(), db, Options{}, []string{path})
			if err == nil || !strings.HasPrefix(err.Error(), path+c.want) {
				t.Errorf("error %v, want %s%s", err, path, c.want)
			}
			if snapshot(t, db) != before {
				t.Error("a failed ingest changed the database")
			}
		})
	}
}

// Old journals write times without a zone: they are UTC.
func TestChaostoolkitNaiveTimesAreUTC(t *testing.T) {
	db, _ := openDB(t)
	mustIngest(t, db, Options{}, writeFile(t, "j.json", `{"chaoslib-version":"1.9.0","start":"2020-06-05T09:13:58.085110",
"run":[{"activity":{"type":"probe","name":"p"},"status":"succeeded","start":"2020-06-05T09:13:58.5","end":null}],"end":"2020-06-05T10:13:58+01:00"}`))
	got := queryStrings(t, db, `SELECT type || ' ' || coalesce(strftime(ts, '%H:%M:%S.%f'), '-') FROM events ORDER BY line, type`)
	want := []string{"experiment_start 09:13:58.085110", "experiment_end 09:13:58.000000", "probe_end -", "probe_start 09:13:58.500000"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

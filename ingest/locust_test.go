package ingest

import (
	"context"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/locust"

	"github.com/google/go-cmp/cmp"
)

const locustHeader = "Timestamp,User Count,Type,Name,Requests/s,Failures/s,50%,100%,Total Request Count,Total Failure Count," +
	"Total Median Response Time,Total Average Response Time,Total Min Response Time,Total Max Response Time,Total Average Content Size\n"

// The counts of each endpoint add up to its last cumulative totals: no
// request is lost or counted twice (the Aggregated rows are not loaded).
func TestLocustCountsAddUp(t *testing.T) {
	db, _ := openDB(t)
	mustIngest(t, db, Options{}, "testdata/real/locust/full-history/input.csv")
	got := queryStrings(t, db, `SELECT concat_ws(' ', sum(count), sum(count) FILTER (WHERE outcome = 'error'), count(DISTINCT attrs->>'name')) FROM requests`)
	// The file's last Aggregated row: 225 requests, 50 failures, of 16 endpoints.
	if diff := cmp.Diff([]string{"225 50 16"}, got); diff != "" {
		t.Errorf("sum of counts, failures, endpoints (-want +got):\n%s", diff)
	}
	got = queryStrings(t, db, `SELECT DISTINCT attrs->>'name' FROM requests WHERE attrs->>'name' = 'Aggregated'`)
	if len(got) != 0 {
		t.Errorf("Aggregated rows loaded beside the endpoint rows: %v", got)
	}
	res := mustIngest(t, db, Options{}, "testdata/real/locust/aggregated-windows-crlf/input.csv")
	if res[0].ResolutionMs != 1000 {
		t.Errorf("resolution %v ms, want 1000", res[0].ResolutionMs)
	}
}

// Totals that go down are Locust's --reset-stats: the row counts its own
// total and an event marks the reset.
func TestLocustReset(t *testing.T) {
	db, _ := openDB(t)
	csv := locustHeader +
		"1700000000,10,GET,/a,1.0,0.0,10,20,100,5,10,11.5,1,20,512\n" +
		"1700000001,10,GET,/a,1.0,0.0,10,20,130,5,10,11.5,1,20,512\n" +
		"1700000001,10,,Aggregated,1.0,0.0,10,20,130,5,10,11.5,1,20,512\n" +
		"1700000002,10,GET,/a,1.0,0.0,N/A,N/A,7,1,10,11.5,1,20,512\n" +
		"1700000002,10,,Aggregated,1.0,0.0,N/A,N/A,7,1,10,11.5,1,20,512\n"
	mustIngest(t, db, Options{}, writeFile(t, "run_stats_history.csv", csv))
	got := queryStrings(t, db, `SELECT concat_ws(' ', run, epoch(ts)::BIGINT, outcome, count, attrs->>'method', attrs->'percentiles_ms') FROM requests ORDER BY seq`)
	want := []string{
		`run_stats_history 1700000000 ok 95 GET {"50%":10,"100%":20}`,
		`run_stats_history 1700000000 error 5 GET {"50%":10,"100%":20}`,
		`run_stats_history 1700000001 ok 30 GET {"50%":10,"100%":20}`,
		`run_stats_history 1700000002 ok 6 GET`,
		`run_stats_history 1700000002 error 1 GET`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	got = queryStrings(t, db, `SELECT concat_ws(' ', type, subject, state, line) FROM events ORDER BY seq`)
	want = []string{"locust.users 10 2", "locust.aggregated 4", "locust.reset /a 5", "locust.aggregated 6"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// Locust 0.13-0.14 wrote other column names (and "None" as the
// Aggregated row's Type).
func TestLocustOldHeader(t *testing.T) {
	db, _ := openDB(t)
	csv := `"Type","Name","Timestamp","# requests","# failures","Requests/s","Requests Failed/s","Median response time",` +
		`"Average response time","Min response time","Max response time","Average Content Size","50%","99.999","100%"` + "\n" +
		`"None","Aggregated","1580000000",0,0,0.00,0.00,0,0,0,0,0.00,"N/A","N/A","N/A"` + "\n" +
		`"None","Aggregated","1580000002",12,2,6.00,1.00,40,42,30,90,100.00,40,90,90` + "\n"
	path := writeFile(t, "old_stats_history.csv", csv)
	if res := mustIngest(t, db, Options{}, path); res[0].Format != locust.Name {
		t.Fatalf("format %q", res[0].Format)
	}
	got := queryStrings(t, db, `SELECT concat_ws(' ', outcome, count, attrs::VARCHAR) FROM requests ORDER BY seq`)
	attrs := `{"failures_per_s":1,"method":"None","name":"Aggregated","percentiles_ms":{"50%":40,"99.999":90,"100%":90},` +
		`"requests_per_s":6,"total_avg_content_size":100,"total_avg_ms":42,"total_failures":2,"total_max_ms":90,"total_median_ms":40,"total_min_ms":30,"total_requests":12}`
	if diff := cmp.Diff([]string{"ok 10 " + attrs, "error 2 " + attrs}, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

func TestLocustErrors(t *testing.T) {
	row := func(ts, name, total, fails string) string {
		return ts + ",10,GET," + name + ",1.0,0.0,10,20," + total + "," + fails + ",10,11.5,1,20,512\n"
	}
	for name, c := range map[string]struct{ csv, want string }{
		"timestamp": {locustHeader + row("17e8", "/a", "1", "0"), `:2: field "Timestamp": want Unix seconds, got "17e8"`},
		"count":     {locustHeader + row("1700000000", "/a", "-1", "0"), `:2: field "Total Request Count": want a count of requests, got "-1"`},
		"failures beyond requests": {locustHeader + row("1700000000", "/a", "3", "0") + row("1700000001", "/a", "4", "2"),
			`:3: field "Total Failure Count": grew by 2, more than the 1 requests (Total Request Count) counted since the previous row of "/a"`},
		"percentile": {locustHeader + "1700000000,10,GET,/a,1.0,0.0,fast,20,1,0,10,11.5,1,20,512\n", `:2: field "50%": not a number "fast"`},
		"users":      {locustHeader + "1700000000,ten,GET,/a,1.0,0.0,10,20,1,0,10,11.5,1,20,512\n", `:2: field "User Count": not an integer "ten"`},
		"mixed": {locustHeader + "1700000000,10,,Aggregated,1.0,0.0,10,20,5,0,10,11.5,1,20,512\n" + row("1700000001", "/a", "5", "0"),
			`:3: field "Name": endpoint row "/a" after Aggregated rows that counted requests`},
		"short row": {locustHeader + "1700000000,10,GET\n", `:2: bad CSV: wrong number of fields`},
	} {
		t.Run(name, func(t *testing.T) {
			db, _ := openDB(t)
			before := snapshot(t, db)
			path := writeFile(t, "x_stats_history.csv", c.csv)
			_, err := Files(context.Background(), db, Options{}, []string{path})
			if err == nil || !strings.HasPrefix(err.Error(), path+c.want) {
				t.Fatalf("error %v\nwant it to start %q", err, path+c.want)
			}
			if snapshot(t, db) != before {
				t.Error("a failed ingest changed the database")
			}
		})
	}
}

func TestLocustDetect(t *testing.T) {
	if got, _ := Detect("x.csv", []byte(locustHeader)); got != locust.Name {
		t.Errorf("history header detected as %q", got)
	}
	// Locust's other CSVs are not the history.
	stats := "Type,Name,Request Count,Failure Count,Median Response Time,Average Response Time,Requests/s,Failures/s\n"
	if got, _ := Detect("x_stats.csv", []byte(stats)); got == locust.Name {
		t.Error("a _stats.csv detected as the history")
	}
}

func FuzzLocust(f *testing.F) { fuzzFormat(f, locust.Name, "testdata/real/locust/*/input*") }

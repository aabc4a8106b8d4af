package ingest

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/gatling"

	"github.com/google/go-cmp/cmp"
)

const gatlingBinary = "testdata/real/gatling/binary-3.12.1-simulation.log"

func TestGatlingDetect(t *testing.T) {
	bin, err := os.ReadFile(gatlingBinary)
	if err != nil {
		t.Fatal(err)
	}
	for name, head := range map[string]string{
		"3.x starts with ASSERTION": "ASSERTION\tAAECAAIFAAAAAAAAAFlA\nRUN\tx\ty\t1\t \t3.4.0\n",
		"3.x starts with RUN":       "RUN\tsim.A\ta\t1611903780943\t \t3.4.0\n",
		"a cut file":                "REQUEST\t\tGoogle\t1611903781377\t1611903781828\tOK\t \n",
		"windows line ends":         "RUN\tsim.A\ta\t1611903780943\t \t3.4.0\r\nUSER\ts\tSTART\t1\r\n",
		"Gatling 2.0":               "org.Sim\tput\tRUN\t1462831084072\t \t2.0\n",
		"binary 3.13+":              string(bin),
	} {
		if got, _ := Detect("simulation.log", []byte(head)); got != gatling.Name {
			t.Errorf("%s: detected as %q", name, got)
		}
	}
	for name, head := range map[string]string{
		"a TSV whose first column is not a record type": "RUNS\tx\n",
		"a binary that is not Gatling's":                "\x00\x00\x00\x00\x06abcdef",
	} {
		if got, _ := Detect("x.log", []byte(head)); got == gatling.Name {
			t.Errorf("%s: detected as gatling", name)
		}
	}
}

// The binary log of Gatling 3.13+ fails with an error that says what to
// do, and leaves the database as it was.
func TestGatlingBinaryRefused(t *testing.T) {
	db, _ := openDB(t)
	mustIngest(t, db, Options{}, chaosFixture)
	before := snapshot(t, db)
	_, err := Files(context.Background(), db, Options{}, []string{gatlingBinary})
	want := gatlingBinary + ": not supported: Gatling 3.13+ writes a binary simulation.log (this one is from Gatling 3.12.1); "
	if err == nil || !strings.HasPrefix(flagged(err), want) || !strings.Contains(flagged(err), "--from csv") {
		t.Fatalf("error %v, want it to start %q and say what to do", err, want)
	}
	if snapshot(t, db) != before {
		t.Error("a refused file changed the database")
	}
}

func TestGatlingErrors(t *testing.T) {
	for name, c := range map[string]struct{ log, want string }{
		"Gatling 2.0": {"org.Sim\tput\tRUN\t1462831084072\t \t2.0\n",
			":1: not supported: a Gatling 2.0/2.1 simulation.log"},
		"start not a number": {"RUN\tsim.A\ta\t1611903780943\t \t3.4.0\nREQUEST\t\tGoogle\t16119x\t1611903781828\tOK\t \n",
			`:2: field "startTimestamp": not an integer "16119x" (want epoch milliseconds)`},
		"end before start": {"REQUEST\t\tGoogle\t1611903781828\t1611903781377\tKO\tboom\n",
			`:1: field "endTimestamp": 1611903781377 is before startTimestamp 1611903781828`},
		"no status": {"REQUEST\t\tGoogle\t1611903781377\t1611903781828\tMAYBE\t \n",
			`:1: field "status": REQUEST record without OK or KO`},
		"negative time": {"REQUEST\t\tGoogle\t-5\t1611903781828\tOK\t \n",
			`:1: field "startTimestamp": out of range -5`},
		"unknown record": {"RUN\tsim.A\ta\t1611903780943\t \t3.4.0\n\nSTATS\tx\n",
			`:3: unknown Gatling record "STATS" (want RUN, ASSERTION, USER, REQUEST, GROUP, ERROR)`},
		"user without event": {"USER\tscn\tBEGIN\t1611903781314\n",
			`:1: field "event": USER record without START or END`},
		"short RUN": {"RUN\tsim.A\t1611903780943\n",
			":1: RUN record with 2 fields"},
		"group status": {"GROUP\tHome page\t1681055599637\t1681055602745\t525\tMEH\n",
			`:1: field "status": want OK or KO, got "MEH"`},
		"error date": {"ERROR\tboom\tyesterday\n",
			`:1: field "date": not an integer "yesterday"`},
	} {
		t.Run(name, func(t *testing.T) {
			db, _ := openDB(t)
			before := snapshot(t, db)
			path := writeFile(t, "simulation.log", c.log)
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

// Records no real file in testdata has: ERROR (3.x, and 2.2's ERROR
// written with the GROUP header), nested groups, and a request whose
// user has no USER record (the run falls back to the simulation).
func TestGatlingGeneratedRecords(t *testing.T) {
	db, _ := openDB(t)
	log := "RUN\tsim.Checkout\tcheckout\t1611903780000\tnightly run\t3.2.1\n" +
		"REQUEST\t7\tBuy,Pay\tcharge card\t1611903781000\t1611903781250\tKO\tstatus.find.in(200), found 502\n" +
		"ERROR\tj.l.IllegalStateException: no\tsession\t1611903781300\n" +
		"GROUP\tboom\t1611903781400\n"
	res := mustIngest(t, db, Options{}, writeFile(t, "simulation.log", log))
	if res[0].Format != gatling.Name {
		t.Fatalf("format %q", res[0].Format)
	}
	got := queryStrings(t, db, `SELECT concat_ws(' ', run, user_id, outcome, latency_ms, attrs::VARCHAR) FROM requests`)
	want := []string{`sim.Checkout 7 error 250.0 {"groups":["Buy","Pay"],"message":"status.find.in(200), found 502","name":"charge card"}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	got = queryStrings(t, db, `SELECT concat_ws(' ', type, t_ms, attrs::VARCHAR) FROM events ORDER BY line`)
	want = []string{"gatling.run -1000.0", `gatling.error 300.0 {"message":"j.l.IllegalStateException: no\tsession"}`,
		`gatling.error 400.0 {"message":"boom"}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	got = queryStrings(t, db, `SELECT params::VARCHAR FROM experiments`)
	want = []string{`{"gatling_version":"3.2.1","run_description":"nightly run","simulation":"sim.Checkout","simulation_id":"checkout","start":"2021-01-29T07:03:00Z"}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
}

// A cut 3.4+ file without its RUN record: the file is the run.
func TestGatlingNoRunRecord(t *testing.T) {
	db, _ := openDB(t)
	mustIngest(t, db, Options{}, writeFile(t, "tail.log", "REQUEST\t\tGoogle\t1611903781377\t1611903781828\tOK\t \n"))
	if got := queryStrings(t, db, `SELECT run || ' ' || latency_ms FROM requests`); !cmp.Equal(got, []string{"tail 451.0"}) {
		t.Errorf("got %v, want run tail and latency 451 ms", got)
	}
}

func TestGatlingParams(t *testing.T) {
	db, _ := openDB(t)
	mustIngest(t, db, Options{}, "testdata/real/gatling/v3.9-assertions/input.log")
	got := queryStrings(t, db, `SELECT params::VARCHAR FROM experiments`)
	want := []string{`{"assertions":["AAEDAAEFAAAAAAAAwFdAAwAAAAAAAEB/QA==","AAECAAIFAAAAAAAAAFlA","AAEDAAEDAwAAAAAAAMByQA=="],` +
		`"gatling_version":"3.9.5","simulation":"simulations.ComputerDatabaseSimulation","simulation_id":"computerdatabasesimulation","start":"2026-01-07T22:45:34.33Z"}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
	// Gatling logs whole milliseconds.
	if res := mustIngest(t, db, Options{}, "testdata/real/gatling/v3.6-groups/input.log"); res[0].ResolutionMs != 1 {
		t.Errorf("resolution %v ms, want 1", res[0].ResolutionMs)
	}
}

func FuzzGatling(f *testing.F) {
	fuzzFormat(f, gatling.Name, "testdata/real/gatling/*/input*", gatlingBinary)
}

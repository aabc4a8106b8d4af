package ingest

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/ingest/format/caddy"
)

const caddyReal = "testdata/real/caddy/caddy-2.6-reverse-proxy/input.log"

// canonicalRows are the requests' canonical columns, attrs left out.
func canonicalRows(t *testing.T, db *sql.DB) []string {
	t.Helper()
	return queryStrings(t, db, `SELECT concat_ws('|', run, req, t_ms, strftime(ts, '%Y-%m-%dT%H:%M:%S.%fZ'), latency_ms, outcome, status, line)
		FROM requests ORDER BY seq`)
}

// TestMapRawCaddy: a real Caddy log read as canonical NDJSON, with its own
// ts (float seconds, the end; rounded to the µs on its digits as the
// adapter does, from its text: a DOUBLE has too few digits) and duration
// (seconds) mapped, gives the rows
// the caddy adapter gives: a mapped column's source field reaches the
// mapping raw instead of failing the canonical ts decoder.
func TestMapRawCaddy(t *testing.T) {
	data := readInput(t, caddyReal)
	db, _ := openDB(t)
	mustIngest(t, db, Options{From: caddy.Name}, writeBytes(t, t.TempDir(), "input.log", data))
	want := canonicalRows(t, db)

	db2, _ := openDB(t)
	maps := []Mapping{
		{"ts", "make_timestamp(CAST(round((attrs->>'ts')::DECIMAL(24,7) * 1000000) AS BIGINT) - CAST(round(duration::DECIMAL(24,9) * 1000000) AS BIGINT))"},
		{"latency_ms", "(duration::DECIMAL(24,9) * 1000)::DOUBLE"},
	}
	mustIngest(t, db2, Options{From: FormatNDJSON, Run: "input", Maps: maps}, writeBytes(t, t.TempDir(), "input.log", data))
	if diff := cmp.Diff(want, canonicalRows(t, db2)); diff != "" {
		t.Errorf("--from ndjson --map against --from caddy (-want +got):\n%s", diff)
	}
	if n := queryStrings(t, db2, `SELECT count(*) FROM requests WHERE (attrs->>'ts') IS NOT NULL OR (attrs->>'duration') IS NULL`); n[0] != "0" {
		t.Errorf("%s rows keep the raw ts in attrs, or lost duration", n[0])
	}
	if len(want) != 40 {
		t.Errorf("%d rows, want 40", len(want))
	}

	_, err := Files(context.Background(), db2, Options{From: FormatNDJSON, Experiment: "x"}, []string{writeBytes(t, t.TempDir(), "input.log", data)})
	if err == nil || !strings.Contains(err.Error(), `field "ts"`) {
		t.Errorf("unmapped: %v, want the ts field refused", err)
	}
}

// TestMapRawCSV: a CSV whose latency_ms column holds "12ms" is refused as
// it is, and loads with a mapping that reads the raw text.
func TestMapRawCSV(t *testing.T) {
	csv := "run,req,outcome,latency_ms\na,1,ok,12ms\na,2,ok,3.5ms\n"
	db, _ := openDB(t)
	_, err := Files(context.Background(), db, Options{}, []string{writeFile(t, "ms.csv", csv)})
	if err == nil || !strings.Contains(err.Error(), `ms.csv:2: field "latency_ms"`) {
		t.Fatalf("unmapped: %v", err)
	}
	mustIngest(t, db, Options{Maps: []Mapping{{"latency_ms", "CAST(replace(latency_ms, 'ms', '') AS DOUBLE)"}}}, writeFile(t, "ms.csv", csv))
	got := queryStrings(t, db, `SELECT concat_ws('|', req, latency_ms, coalesce(attrs::VARCHAR, 'null')) FROM requests ORDER BY seq`)
	if diff := cmp.Diff([]string{"1|12.0|null", "2|3.5|null"}, got); diff != "" {
		t.Errorf("mapped rows (-want +got):\n%s", diff)
	}
}

// TestMapRunTimeError: a mapping that fails as it is evaluated on one row
// (a cast of a bad value) names that row's file:line and the field, and
// loads nothing.
func TestMapRunTimeError(t *testing.T) {
	var b strings.Builder
	b.WriteString("run,req,outcome,elapsed\n")
	for i := 1; i <= 300; i++ {
		v := "12"
		if i == 217 {
			v = "x12"
		}
		b.WriteString("a," + itoa(int64(i)) + ",ok," + v + "\n")
	}
	db, _ := openDB(t)
	before := snapshot(t, db)
	p := writeFile(t, "cast.csv", b.String())
	_, err := Files(context.Background(), db, Options{Maps: []Mapping{{"latency_ms", "CAST(elapsed AS INTEGER)"}}}, []string{p})
	want := filepath.Join(filepath.Dir(p), "cast.csv") + `:218: field "latency_ms": --map latency_ms=CAST(elapsed AS INTEGER): Conversion Error`
	if err == nil || !strings.HasPrefix(flagged(err), want) {
		t.Errorf("got %v\nwant %s…", err, want)
	}
	if snapshot(t, db) != before {
		t.Error("the database changed")
	}
}

// TestMapRawStatus: a mapped status is read raw, and the outcome derived
// from it after the map; a row it leaves without either is refused.
func TestMapRawStatus(t *testing.T) {
	csv := "run,req,status\na,1,HTTP 200\na,2,HTTP 503\n"
	db, _ := openDB(t)
	mustIngest(t, db, Options{Maps: []Mapping{{"status", "CAST(split_part(status, ' ', 2) AS INTEGER)"}}}, writeFile(t, "st.csv", csv))
	got := queryStrings(t, db, `SELECT concat_ws('|', req, status, outcome) FROM requests ORDER BY seq`)
	if diff := cmp.Diff([]string{"1|200|ok", "2|503|error"}, got); diff != "" {
		t.Errorf("mapped rows (-want +got):\n%s", diff)
	}
	db, _ = openDB(t)
	_, err := Files(context.Background(), db, Options{Maps: []Mapping{{"status", "NULL"}}}, []string{writeFile(t, "st.csv", csv)})
	if err == nil || !strings.Contains(flagged(err), `st.csv:2: field "outcome": missing (and --map status gives no status`) {
		t.Errorf("got %v", err)
	}
}

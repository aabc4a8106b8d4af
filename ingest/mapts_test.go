package ingest

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// --map ts keeps the offset of an RFC 3339 time exactly (DuckDB's own
// cast to TIMESTAMP drops it: every -03:00 row was 3 h early), reads a
// TIMESTAMPTZ as its instant and a time without offset as UTC; --time-is
// end takes the latency off.
func TestMapTsOffset(t *testing.T) {
	lines := `{"time":"2026-12-05T22:01:22.623187042-03:00","duration":5967087,"status":200}
{"time":"2026-12-06T01:01:22.5+00:00","duration":1000000,"status":503}
{"time":"2026-12-06 01:01:22","duration":0,"status":200}
{"time":"2026-12-06T04:31:22.25+0330","duration":2500000,"status":200}
{"time":"2026-12-06T01:01:22Z","duration":7000,"status":200}
`
	path := writeFile(t, "service.log", lines)
	base := []Mapping{{Column: "ts", Expr: "time"}, {Column: "latency_ms", Expr: "duration / 1e6"}, {Column: "status", Expr: "status"}}
	cases := map[string]struct {
		timeIs string
		maps   []Mapping
		want   []string
	}{
		"start": {"", base, []string{"01:01:22.623187", "01:01:22.500000", "01:01:22.000000", "01:01:22.250000", "01:01:22.000000"}},
		"end":   {"end", base, []string{"01:01:22.617220", "01:01:22.499000", "01:01:22.000000", "01:01:22.247500", "01:01:21.999993"}},
		"tstz": {"", []Mapping{{Column: "ts", Expr: "to_timestamp(1796518882.5)"}, {Column: "status", Expr: "status"}},
			[]string{"01:01:22.500000", "01:01:22.500000", "01:01:22.500000", "01:01:22.500000", "01:01:22.500000"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			db, _ := openDB(t)
			mustIngest(t, db, Options{From: FormatNDJSON, Run: "svc", Maps: c.maps, TimeIs: c.timeIs}, path)
			got := queryStrings(t, db, `SELECT strftime(ts, '%H:%M:%S.%f') FROM requests ORDER BY seq`)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestTimeIsErrors(t *testing.T) {
	path := writeFile(t, "service.log", `{"time":"2026-12-06T01:01:22Z","status":200}`+"\n")
	cases := map[string]struct {
		opts Options
		want string
	}{
		"unknown":    {Options{TimeIs: "middle"}, `--time-is "middle": want start or end`},
		"no-ts-map":  {Options{TimeIs: "end", From: FormatNDJSON, Run: "r"}, "--time-is end says what a mapped ts is: give it with --map ts=EXPR"},
		"no-latency": {Options{TimeIs: "end", From: FormatNDJSON, Run: "r", Maps: []Mapping{{Column: "ts", Expr: "time"}, {Column: "status", Expr: "status"}}}, `:1: field "latency_ms": missing: with --time-is end`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			db, _ := openDB(t)
			_, err := Files(context.Background(), db, c.opts, []string{path})
			if err == nil || !strings.Contains(flagged(err), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}

// zap's production encoder is named at detection, and its flags load it
// (a hand-written line in zap's shape: level, ts in float seconds, caller,
// msg, a zap.Duration in float seconds).
func TestZapRefusedAndFollowed(t *testing.T) {
	path := writeFile(t, "api.log", `{"level":"info","ts":1796518882.623187,"caller":"api/main.go:42","msg":"request","path":"/r/0","status":503,"latency":0.005967}`+"\n")
	db, _ := openDB(t)
	_, err := Files(context.Background(), db, Options{}, []string{path})
	want := `this is a Go zap log: each line's ts is when it was written, at the request's end, and latency a Go duration; ` +
		`load it with --from ndjson --map ts='to_timestamp(ts)' --map latency_ms='round(latency * 1000, 6)' --map status=status --time-is end --run api`
	if err == nil || !strings.HasSuffix(flagged(err), want) {
		t.Fatalf("error %v\nwant %s", err, want)
	}
	mustIngest(t, db, followHint(t, flagged(err), nil), path)
	got := queryStrings(t, db, `SELECT strftime(ts, '%H:%M:%S.%f') || ' ' || latency_ms || ' ' || status || ' ' || run || ' ' || outcome FROM requests`)
	if diff := cmp.Diff([]string{"01:01:22.617220 5.967 503 api error"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Files that hold no requests are refused by name: Fortio's result (and
// Nighthawk's fortio output), Nighthawk's service response, the OTel Go
// SDK's stdouttrace spans, a slog log without durations.
func TestServiceRefusals(t *testing.T) {
	cases := map[string]struct{ in, want string }{
		"fortio":           {`{"RunType":"HTTP","Labels":"","StartTime":"2024-05-01T10:00:00Z","RequestedQPS":"100","ActualQPS":99.9,"DurationHistogram":{"Count":10},"RetCodes":{"200":10}}`, "this is a Fortio-format result"},
		"nighthawk":        {`{"output":{"timestamp":"2024-05-01T10:00:00Z","options":{"uri":"http://x/"},"results":[{"name":"global","statistics":[]}]}}`, "this is a Nighthawk output"},
		"stdouttrace":      {`{"Name":"GET /","SpanContext":{"TraceID":"0af7651916cd43dd8448eb211c80319c","SpanID":"b7ad6b7169203331"},"SpanKind":2,"StartTime":"2024-05-01T10:00:00Z","EndTime":"2024-05-01T10:00:00.1Z"}`, "this is the OpenTelemetry Go SDK's stdouttrace output"},
		"slog-no-duration": {`{"time":"2026-12-06T01:01:22Z","level":"INFO","msg":"hello"}`, "this is a Go log/slog log (JSON lines, its time written when each line is): its lines carry no duration"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			db, _ := openDB(t)
			_, err := Files(context.Background(), db, Options{}, []string{writeFile(t, "out.json", c.in+"\n")})
			if err == nil || !strings.Contains(flagged(err), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}

package ingest

import (
	"bytes"

	"github.com/rewind-dev/rewind/ingest/record"
	"github.com/rewind-dev/rewind/internal/param"
)

// A refusal is a kind of file that tools write beside their per-request
// results but that holds none itself: end-of-test aggregates, per-endpoint
// totals, a binary mangled by a text re-encoding. Detection names it and
// says what to load instead, rather than reading it as something else or
// failing on its first field. Refusals are checked before the formats and
// only when the format is detected: --from (with --map) can still read one.
type refusal struct {
	detect func(head []byte) bool
	msg    string // rewind's own parameters written {name} (param.Errorf's rule)
}

var refusals = []refusal{
	{isK6SummaryExport, "this is a k6 summary export (end-of-test aggregates, k6 run --summary-export); " +
		"rewind needs per-request results: k6 run --out json=FILE (or --out csv=FILE)"},
	{isK6HandleSummary, "this is a k6 handleSummary JSON (end-of-test summary data); " +
		"rewind needs per-request results: k6 run --out json=FILE (or --out csv=FILE)"},
	{isArtillery1Report, "this is an Artillery 1.x report (artillery run --output: per-period aggregates; " +
		"its intermediate[].latencies, [time, id, ns, code] per request, are not read by rewind); " +
		"log each response from a processor's afterResponse hook as NDJSON and load it with {from} ndjson"},
	{isArtillery2Report, "this is an Artillery report (artillery run --output: per-period counters and latency summaries); " +
		"rewind needs per-request results, which Artillery does not write: log each response from a processor's " +
		"afterResponse hook as NDJSON and load it with {from} ndjson (or {map})"},
	{func(h []byte) bool { return isNighthawkOutput(h) || isNighthawkWrapped(h) }, "this is a Nighthawk output (nighthawk_client --output-format json: latency histograms and counters); " +
		"rewind needs per-request results, which Nighthawk does not write: load the target's access log instead " +
		"(Envoy's JSON access log: {from} access)"},
	{isFortioResult, "this is a Fortio-format result (fortio load -json, or nighthawk_client --output-format fortio: a latency histogram and counts); " +
		"rewind needs per-request results, which neither writes: load the target's access log instead"},
	{isStdouttrace, "this is the OpenTelemetry Go SDK's stdouttrace output (spans printed as Go structs); " +
		"rewind reads spans as OTLP: export them with otlptracehttp or otlptracegrpc to a collector whose file exporter writes OTLP/JSON, and load that ({from} otlp)"},
	{csvHeaderIs("Count,Message,Traceback,Nodes"), "this is a Locust *_exceptions.csv (exception counts); " +
		"rewind reads the per-second *_stats_history.csv that locust --csv=PREFIX writes beside it ({from} locust)"},
	{csvHeaderIs("Method,Name,Error,Occurrences"), "this is a Locust *_failures.csv (failure counts per endpoint and error); " +
		"rewind reads the per-second *_stats_history.csv that locust --csv=PREFIX writes beside it ({from} locust)"},
	{isLocustStats, "this is a Locust *_stats.csv (end-of-test totals per endpoint); " +
		"rewind reads the per-second *_stats_history.csv that locust --csv=PREFIX writes beside it ({from} locust)"},
	{isVegetaUTF16, "this is a Vegeta binary results file re-encoded as UTF-16 text (PowerShell's > or Out-File), " +
		"which corrupts it; write it with vegeta attack -output=results.bin, or vegeta encode --to json > results.json in cmd.exe"},
}

// refused names the refusal head matches, if any.
func refused(head []byte) error {
	for _, r := range refusals {
		if r.detect(head) {
			return param.Errorf("from", r.msg)
		}
	}
	return nil
}

// k6's summary export has root_group and metrics; the handleSummary data
// adds options and state (k6 >= 0.30).
func isK6SummaryExport(head []byte) bool {
	k := record.TopKeys(head)
	return k["root_group"] && k["metrics"] && !k["state"] && !k["options"]
}

func isK6HandleSummary(head []byte) bool {
	k := record.TopKeys(head)
	return (k["root_group"] || k["metrics"]) && k["state"] && bytes.Contains(head, []byte(`"testRunDurationMs"`))
}

// Artillery reports: {"aggregate": ..., "intermediate": [...]}; 1.x
// aggregates count scenariosCreated, 2.x keep counters and summaries.
func isArtilleryReport(head []byte) bool {
	k := record.TopKeys(head)
	return k["aggregate"] && k["intermediate"] || k["aggregate"] && len(k) == 1
}

func isArtillery1Report(head []byte) bool {
	return isArtilleryReport(head) && bytes.Contains(head, []byte(`"scenariosCreated"`))
}

func isArtillery2Report(head []byte) bool {
	return isArtilleryReport(head) && bytes.Contains(head, []byte(`"counters"`))
}

// Nighthawk's output: {"options": ..., "results": [{"name", "statistics",
// "counters"}], ...}.
func isNighthawkOutput(head []byte) bool {
	k := record.TopKeys(head)
	return k["options"] && k["results"] && bytes.Contains(head, []byte(`"statistics"`))
}

// isNighthawkOutput's wrapped form: the nighthawk_service response
// {"output": {"options", "results"}}.
func isNighthawkWrapped(head []byte) bool {
	k := record.TopKeys(head)
	return k["output"] && bytes.Contains(head, []byte(`"results"`)) && bytes.Contains(head, []byte(`"statistics"`)) &&
		bytes.Contains(head, []byte(`"options"`))
}

// Fortio's result JSON (and Nighthawk's fortio output format).
func isFortioResult(head []byte) bool {
	k := record.TopKeys(head)
	return k["DurationHistogram"] && (k["RetCodes"] || k["ActualQPS"])
}

// stdouttrace prints each span as Go's SpanStub: Name, SpanContext,
// Parent, SpanKind, StartTime, EndTime, ….
func isStdouttrace(head []byte) bool {
	k := record.TopKeys(head)
	return k["SpanContext"] && k["StartTime"] && k["EndTime"]
}

func csvHeaderIs(header string) func([]byte) bool {
	return func(head []byte) bool {
		return string(bytes.ReplaceAll(record.FirstLine(head), []byte(`"`), nil)) == header
	}
}

// isLocustStats tells the totals file: Locust 1+ starts it with
// Type,Name,Request Count, 0.x with Method,Name,# requests; the history
// file (read as locust) has a Timestamp first.
func isLocustStats(head []byte) bool {
	line := string(bytes.ReplaceAll(record.FirstLine(head), []byte(`"`), nil))
	for _, p := range []string{"Type,Name,Request Count,Failure Count,", "Method,Name,# requests,# failures,"} {
		if len(line) >= len(p) && line[:len(p)] == p {
			return true
		}
	}
	return false
}

// isVegetaUTF16 tells a Vegeta gob stream turned into UTF-16LE text: a
// byte-order mark, then the gob's type names with a zero after each byte.
func isVegetaUTF16(head []byte) bool {
	if !bytes.HasPrefix(head, []byte{0xff, 0xfe}) {
		return false
	}
	for _, name := range []string{"Attack", "Latency", "Timestamp"} {
		var u []byte
		for i := 0; i < len(name); i++ {
			u = append(u, name[i], 0)
		}
		if !bytes.Contains(head, u) {
			return false
		}
	}
	return true
}

package ingest

import (
	"strings"

	"github.com/rewind-dev/rewind/ingest/record"
	"github.com/rewind-dev/rewind/internal/param"
)

// This file is the adapter contract: the shape a format has (format), the
// table of formats in detection order (formats), and what an adapter may use
// of the rest of the package (listed below, with the small helpers
// themselves at the end of this file).

// A format is one kind of input file: how to recognise it from its first
// bytes (and name), and how to decode it into canonical staging batches.
// Every format has the same shape and lives in its own file; adding one
// touches the formats table below and that file, nothing else.
type format struct {
	name  string // the --from value
	about string // what files it reads, for --help and the README: a param format ({log-format})
	// detect tells from the first bytes of the decompressed content (up to
	// 64 KiB) and the file's name (without a compression extension).
	detect func(name string, head []byte) bool
	// decode returns the producer of the input's staging batches; events
	// and experiment or run parameters go to c.
	decode func(in *input, c *collector) (record.Produce, error)
}

// What an adapter may use. An adapter is one file holding its Format name
// constant, its detect and its decode; of the rest of the package it is
// meant to use the names below (and what they return), and a new format
// should need nothing else. Where a name is not declared in this file, the
// file that declares it is given.
//
// Its input (*input; input.go, limits.go):
//   - in.head: the first headBytes of the decompressed content, to choose
//     an encoding as detect did; in.detectName() the name detection used.
//   - exactly one of in.reader() (streamed; the record cap applies per
//     line), in.all() (the whole content; the document cap applies) or
//     in.readerAt() (random access, for Parquet and Arrow files).
//   - in.unlined() before reading a binary stream whose records are not
//     lines; in.guard.max, the record cap, for a decoder that cuts records
//     itself; in.mapRaw, the fields a --map keeps raw.
//
// What it yields (batch.go, values.go, jsonrec.go):
//   - a produce, built by rows (one *row at a time: r.reset(line), the
//     fields by setField or directly with r.has set, r.is(col)), by wholeDoc
//     or by decodeTypedInput, all below;
//   - values: val and jsonVal to read a JSON value, setField and tsField
//     to set a canonical column from one (values.go); compactObject
//     (jsonrec.go) for an attrs object;
//   - events, experiments and runs on the *collector: c.add(event),
//     c.warnings for what is skipped.
//
// Its errors (errors.go): lineErr(line, ...) and fieldErr(line, field, ...),
// a *LineError without the file name (the ingest adds it); truncate (values.go)
// to quote a bad value.
//
// Shared readers:
//   - lines: newLineReader (lines.go, every line numbered from 1, any
//     length) and textLines (non-blank lines without line end or BOM);
//     headLines and tokens for the text server logs (textlog.go);
//   - JSON documents: newDocReader, subDoc, walkObject, walkArray
//     (jsondoc.go), which keep each value's line;
//   - detection: jsonText, firstLine, firstObject, magic, hasExt (below);
//   - runName (below): the run a file stands for when it names none.

// formats is in detection order: the first whose detect says yes is taken.
// Specific formats come before the generic ones that would also match.
var formats = []format{
	{name: FormatParquet, about: "Apache Parquet", detect: record.Magic("PAR1"), decode: decodeTypedInput(FormatParquet)},
	{name: FormatArrow, about: "Arrow IPC file or stream (.arrow, .feather, .arrows)", detect: detectArrow, decode: decodeTypedInput(FormatArrow)},
	{name: FormatOTLP, about: "OpenTelemetry traces: OTLP/JSON (resourceSpans) or OTLP protobuf", detect: detectOtlp, decode: decodeOtlp},
	{name: FormatJaeger, about: "Jaeger JSON traces: the UI's Download JSON or the query API ({\"data\": [trace]}), or one trace", detect: detectJaeger, decode: decodeJaeger},
	{name: FormatZipkin, about: "Zipkin v2 JSON spans (an array of spans, as /api/v2/trace returns)", detect: detectZipkin, decode: decodeZipkin},
	{name: FormatHAR, about: "HAR 1.2 (browser network export)", detect: detectHar, decode: decodeHar},
	{name: FormatChaosToolkit, about: "Chaos Toolkit journal.json (actions and probes become events)", detect: detectChaostoolkit, decode: decodeChaostoolkit},
	{name: FormatGunluk, about: "the chaos seed's gunluk.json", detect: detectGunluk, decode: wholeDoc(decodeGunluk)},
	{name: FormatK6, about: "k6 run --out json (NDJSON of Metric/Point records)", detect: detectK6, decode: decodeK6},
	{name: FormatVegeta, about: "Vegeta results: binary (vegeta attack), vegeta encode --to json, or its 12-column CSV", detect: detectVegeta, decode: decodeVegeta},
	{name: FormatCaddy, about: "Caddy 2 JSON access log (format json: ts and duration in seconds, request{})", detect: detectCaddy, decode: decodeCaddy},
	{name: FormatEnvoyText, about: "Envoy's default text access log, and Istio's text defaults", detect: detectEnvoyText, decode: decodeEnvoyText},
	{name: FormatTraefik, about: "Traefik's JSON access log", detect: detectTraefik, decode: decodeTraefik},
	{name: FormatGCPLB, about: "Google Cloud HTTP(S) Load Balancer request logs (LogEntry NDJSON or a gcloud JSON array)", detect: detectGCPLB, decode: decodeGCPLB},
	{name: FormatAccess, about: "JSON access logs (Envoy default JSON, nginx log_format escape=json)", detect: detectAccess, decode: decodeAccess},
	{name: FormatSquid, about: "Squid's native access log (logformat squid)", detect: detectSquidFormat(FormatSquid), decode: decodeSquidFormat(FormatSquid)},
	{name: FormatTrafficServer, about: "Apache Traffic Server's squid-format access log", detect: detectSquidFormat(FormatTrafficServer), decode: decodeSquidFormat(FormatTrafficServer)},
	{name: FormatCLF, about: "text access logs: NCSA common, combined, vhost_combined (nginx, Apache, Traefik) with their timing fields, or any layout given with {log-format}", detect: detectCLF, decode: decodeCLF("", "")},
	{name: FormatJSON, about: "a JSON array of canonical records", detect: detectJSONArray, decode: wholeDoc(decodeJSONArray)},
	{name: FormatNDJSON, about: "canonical NDJSON, one record per line (.ndjson, .jsonl)", detect: detectNDJSON, decode: decodeNDJSONInput},
	{name: FormatK6CSV, about: "k6 run --out csv", detect: detectK6csv, decode: decodeK6csv},
	{name: FormatJMeter, about: "JMeter .jtl results, CSV with a header or XML", detect: detectJmeter, decode: decodeJmeter},
	{name: FormatLocust, about: "Locust *_stats_history.csv (pre-binned per-second counts)", detect: detectLocust, decode: decodeLocust},
	{name: FormatGatling, about: "Gatling 3.x text simulation.log", detect: detectGatling, decode: decodeGatling},
	{name: FormatAB, about: "Apache Bench ab -g FILE (per-request TSV)", detect: detectAB, decode: decodeAB},
	{name: FormatAWSALB, about: "AWS Application Load Balancer access logs", detect: detectAWSALB, decode: decodeAWSALB},
	{name: FormatAWSELB, about: "AWS Classic Load Balancer access logs", detect: detectAWSELB, decode: decodeAWSELB},
	{name: FormatCloudFront, about: "Amazon CloudFront standard access logs (W3C, tab-separated)", detect: detectCloudFront, decode: decodeCloudFront},
	{name: FormatHAProxy, about: "HAProxy option httplog lines, raw or behind an RFC 3164/5424 syslog prefix", detect: detectHaproxy, decode: decodeHaproxy},
	{name: FormatCSV, about: "CSV with a header row of canonical column names", detect: detectCSV, decode: decodeCSVInput},
}

// Formats lists the accepted --from values, in detection order.
var Formats = func() []string {
	out := make([]string, len(formats))
	for i, f := range formats {
		out[i] = f.name
	}
	return out
}()

// FormatTable lists each format with what it reads, in detection order,
// a parameter it names written as name says.
func FormatTable(name func(param string) string) [][2]string {
	out := make([][2]string, len(formats))
	for i, f := range formats {
		out[i] = [2]string{f.name, param.Textf(f.about).Say(name)}
	}
	return out
}

func formatNamed(name string) (format, bool) {
	for _, f := range formats {
		if f.name == name {
			return f, true
		}
	}
	return format{}, false
}

// Detect names the format of a file from its first bytes and its name.
func Detect(path string, head []byte) (string, error) {
	f, err := detectFormat(path, head)
	return f.name, err
}

func detectFormat(path string, head []byte) (format, error) {
	if err := refused(head); err != nil {
		return format{}, err
	}
	if err := serviceLogRefusal(path, head); err != nil {
		return format{}, err
	}
	for _, f := range formats {
		if f.detect(path, head) {
			return f, nil
		}
	}
	return format{}, param.Errorf("from", "unknown format (want one of %s; name it with {from})", strings.Join(Formats, ", "))
}

// wholeDoc adapts a decoder of a whole in-memory document.
func wholeDoc(dec func(data []byte, c *collector) record.Produce) func(*input, *collector) (record.Produce, error) {
	return func(in *input, c *collector) (record.Produce, error) {
		data, err := in.all()
		if err != nil {
			return nil, err
		}
		return dec(data, c), nil
	}
}

func decodeTypedInput(kind string) func(*input, *collector) (record.Produce, error) {
	return func(in *input, c *collector) (record.Produce, error) {
		ra, size, err := in.readerAt()
		if err != nil {
			return nil, err
		}
		return decodeTypedSource(ra, size, kind), nil
	}
}

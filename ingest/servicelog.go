package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rewind-dev/rewind/ingest/record"
	"github.com/rewind-dev/rewind/internal/param"
)

// A service's own request log, one JSON object per line, as Go's log/slog
// (JSONHandler: time, level, msg first) and zap (production encoder:
// level, ts, caller, msg) write it, is recognised by those first keys and
// refused with the flags that load it: its time is when the line was
// written, at the request's end, and its fields are the application's.
// The flags are built from the first line's own keys, and work as given.

// jsonKeys lists the keys of the JSON object line holds, in order, with
// each value's first byte.
func jsonKeys(line []byte) (keys []string, first map[string]byte) {
	d := json.NewDecoder(bytes.NewReader(line))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil
	}
	first = map[string]byte{}
	for d.More() {
		tok, err := d.Token()
		k, ok := tok.(string)
		if err != nil || !ok {
			return nil, nil
		}
		var v json.RawMessage
		if d.Decode(&v) != nil || len(v) == 0 {
			return nil, nil
		}
		keys, first[k] = append(keys, k), v[0]
	}
	return keys, first
}

// serviceLog names the logger of a first line ("log/slog", "zap"), "" for
// neither; the SQL that reads its time, and each key's first byte.
func serviceLog(line []byte) (logger, tsExpr string, first map[string]byte) {
	keys, first := jsonKeys(line)
	switch {
	case len(keys) >= 3 && keys[0] == "time" && keys[1] == "level" && keys[2] == "msg" && first["time"] == '"':
		return "log/slog", "time", first
	case len(keys) >= 3 && keys[0] == "level" && keys[1] == "ts" && (first["ts"] >= '0' && first["ts"] <= '9') &&
		(keys[2] == "msg" || keys[2] == "caller" && len(keys) >= 4 && keys[3] == "msg"):
		return "zap", "to_timestamp(ts)", first
	}
	return "", "", nil
}

// durationKeys are the names services give a request's duration, with
// the unit each logger writes a Go time.Duration in: slog an integer of
// ns, zap float seconds.
var durationKeys = []string{"duration", "latency", "elapsed", "took", "duration_ns", "latency_ns"}

// serviceLogRefusal refuses a slog or zap log, naming it, with the flags
// that load it when its first line has a duration; nil for other files.
func serviceLogRefusal(name string, head []byte) error {
	line := record.FirstLine(head)
	logger, tsExpr, first := serviceLog(line)
	if logger == "" {
		return nil
	}
	dur := ""
	for _, k := range durationKeys {
		if c := first[k]; c >= '0' && c <= '9' {
			dur = k
			break
		}
	}
	if dur == "" {
		return param.Errorf("from", "this is a Go %s log (JSON lines, its time written when each line is): "+
			"its lines carry no duration, so a request's start is not known; log the duration "+
			"(slog.Duration or zap.Duration) and load it with {map} and {time-is} end", logger)
	}
	latency := dur + " / 1e6" // slog: integer ns
	if logger == "zap" {
		latency = "round(" + dur + " * 1000, 6)" // zap: float seconds, to the ns
	}
	status := ""
	for _, k := range []string{"status", "status_code", "code"} {
		if c := first[k]; c >= '0' && c <= '9' {
			status = fmt.Sprintf(" {map} status=%s", k)
			break
		}
	}
	run := record.RunName(strings.TrimSuffix(filepath.Base(name), filepath.Ext(name)))
	return param.Errorf("from", "this is a Go %s log: each line's %s is when it was written, at the request's end, and %s a Go duration; "+
		"load it with {from} ndjson {map} ts='%s' {map} latency_ms='%s'"+status+" {time-is} end {run} %s",
		logger, map[string]string{"log/slog": "time", "zap": "ts"}[logger], dur, tsExpr, latency, run)
}

package gatling

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	json "github.com/goccy/go-json"
	"github.com/rewind-dev/rewind/ingest/record"
)

// Name names Gatling's text simulation.log, one tab-separated
// record a line, its type in the first column (Gatling 2.2 to 3.12; the
// layout of each record is in Gatling's LogFileDataWriter). Three layouts
// are told apart by where the OK/KO status sits:
//
//	2.2-2.3  REQUEST scenario userId groups name start end status message [extra...]
//	3.0-3.3  REQUEST userId groups name start end status message
//	3.4-3.12 REQUEST groups name start end status message
//
// One row per REQUEST: ts = start (epoch ms), latency_ms = end - start,
// OK is ok and KO error. The run is the request's scenario: its own column
// (2.x), the scenario of its user's USER record (3.0-3.3), or, since 3.4
// writes no user id, the RUN record's simulation class (the file's name in
// a cut file without a RUN record). USER, GROUP, ERROR
// and RUN records become events; RUN and ASSERTION records the experiment's
// parameters. Gatling 3.13 and later write a binary log, refused with an
// error that says so.
const Name = "gatling"

var gatlingRecordTypes = []string{"RUN", "ASSERTION", "USER", "REQUEST", "GROUP", "ERROR"}

// detectGatling takes a first line that starts with a record type and a
// tab, Gatling 2.0/2.1's RUN line and the binary log of 3.13+ (both to
// refuse them with a clear error).
func detectGatling(_ string, head []byte) bool {
	if gatlingBinaryVersion(head) != "" {
		return true
	}
	line := record.FirstLine(head)
	for _, t := range gatlingRecordTypes {
		if bytes.HasPrefix(line, []byte(t+"\t")) {
			return true
		}
	}
	return isGatling2Run(line)
}

// gatlingBinaryVersion is the Gatling version a binary simulation.log
// (3.13+) starts with: a RUN header byte 0, then the version as a
// big-endian int32 length and its bytes. "" when head is not one.
func gatlingBinaryVersion(head []byte) string {
	if len(head) < 6 || head[0] != 0 {
		return ""
	}
	n := binary.BigEndian.Uint32(head[1:5])
	if n == 0 || n > 32 || uint32(len(head)) < 5+n {
		return ""
	}
	v := head[5 : 5+n]
	if v[0] < '0' || v[0] > '9' {
		return ""
	}
	for _, b := range v {
		if b <= ' ' || b > '~' {
			return ""
		}
	}
	return string(v)
}

// isGatling2Run tells Gatling 2.0/2.1's first line, whose record type is
// the third column: simulation, id, RUN, start, ...
func isGatling2Run(line []byte) bool {
	f := bytes.SplitN(line, []byte("\t"), 5)
	return len(f) >= 4 && string(f[2]) == "RUN" && gatlingDigits(f[3])
}

func gatlingDigits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func decodeGatling(in record.Input, c record.Sink) (record.Produce, error) {
	if v := gatlingBinaryVersion(in.Head()); v != "" {
		return nil, record.LineErr(0, "not supported: Gatling 3.13+ writes a binary simulation.log (this one is from Gatling %s); "+
			"rewind reads the text log of Gatling 2.2 to 3.12. Run the simulation with Gatling 3.12 or earlier, "+
			"or convert this one to CSV with a Gatling log parser (such as gatling-log-parser-cli of github.com/teleivo/gatling), "+
			"keep its request records and load them with {from} csv and {map}", v)
	}
	if isGatling2Run(record.FirstLine(in.Head())) {
		return nil, record.LineErr(1, "not supported: a Gatling 2.0/2.1 simulation.log (record type in the third column); "+
			"rewind reads the text log of Gatling 2.2 to 3.12")
	}
	return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
		g := &gatlingLog{c: c, add: add, file: record.RunName(in.DetectName()), users: map[string]string{}, scenarios: map[string]string{}}
		return g.read(ctx, in.Reader())
	}), nil
}

// gatlingMaxLine bounds a line; Gatling's own lines are far shorter.
const gatlingMaxLine = 16 << 20

// gatlingLog decodes the records of one simulation.log.
type gatlingLog struct {
	c          record.Sink
	add        func(*record.Row) error
	r          record.Row
	fields     [][]byte
	simulation string            // the RUN record's simulation class
	file       string            // the run when a cut file has no RUN record
	users      map[string]string // user id -> scenario (3.0-3.3)
	scenarios  map[string]string // interned scenario names
	params     map[string]json.RawMessage
	assertions []string
}

func (g *gatlingLog) read(ctx context.Context, rd io.Reader) error {
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 0, 64<<10), gatlingMaxLine)
	var line int64
	for sc.Scan() {
		line++
		if line%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		b := bytes.TrimSuffix(sc.Bytes(), []byte("\r"))
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		if err := g.record(line, b); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return record.LineErr(line+1, "line longer than %d MiB: not a Gatling simulation.log?", gatlingMaxLine>>20)
		}
		return err
	}
	g.storeParams()
	return nil
}

// record decodes one line: its type, then the fields after it.
func (g *gatlingLog) record(line int64, b []byte) error {
	g.fields = gatlingSplit(g.fields[:0], b)
	typ, f := string(g.fields[0]), g.fields[1:]
	switch typ {
	case "REQUEST":
		return g.request(line, f)
	case "USER":
		return g.user(line, f)
	case "GROUP":
		return g.group(line, f)
	case "ERROR":
		return g.errorRecord(line, f)
	case "RUN":
		return g.run(line, f)
	case "ASSERTION":
		if len(f) > 0 {
			g.assertions = append(g.assertions, string(bytes.Join(f, []byte("\t"))))
		}
		return nil
	}
	return record.LineErr(line, "unknown Gatling record %q (want %s)", record.Truncate(typ, 20), strings.Join(gatlingRecordTypes, ", "))
}

func gatlingSplit(dst [][]byte, b []byte) [][]byte {
	for {
		i := bytes.IndexByte(b, '\t')
		if i < 0 {
			return append(dst, b)
		}
		dst = append(dst, b[:i])
		b = b[i+1:]
	}
}

func isGatlingStatus(b []byte) bool { return string(b) == "OK" || string(b) == "KO" }

// gatlingRequest is a REQUEST record's fields, whatever its layout.
type gatlingRequest struct {
	scenario, userID, groups, name, start, end, status []byte
	rest                                               [][]byte // message, then 2.x extra info
}

// splitRequest finds the layout from the status column: index 4 (3.4+),
// 5 (3.0-3.3, user id first) or 6 (2.x, scenario and user id first).
func splitRequest(f [][]byte) (gatlingRequest, bool) {
	switch {
	case len(f) >= 5 && isGatlingStatus(f[4]):
		return gatlingRequest{groups: f[0], name: f[1], start: f[2], end: f[3], status: f[4], rest: f[5:]}, true
	case len(f) >= 6 && isGatlingStatus(f[5]):
		return gatlingRequest{userID: f[0], groups: f[1], name: f[2], start: f[3], end: f[4], status: f[5], rest: f[6:]}, true
	case len(f) >= 7 && isGatlingStatus(f[6]):
		return gatlingRequest{scenario: f[0], userID: f[1], groups: f[2], name: f[3], start: f[4], end: f[5], status: f[6], rest: f[7:]}, true
	}
	return gatlingRequest{}, false
}

func (g *gatlingLog) request(line int64, f [][]byte) error {
	q, ok := splitRequest(f)
	if !ok {
		return record.FieldErr(line, "status", "REQUEST record without OK or KO in the column Gatling writes it (want groups, name, start, end, status[, message], after a user id in Gatling 3.0-3.3)")
	}
	start, err := gatlingMillis(line, "startTimestamp", q.start)
	if err != nil {
		return err
	}
	end, err := gatlingMillis(line, "endTimestamp", q.end)
	if err != nil {
		return err
	}
	if end < start {
		return record.FieldErr(line, "endTimestamp", "%d is before startTimestamp %d", end, start)
	}
	r := &g.r
	r.Reset(line)
	r.TsUs, r.Latency = start*1000, float64(end-start)
	r.Set(record.ColTsUs)
	r.Set(record.ColLatency)
	r.Outcome = "ok"
	if string(q.status) == "KO" {
		r.Outcome = "error"
	}
	r.Set(record.ColOutcome)
	scenario := g.intern(q.scenario)
	if len(q.userID) > 0 {
		r.UserID = string(q.userID)
		r.Set(record.ColUserID)
		if scenario == "" {
			scenario = g.users[r.UserID]
		}
	}
	switch {
	case scenario != "":
		r.Group = scenario
	case g.simulation != "":
		r.Group = g.simulation
	default:
		r.Group = g.file
	}
	r.Set(record.ColGroup)
	r.Attrs = gatlingRequestAttrs(q, scenario)
	r.Set(record.ColAttrs)
	return g.add(r)
}

// gatlingMillis parses an epoch-milliseconds column.
func gatlingMillis(line int64, field string, b []byte) (int64, error) {
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0, record.FieldErr(line, field, "not an integer %q (want epoch milliseconds)", record.Truncate(string(b), 40))
	}
	if n < 0 || n > gatlingMaxMillis {
		return 0, record.FieldErr(line, field, "out of range %d (want epoch milliseconds)", n)
	}
	return n, nil
}

// gatlingMaxMillis is the last millisecond of year 9999: later times do
// not fit DuckDB's TIMESTAMP.
const gatlingMaxMillis = 253402300799999

// gatlingRequestAttrs renders a request's attrs, keys in sorted order:
// extra_info (2.x), groups, message, name, scenario.
func gatlingRequestAttrs(q gatlingRequest, scenario string) string {
	b := make([]byte, 0, 64+len(q.name)+len(q.groups))
	b = append(b, '{')
	if len(q.rest) > 1 {
		b = gatlingKey(b, "extra_info")
		b = append(b, '[')
		for i, x := range q.rest[1:] {
			if i > 0 {
				b = append(b, ',')
			}
			b = gatlingQuote(b, x)
		}
		b = append(b, ']')
	}
	if len(q.groups) > 0 {
		b = gatlingKey(b, "groups")
		b = append(b, '[')
		for i, x := range bytes.Split(q.groups, []byte(",")) {
			if i > 0 {
				b = append(b, ',')
			}
			b = gatlingQuote(b, x)
		}
		b = append(b, ']')
	}
	if len(q.rest) > 0 {
		if msg := bytes.TrimSpace(q.rest[0]); len(msg) > 0 {
			b = gatlingQuote(gatlingKey(b, "message"), msg)
		}
	}
	b = gatlingQuote(gatlingKey(b, "name"), q.name)
	if scenario != "" {
		b = gatlingQuote(gatlingKey(b, "scenario"), []byte(scenario))
	}
	return string(append(b, '}'))
}

func gatlingKey(b []byte, k string) []byte {
	if len(b) > 1 {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, k...)
	return append(b, '"', ':')
}

// gatlingQuote appends s as a JSON string.
func gatlingQuote(b, s []byte) []byte {
	q, err := json.Marshal(string(s))
	if err != nil {
		return append(b, `""`...)
	}
	return append(b, q...)
}

// intern keeps one copy of each scenario name, shared by every row.
func (g *gatlingLog) intern(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if s, ok := g.scenarios[string(b)]; ok {
		return s
	}
	s := string(b)
	g.scenarios[s] = s
	return s
}

func isGatlingUserEvent(b []byte) bool { return string(b) == "START" || string(b) == "END" }

// user decodes a USER record: scenario, START|END, timestamp (3.4+), or
// scenario, user id, START|END, user start, timestamp (before 3.4).
func (g *gatlingLog) user(line int64, f [][]byte) error {
	var scenario, id, ev, ts []byte
	switch {
	case len(f) >= 3 && isGatlingUserEvent(f[1]):
		scenario, ev, ts = f[0], f[1], f[2]
	case len(f) >= 4 && isGatlingUserEvent(f[2]):
		scenario, id, ev, ts = f[0], f[1], f[2], f[3]
		if len(f) >= 5 {
			ts = f[4]
		}
	default:
		return record.FieldErr(line, "event", "USER record without START or END (want scenario[, user id], START or END, timestamp)")
	}
	ms, err := gatlingMillis(line, "timestamp", ts)
	if err != nil {
		return err
	}
	s := g.intern(scenario)
	ev2 := record.Event{Line: line, Type: "gatling.user", Subject: s, State: strings.ToLower(string(ev)), TsUs: ms * 1000, HasTs: true}
	if len(id) > 0 {
		if _, ok := g.users[string(id)]; !ok {
			g.users[string(id)] = s
		}
		ev2.Attrs = string(gatlingQuote(gatlingKey([]byte("{"), "user_id"), id)) + "}"
	}
	g.c.Event(ev2)
	return nil
}

// group decodes a GROUP record, a group's timing (start, end, cumulated
// response time, status) after its hierarchy and, before 3.4, the user id
// (and before 3.0 the scenario). Gatling 2.2 also wrote ERROR records
// with the GROUP header: message, date.
func (g *gatlingLog) group(line int64, f [][]byte) error {
	var scenario, id, groups []byte
	switch len(f) {
	case 2:
		return g.errorRecord(line, f)
	case 5:
		groups = f[0]
	case 6:
		id, groups = f[0], f[1]
	case 7:
		scenario, id, groups = f[0], f[1], f[2]
	default:
		return record.LineErr(line, "GROUP record with %d fields (want groups, start, end, cumulated response time, status, after a user id before Gatling 3.4)", len(f))
	}
	t := f[len(f)-4:]
	start, err := gatlingMillis(line, "startTimestamp", t[0])
	if err != nil {
		return err
	}
	end, err := gatlingMillis(line, "endTimestamp", t[1])
	if err != nil {
		return err
	}
	cum, err := strconv.ParseInt(string(t[2]), 10, 64)
	if err != nil {
		return record.FieldErr(line, "cumulatedResponseTime", "not an integer %q", record.Truncate(string(t[2]), 40))
	}
	if !isGatlingStatus(t[3]) {
		return record.FieldErr(line, "status", "want OK or KO, got %q", record.Truncate(string(t[3]), 20))
	}
	attrs := map[string]json.RawMessage{
		"groups":                     gatlingJSONList(bytes.Split(groups, []byte(","))),
		"duration_ms":                json.RawMessage(strconv.FormatInt(end-start, 10)),
		"cumulated_response_time_ms": json.RawMessage(strconv.FormatInt(cum, 10)),
	}
	if len(id) > 0 {
		attrs["user_id"] = gatlingQuote(nil, id)
	}
	if len(scenario) > 0 {
		attrs["scenario"] = gatlingQuote(nil, scenario)
	}
	g.c.Event(record.Event{Line: line, Type: "gatling.group", Subject: string(groups), State: string(t[3]),
		TsUs: start * 1000, HasTs: true, Attrs: record.CompactObject(attrs)})
	return nil
}

func gatlingJSONList(xs [][]byte) json.RawMessage {
	b := []byte{'['}
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = gatlingQuote(b, x)
	}
	return append(b, ']')
}

// errorRecord decodes an ERROR record: a message (not sanitized by Gatling,
// so it may hold tabs), then its epoch-ms date.
func (g *gatlingLog) errorRecord(line int64, f [][]byte) error {
	if len(f) < 2 {
		return record.LineErr(line, "ERROR record without a message and a date")
	}
	ms, err := gatlingMillis(line, "date", f[len(f)-1])
	if err != nil {
		return err
	}
	msg := bytes.Join(f[:len(f)-1], []byte("\t"))
	g.c.Event(record.Event{Line: line, Type: "gatling.error", TsUs: ms * 1000, HasTs: true,
		Attrs: string(gatlingQuote(gatlingKey([]byte("{"), "message"), msg)) + "}"})
	return nil
}

// run decodes the RUN record: simulation class, [2.x user-defined id,]
// simulation id, start, description, Gatling version. The first RUN
// gives the experiment's parameters; every one is an event.
func (g *gatlingLog) run(line int64, f [][]byte) error {
	n := len(f)
	if n < 5 {
		return record.LineErr(line, "RUN record with %d fields (want simulation, simulation id, start, description, Gatling version)", n)
	}
	start, err := gatlingMillis(line, "start", f[n-3])
	if err != nil {
		return err
	}
	g.simulation = string(f[0])
	id := string(f[n-4])
	if n >= 6 && len(f[1]) > 0 {
		id = string(f[1])
	}
	g.c.Event(record.Event{Line: line, Type: "gatling.run", Subject: g.simulation, State: "start", TsUs: start * 1000, HasTs: true})
	if g.params != nil {
		return nil
	}
	g.params = map[string]json.RawMessage{
		"simulation":      gatlingQuote(nil, f[0]),
		"simulation_id":   gatlingQuote(nil, []byte(id)),
		"start":           gatlingQuote(nil, []byte(time.UnixMilli(start).UTC().Format(time.RFC3339Nano))),
		"gatling_version": gatlingQuote(nil, f[n-1]),
	}
	if d := bytes.TrimSpace(f[n-2]); len(d) > 0 && string(d) != "null" {
		g.params["run_description"] = gatlingQuote(nil, d)
	}
	return nil
}

// storeParams gives the experiment the RUN record's facts and the
// assertions (base64 of Gatling's pickled form, kept as written).
func (g *gatlingLog) storeParams() {
	if g.params == nil && len(g.assertions) == 0 {
		return
	}
	p := g.params
	if p == nil {
		p = map[string]json.RawMessage{}
	}
	if len(g.assertions) > 0 {
		xs := make([][]byte, len(g.assertions))
		for i, a := range g.assertions {
			xs[i] = []byte(a)
		}
		p["assertions"] = gatlingJSONList(xs)
	}
	g.c.Experiment(record.CompactObject(p))
}

package jmeter

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rewind-dev/rewind/ingest/record"
	"github.com/rewind-dev/rewind/internal/param"
)

// Name names the JMeter .jtl results, CSV with a header or XML.
const Name = "jmeter"

// A JMeter .jtl file has one sample per CSV row (or <httpSample>/<sample>
// element in XML, sub-samples included, as JMeter writes them to CSV
// too). A row gets ts = timeStamp (epoch ms), latency_ms = elapsed, status
// = responseCode when it is a number 0..999, outcome = success, run group
// = label (the file's name for a sample without one); every other column
// goes to attrs under JMeter's CSV column name, so an XML file's attrs read
// like a CSV file's. Response bodies and headers saved in XML are not kept.

// jmeterNames maps a CSV column name, lower-cased (JMeter's own names, in
// any case), to the name it is known by.
var jmeterNames = func() map[string]string {
	m := map[string]string{}
	for _, n := range []string{"timeStamp", "elapsed", "label", "responseCode", "responseMessage", "threadName",
		"dataType", "success", "failureMessage", "bytes", "sentBytes", "grpThreads", "allThreads", "URL",
		"Latency", "IdleTime", "Connect", "SampleCount", "ErrorCount", "Hostname", "Filename", "Encoding"} {
		m[strings.ToLower(n)] = n
	}
	return m
}()

// jmeterXMLNames maps the attributes of an XML sample to the CSV names.
var jmeterXMLNames = map[string]string{
	"t": "elapsed", "ts": "timeStamp", "s": "success", "lb": "label", "rc": "responseCode",
	"rm": "responseMessage", "tn": "threadName", "dt": "dataType", "by": "bytes", "sby": "sentBytes",
	"lt": "Latency", "ct": "Connect", "it": "IdleTime", "ng": "grpThreads", "na": "allThreads",
	"sc": "SampleCount", "ec": "ErrorCount", "hn": "Hostname", "de": "Encoding",
}

// jmeterCounts are the attrs JMeter writes as integers.
var jmeterCounts = map[string]bool{"bytes": true, "sentBytes": true, "grpThreads": true, "allThreads": true,
	"Latency": true, "IdleTime": true, "Connect": true, "SampleCount": true, "ErrorCount": true}

// detectJmeter tells a jmeter file from its first bytes.
func detectJmeter(name string, head []byte) bool {
	text := record.JSONText(head)
	if len(text) > 0 && text[0] == '<' {
		return bytes.Contains(head, []byte("<testResults"))
	}
	if _, ok := jmeterDelimiter(record.FirstLine(text)); ok {
		return true
	}
	_, _, ok := jmeterHeaderless(record.FirstLine(text))
	return ok
}

// jmeterLayouts are the columns JMeter writes without a header
// (jmeter.save.saveservice.print_field_names=false) with its default save
// settings, in CSVSaveService's fixed order: JMeter 5.0 and later (url=true),
// 3.1 to 4.0 (url=false), 2.13 to 3.0 (no sentBytes yet). They have
// different widths, so the first row's width picks one.
var jmeterLayouts = [][]string{
	strings.Split("timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect", ","),
	strings.Split("timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,Latency,IdleTime,Connect", ","),
	strings.Split("timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,grpThreads,allThreads,Latency,IdleTime,Connect", ","),
}

// jmeterHeaderless tells a first row of a headerless file by its content:
// as wide as a default layout, with epoch ms, elapsed ms and every count
// integers and success true or false where that layout has them.
func jmeterHeaderless(first []byte) (rune, []string, bool) {
	for _, d := range []rune{',', '\t', ';', '|'} {
		cr := csv.NewReader(bytes.NewReader(first))
		cr.Comma = d
		rec, err := cr.Read()
		if err != nil {
			continue
		}
		for _, layout := range jmeterLayouts {
			if len(rec) == len(layout) && jmeterFits(rec, layout) {
				return d, layout, true
			}
		}
	}
	return 0, nil, false
}

func jmeterFits(rec, layout []string) bool {
	for i, name := range layout {
		switch {
		case name == "timeStamp" || name == "elapsed" || jmeterCounts[name]:
			if _, err := strconv.ParseInt(rec[i], 10, 64); err != nil {
				return false
			}
		case name == "success" && rec[i] != "true" && rec[i] != "false":
			return false
		}
	}
	return true
}

// jmeterDelimiter finds the delimiter (JMeter's default_delimiter) that
// splits the header into cells naming timeStamp and elapsed.
func jmeterDelimiter(header []byte) (rune, bool) {
	for _, d := range []rune{',', '\t', ';', '|'} {
		cr := csv.NewReader(bytes.NewReader(header))
		cr.Comma = d
		names, err := cr.Read()
		if err != nil {
			continue
		}
		has := map[string]bool{}
		for _, n := range names {
			has[jmeterColumn(n)] = true
		}
		if has["timeStamp"] && has["elapsed"] {
			return d, true
		}
	}
	return 0, false
}

func jmeterColumn(name string) string {
	name = strings.TrimSpace(strings.TrimPrefix(name, "\ufeff"))
	if n, ok := jmeterNames[strings.ToLower(name)]; ok {
		return n
	}
	return name
}

// decodeJmeter decodes a jmeter file into canonical rows.
func decodeJmeter(in record.Input, c record.Sink) (record.Produce, error) {
	text := record.JSONText(in.Head())
	if len(text) > 0 && text[0] == '<' {
		file := record.RunName(in.DetectName())
		return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
			return jmeterXMLRows(ctx, &markupGuard{r: in.Reader(), max: in.MaxRecord()}, file, add)
		}), nil
	}
	delim, ok := jmeterDelimiter(record.FirstLine(text))
	var layout []string // nil: the file's header names the columns
	if !ok {
		if delim, layout, ok = jmeterHeaderless(record.FirstLine(text)); !ok {
			return nil, record.LineErr(1, "not a JMeter .jtl: want a CSV header naming timeStamp and elapsed, a headerless row in JMeter's default columns (%d, %d or %d of them), or XML <testResults>",
				len(jmeterLayouts[0]), len(jmeterLayouts[1]), len(jmeterLayouts[2]))
		}
	}
	return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
		return jmeterCSVRows(ctx, in.Reader(), in.MaxRecord(), delim, layout, record.RunName(in.DetectName()), add)
	}), nil
}

type jmeterCol struct{ key, src string }

// jmeterCSVRows reads the rows under the file's header, or, given a
// layout, from the first line on.
func jmeterCSVRows(ctx context.Context, rd io.Reader, maxRecord int64, delim rune, layout []string, file string, add func(*record.Row) error) error {
	cr, rc := record.CappedCSV(rd, maxRecord, delim)
	cr.FieldsPerRecord, cr.ReuseRecord = -1, true
	header := layout
	if header == nil {
		var err error
		if header, err = cr.Read(); err != nil {
			return record.CSVErr(cr, err)
		}
	}
	cols := make([]jmeterCol, len(header))
	for i, h := range header {
		cols[i] = jmeterCol{key: jmeterColumn(h), src: strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))}
	}
	src := make([]string, len(cols))
	for i, c := range cols {
		src[i] = c.src
	}
	rc.Header(src) // not header: ReuseRecord, the next Read overwrites it
	var r record.Row
	var kvs []record.AttrPair
	n := 0
	return record.EachRecord(ctx, cr, func(line int64, rec []string) error {
		n++
		if len(rec) != len(cols) {
			if layout != nil {
				return record.LineErr(line, "want %d columns as the first row has (JMeter's default columns, no header), got %d", len(cols), len(rec))
			}
			return record.LineErr(line, "want %d columns as in the header, got %d", len(cols), len(rec))
		}
		r.Reset(line)
		kvs = kvs[:0]
		for i, v := range rec {
			if err := jmeterField(&r, &kvs, cols[i], v); err != nil {
				return err
			}
		}
		return jmeterAdd(ctx, n, &r, kvs, file, add)
	})
}

// jmeterAdd adds a sample; one without a label is in the file's run.
func jmeterAdd(ctx context.Context, n int, r *record.Row, kvs []record.AttrPair, file string, add func(*record.Row) error) error {
	if n%4096 == 0 && ctx.Err() != nil {
		return ctx.Err()
	}
	if !r.Is(record.ColGroup) {
		r.Group = file
		r.Set(record.ColGroup)
	}
	if len(kvs) > 0 {
		r.Attrs = string(record.AppendAttrPairs(nil, kvs))
		r.Set(record.ColAttrs)
	}
	return add(r)
}

// jmeterField sets one value of a sample; an empty value is a missing one.
func jmeterField(r *record.Row, kvs *[]record.AttrPair, col jmeterCol, v string) error {
	if v == "" {
		return nil
	}
	switch col.key {
	case "timeStamp":
		ms, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return record.FieldErr(r.Line, col.src, "want epoch milliseconds (JMeter's default jmeter.save.saveservice.timestamp_format=ms), got %q", record.Truncate(v, 40))
		}
		if ms < -62135596800000 || ms > 253402300799999 {
			return record.FieldErr(r.Line, col.src, "out of range %d (want epoch milliseconds between the years 1 and 9999)", ms)
		}
		r.TsUs = ms * 1000
		r.Set(record.ColTsUs)
	case "elapsed":
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return record.FieldErr(r.Line, col.src, "want milliseconds, got %q", record.Truncate(v, 40))
		}
		r.Latency = f
		r.Set(record.ColLatency)
	case "label":
		r.Group = v
		r.Set(record.ColGroup)
	case "success":
		return jmeterSuccess(r, col.src, v)
	case "responseCode":
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 0 && n <= 999 {
			r.Status = int32(n)
			r.Set(record.ColStatus)
			return nil
		}
		*kvs = append(*kvs, record.AttrPair{Key: col.key, Val: v})
	case "threadName":
		*kvs = append(*kvs, record.AttrPair{Key: col.key, Val: v})
		if g, ok := jmeterThreadGroup(v); ok {
			*kvs = append(*kvs, record.AttrPair{Key: "threadGroup", Val: g})
		}
	default:
		*kvs = append(*kvs, jmeterAttr(col.key, v))
	}
	return nil
}

func jmeterSuccess(r *record.Row, src, v string) error {
	switch {
	case strings.EqualFold(v, "true"):
		r.Outcome = "ok"
	case strings.EqualFold(v, "false"):
		r.Outcome = "error"
	default:
		return record.FieldErr(r.Line, src, "want true or false, got %q", record.Truncate(v, 40))
	}
	r.Set(record.ColOutcome)
	return nil
}

// jmeterAttr keeps counts as JSON numbers, everything else as text.
func jmeterAttr(key, v string) record.AttrPair {
	if jmeterCounts[key] {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return record.AttrPair{Key: key, Val: strconv.FormatInt(n, 10), Raw: true}
		}
	}
	return record.AttrPair{Key: key, Val: v}
}

// jmeterThreadGroup is the thread group of a JMeter thread name, which JMeter
// forms as "<group> <group number>-<thread number>" (with a host prefix in
// distributed runs).
func jmeterThreadGroup(name string) (string, bool) {
	sp := strings.LastIndexByte(name, ' ')
	if sp <= 0 {
		return "", false
	}
	a, b, ok := strings.Cut(name[sp+1:], "-")
	if !ok || !record.DigitsOnly(a) || !record.DigitsOnly(b) {
		return "", false
	}
	return name[:sp], true
}

// jmeterSample is an XML sample element being read.
type jmeterSample struct {
	line  int64
	attrs []xml.Attr
	path  []string          // the non-sample elements open inside it
	kept  []record.AttrPair // text of the child elements kept
	key   string            // the kept child whose text is being read, or ""
	text  strings.Builder
}

// jmeterChildren are the child elements of a sample whose text is kept, by
// the attrs key they go to; bodies and headers are left out.
var jmeterChildren = map[string]string{"java.net.URL": "URL", "method": "method",
	"queryString": "queryString", "redirectLocation": "redirectLocation"}

func jmeterXMLRows(ctx context.Context, rd io.Reader, file string, add func(*record.Row) error) error {
	d := xml.NewDecoder(rd)
	var open []*jmeterSample
	var r record.Row
	closed := false // the root has ended
	for n := 0; ; {
		line, _ := d.InputPos()
		tok, err := d.Token()
		var se *xml.SyntaxError
		if len(open) > 0 && (err == io.EOF || errors.As(err, &se) && se.Msg == "unexpected EOF") {
			return record.LineErr(open[len(open)-1].line, "bad XML: the file ends inside this sample (truncated?)")
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return xmlErr(err, line)
		}
		if closed {
			// As JSON refuses trailing data: what follows the root is no
			// part of the results, and may be a second, half-written file.
			if c, ok := tok.(xml.CharData); ok && len(bytes.TrimSpace(c)) == 0 {
				continue
			}
			if _, ok := tok.(xml.Comment); ok {
				continue
			}
			return record.LineErr(int64(line), "bad XML: content after </testResults>")
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local == "httpSample" || t.Name.Local == "sample" {
				open = append(open, &jmeterSample{line: int64(line), attrs: t.Attr})
			} else if len(open) > 0 {
				open[len(open)-1].start(t.Name.Local)
			}
		case xml.CharData:
			if len(open) > 0 && open[len(open)-1].key != "" {
				open[len(open)-1].text.Write(t)
			}
		case xml.EndElement:
			if len(open) == 0 {
				closed = t.Name.Local == "testResults"
				continue
			}
			s := open[len(open)-1]
			if len(s.path) > 0 {
				s.end()
				continue
			}
			open = open[:len(open)-1]
			if err := s.row(&r); err != nil {
				return err
			}
			if err := jmeterAdd(ctx, n, &r, s.kept, file, add); err != nil {
				return err
			}
			n++
		}
	}
}

// start notes a child element; the text of a kept one, and the first
// failure message of its assertion results, are read.
func (s *jmeterSample) start(name string) {
	s.path = append(s.path, name)
	switch {
	case len(s.path) == 1 && jmeterChildren[name] != "":
		s.key = jmeterChildren[name]
	case len(s.path) == 2 && s.path[0] == "assertionResult" && name == "failureMessage":
		s.key = "failureMessage"
	}
	s.text.Reset()
}

func (s *jmeterSample) end() {
	if s.key != "" && s.text.Len() > 0 && !s.has(s.key) {
		s.kept = append(s.kept, record.AttrPair{Key: s.key, Val: s.text.String()})
	}
	s.key = ""
	s.path = s.path[:len(s.path)-1]
}

func (s *jmeterSample) has(key string) bool {
	return slices.ContainsFunc(s.kept, func(kv record.AttrPair) bool { return kv.Key == key })
}

// row fills r from the sample's attributes; attrs from its children are
// in s.kept, where the attributes' attrs are added.
func (s *jmeterSample) row(r *record.Row) error {
	r.Reset(s.line)
	for _, a := range s.attrs {
		key, ok := jmeterXMLNames[a.Name.Local]
		if !ok {
			key = a.Name.Local
		}
		if err := jmeterField(r, &s.kept, jmeterCol{key: key, src: a.Name.Local}, a.Value); err != nil {
			return err
		}
	}
	return nil
}

// markupGuard bounds what Go's XML decoder holds at once: it keeps a text
// node or a tag whole, however many lines it spans (the line cap sees only
// short lines), so more than max bytes without a '<' fail the file.
type markupGuard struct {
	r          io.Reader
	since, max int64
}

func (g *markupGuard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	first, last := bytes.IndexByte(p[:n], '<'), bytes.LastIndexByte(p[:n], '<')
	run := g.since + int64(n)
	if first >= 0 {
		run = g.since + int64(first)
	}
	if g.max > 0 && run > g.max {
		return 0, param.Errorf("max-record", "a text or a tag longer than %d bytes (raise it with {max-record})", g.max)
	}
	if last >= 0 {
		g.since = int64(n - last - 1)
	} else {
		g.since += int64(n)
	}
	return n, err
}

func xmlErr(err error, line int) error {
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return record.LineErr(int64(se.Line), "bad XML: %s", se.Msg)
	}
	return record.LineErr(int64(line), "bad XML: %v", err)
}

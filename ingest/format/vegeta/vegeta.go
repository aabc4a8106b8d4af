package vegeta

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	json "github.com/goccy/go-json"
	"github.com/rewind-dev/rewind/ingest/record"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Name names the Vegeta results: binary (vegeta attack), vegeta encode --to json, or its 12-column CSV.
const Name = "vegeta"

// Vegeta results are decoded by Vegeta's own library (lib/results.go), one
// canonical row per vegeta.Result: req = seq, ts = timestamp, latency_ms =
// latency, status = code, outcome ok for codes 200-399 (what vegeta's
// Metrics counts as success), run group = attack (the file's name when
// the attack has none); error, bytes_in, bytes_out, method and url go to
// attrs. The body and the response headers are not kept. A row's line is
// its line for JSON and CSV, and its 1-based record number for the binary
// encoding. Timestamps keep microseconds (the ts column's resolution).

// vegetaCSVColumns is the column order of vegeta's NewCSVEncoder.
var vegetaCSVColumns = [12]string{"timestamp", "code", "latency", "bytes_out", "bytes_in", "error",
	"body", "attack", "seq", "method", "url", "headers"}

// vegetaWants says what each field holds, for error messages.
var vegetaWants = map[string]string{
	"timestamp": "an RFC 3339 time (JSON) or Unix nanoseconds (CSV)", "code": "an integer 0..65535",
	"latency": "integer nanoseconds", "bytes_out": "a non-negative integer", "bytes_in": "a non-negative integer",
	"seq": "a non-negative integer", "body": "base64 text", "headers": "HTTP headers (base64 in CSV)",
	"attack": "a string", "error": "a string", "method": "a string", "url": "a string",
}

// detectVegeta tells a vegeta file from its first bytes.
func detectVegeta(name string, head []byte) bool { return vegetaEncoding(head) != "" }

// vegetaEncoding is "json", "csv" or "gob" (vegeta attack's binary
// output), or "" when head is none of them. Like vegeta's DecoderFor, the
// binary encoding is recognised by decoding its first record.
func vegetaEncoding(head []byte) string {
	switch text := record.JSONText(head); {
	case isVegetaJSON(record.FirstLine(text)):
		return "json"
	case isVegetaCSV(record.FirstLine(text)):
		return "csv"
	case isVegetaGob(head):
		return "gob"
	}
	return ""
}

// isVegetaJSON looks for the keys vegeta encode --to json writes first.
func isVegetaJSON(line []byte) bool {
	if len(line) == 0 || line[0] != '{' {
		return false
	}
	for _, k := range []string{`"attack":`, `"seq":`, `"code":`, `"timestamp":`, `"latency":`} {
		if !bytes.Contains(line, []byte(k)) {
			return false
		}
	}
	return true
}

// isVegetaCSV checks the shape of vegeta's header-less CSV: 12 columns, a
// nanosecond timestamp, a status code and a latency in nanoseconds.
func isVegetaCSV(line []byte) bool {
	rec, err := csv.NewReader(bytes.NewReader(line)).Read()
	if err != nil || len(rec) != len(vegetaCSVColumns) {
		return false
	}
	for _, i := range []int{0, 1, 2} {
		if _, err := strconv.ParseInt(rec[i], 10, 64); err != nil {
			return false
		}
	}
	return true
}

// looksText: the first bytes are UTF-8 without control bytes other than
// white space.
func looksText(head []byte) bool {
	b := head[:min(len(head), 512)]
	for i := 0; i < utf8.UTFMax-1 && len(b) < len(head) && !utf8.Valid(b); i++ {
		b = b[:len(b)-1] // a rune cut by the 512-byte window
	}
	if !utf8.Valid(b) {
		return false
	}
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}

func isVegetaGob(head []byte) bool {
	dec := vegeta.NewDecoder(newGobFrames(bytes.NewReader(head)))
	err := decodeResult(dec, newResult())
	if err == nil {
		return true
	}
	// A first record longer than the head (a large body): its type
	// definition still names vegeta's Result and its fields.
	return len(head) >= record.HeadBytes && errors.Is(err, errGobTruncated) &&
		bytes.Contains(head[:min(len(head), 2048)], []byte("\x06Result")) &&
		bytes.Contains(head[:min(len(head), 2048)], []byte("\x07Latency"))
}

// decodeVegeta decodes a vegeta file into canonical rows.
func decodeVegeta(in record.Input, c record.Sink) (record.Produce, error) {
	var each func(v *vegetaDec, rd io.Reader) error
	switch vegetaEncoding(in.Head()) {
	case "json":
		each = (*vegetaDec).fromJSON
	case "csv":
		each = (*vegetaDec).fromCSV
	case "gob":
		each = (*vegetaDec).fromGob
	default:
		// Named with --from: binary content is read as vegeta's binary
		// encoding, so that its first bad record is the one reported.
		if looksText(in.Head()) {
			return nil, record.LineErr(0, "not Vegeta results: want the binary output of vegeta attack, vegeta encode --to json, or vegeta encode --to csv")
		}
		each = (*vegetaDec).fromGob
	}
	if vegetaEncoding(in.Head()) != "json" && vegetaEncoding(in.Head()) != "csv" {
		in.Unlined() // gob messages are not lines; gobFrames bounds them
	}
	return record.Rows(func(ctx context.Context, add func(*record.Row) error) error {
		return each(&vegetaDec{ctx: ctx, add: add, file: record.RunName(in.DetectName()), maxRecord: in.MaxRecord()}, in.Reader())
	}), nil
}

// vegetaDec turns decoded results into rows.
type vegetaDec struct {
	ctx  context.Context
	add  func(*record.Row) error
	file string // the run of results without an attack name: the file's
	r    record.Row
	// maxRecord caps a CSV record
	maxRecord int64
}

func newResult() *vegeta.Result {
	// A non-nil map makes gob fill it entry by entry instead of allocating
	// the size a (possibly corrupt) record claims up front.
	return &vegeta.Result{Headers: http.Header{}}
}

// decodeResult turns a panic in the decoder (reflect refuses some
// malformed gob values) into an error.
func decodeResult(dec vegeta.Decoder, res *vegeta.Result) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("malformed record: %v", p)
		}
	}()
	return dec.Decode(res)
}

// vegetaRow fills r from one decoded result; group is the run of a
// result whose attack has no name.
func vegetaRow(r *record.Row, line int64, res *vegeta.Result, group string) error {
	r.Reset(line)
	if res.Timestamp.IsZero() {
		return record.FieldErr(line, "timestamp", "missing")
	}
	if y := res.Timestamp.Year(); y < 1 || y > 9999 {
		return record.FieldErr(line, "timestamp", "out of range %s", res.Timestamp)
	}
	if res.Seq > math.MaxInt64 {
		return record.FieldErr(line, "seq", "out of range %d", res.Seq)
	}
	r.Req, r.TsUs = int64(res.Seq), res.Timestamp.UnixMicro()
	r.Latency, r.Status = float64(res.Latency)/1e6, int32(res.Code)
	r.Outcome = "error"
	if res.Code >= 200 && res.Code < 400 {
		r.Outcome = "ok"
	}
	r.Set(record.ColReq)
	r.Set(record.ColTsUs)
	r.Set(record.ColLatency)
	r.Set(record.ColStatus)
	r.Set(record.ColOutcome)
	if r.Group = res.Attack; r.Group == "" {
		r.Group = group
	}
	r.Set(record.ColGroup)
	r.Attrs = string(vegetaAttrs(nil, res))
	r.Set(record.ColAttrs)
	return nil
}

func vegetaAttrs(buf []byte, res *vegeta.Result) []byte {
	kvs := []record.AttrPair{
		{Key: "bytes_in", Val: strconv.FormatUint(res.BytesIn, 10), Raw: true},
		{Key: "bytes_out", Val: strconv.FormatUint(res.BytesOut, 10), Raw: true},
	}
	for _, kv := range []record.AttrPair{{Key: "error", Val: res.Error}, {Key: "method", Val: res.Method}, {Key: "url", Val: res.URL}} {
		if kv.Val != "" {
			kvs = append(kvs, kv)
		}
	}
	return record.AppendAttrPairs(buf, kvs)
}

// fromGob decodes the binary encoding; line is the record number.
func (v *vegetaDec) fromGob(rd io.Reader) error {
	frames := newGobFrames(rd)
	dec := vegeta.NewDecoder(frames)
	for n := int64(1); ; n++ {
		res := newResult()
		err := decodeResult(dec, res)
		if err == io.EOF && frames.ended {
			return nil
		}
		if err == io.EOF { // gob's word for a record whose values run out
			err = errors.New("the record ends before its values do")
		}
		if err != nil {
			return record.LineErr(n, "bad Vegeta binary record: %v", err)
		}
		if err := v.emit(n, res); err != nil {
			return err
		}
	}
}

func (v *vegetaDec) emit(line int64, res *vegeta.Result) error {
	if line%4096 == 0 && v.ctx.Err() != nil {
		return v.ctx.Err()
	}
	if err := vegetaRow(&v.r, line, res, v.file); err != nil {
		return err
	}
	return v.add(&v.r)
}

// fromJSON decodes vegeta encode --to json: one result per line,
// each handed alone to vegeta's JSON decoder. Blank lines are skipped, and
// a last line without a line end is read too (vegeta's decoder stops at
// either without an error).
func (v *vegetaDec) fromJSON(rd io.Reader) error {
	feed := &vegetaFeed{}
	dec := vegeta.NewJSONDecoder(feed)
	return record.TextLines(v.ctx, rd, func(line int64, b []byte) error {
		feed.b = append(b, '\n')
		res := newResult()
		if err := decodeResult(dec, res); err != nil {
			return vegetaJSONErr(b, line, err)
		}
		return v.emit(line, res)
	})
}

// vegetaJSONErr names the field a line's error is in: the first member
// that vegeta's decoder refuses on its own.
func vegetaJSONErr(b []byte, line int64, err error) error {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil || m == nil {
		return record.LineErr(line, "bad JSON: %v", err)
	}
	for _, k := range vegetaCSVColumns {
		raw, ok := m[k]
		if !ok {
			continue
		}
		one, _ := json.Marshal(map[string]json.RawMessage{k: raw})
		dec := vegeta.NewJSONDecoder(bytes.NewReader(append(one, '\n')))
		if decodeResult(dec, newResult()) != nil {
			return record.FieldErr(line, k, "want %s, got %s", vegetaWants[k], record.Truncate(string(raw), 40))
		}
	}
	return record.LineErr(line, "bad Vegeta JSON result: %v", err)
}

// fromCSV decodes vegeta encode --to csv. Records are split here, so
// that each row knows its line, and each is handed alone to vegeta's CSV
// decoder.
func (v *vegetaDec) fromCSV(rd io.Reader) error {
	cr, rc := record.CappedCSV(rd, v.maxRecord, ',')
	cr.FieldsPerRecord, cr.TrimLeadingSpace, cr.ReuseRecord = -1, true, true
	rc.Header(vegetaCSVColumns[:])
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	feed := &vegetaFeed{}
	dec := vegeta.NewCSVDecoder(feed)
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return record.CSVErr(cr, err)
		}
		l, _ := cr.FieldPos(0)
		line := int64(l)
		if len(rec) != len(vegetaCSVColumns) {
			return record.LineErr(line, "want Vegeta's %d CSV columns (%s), got %d", len(vegetaCSVColumns), strings.Join(vegetaCSVColumns[:], ","), len(rec))
		}
		out.Reset()
		_ = w.Write(rec)
		w.Flush()
		feed.b = out.Bytes()
		res := newResult()
		if err := decodeResult(dec, res); err != nil {
			return vegetaCSVErr(rec, line, err)
		}
		if err := v.emit(line, res); err != nil {
			return err
		}
	}
}

// vegetaCSVErr names the column a record's error is in: the first that
// vegeta's decoder refuses within an otherwise valid record.
func vegetaCSVErr(rec []string, line int64, err error) error {
	for i := range vegetaCSVColumns {
		probe := []string{"1", "200", "0", "0", "0", "", "", "", "0", "", "", ""}
		probe[i] = rec[i]
		var b bytes.Buffer
		w := csv.NewWriter(&b)
		_ = w.Write(probe)
		w.Flush()
		if decodeResult(vegeta.NewCSVDecoder(&b), newResult()) != nil {
			k := vegetaCSVColumns[i]
			return record.FieldErr(line, k, "want %s, got %q", vegetaWants[k], record.Truncate(rec[i], 40))
		}
	}
	return record.LineErr(line, "bad Vegeta CSV record: %v", err)
}

// vegetaFeed hands a decoder one line (or record) at a time: the decoder
// reads up to the line end it ends with and then stops, so the feed never
// runs dry mid-read.
type vegetaFeed struct{ b []byte }

func (f *vegetaFeed) Read(p []byte) (int, error) {
	if len(f.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, f.b)
	f.b = f.b[n:]
	return n, nil
}

// errGobTruncated is a binary file that ends inside a record.
var errGobTruncated = errors.New("the file ends inside a record (truncated?)")

// maxGobMessage is gob's own limit on one message.
const maxGobMessage = 1 << 30

// gobFrames passes a gob stream on one whole message at a time: each
// message is read before gob sees its length prefix, so a corrupt length
// cannot make gob allocate more than the input holds.
type gobFrames struct {
	r     *bufio.Reader
	buf   bytes.Buffer
	out   []byte
	ended bool // the input ended where a message would start
}

func newGobFrames(rd io.Reader) *gobFrames { return &gobFrames{r: bufio.NewReader(rd)} }

func (g *gobFrames) Read(p []byte) (int, error) {
	if len(g.out) == 0 {
		if err := g.next(); err != nil {
			return 0, err
		}
	}
	n := copy(p, g.out)
	g.out = g.out[n:]
	return n, nil
}

func (g *gobFrames) next() error {
	g.buf.Reset()
	n, err := g.length()
	if err != nil {
		return err
	}
	if n > maxGobMessage {
		return fmt.Errorf("a record claims %d bytes", n)
	}
	if _, err := io.CopyN(&g.buf, g.r, int64(n)); err != nil {
		if err == io.EOF {
			return errGobTruncated
		}
		return err
	}
	g.out = g.buf.Bytes()
	return nil
}

// length reads gob's message length (an unsigned integer: one byte below
// 128, else a byte holding the negated count of big-endian bytes that
// follow) and copies its bytes to buf.
func (g *gobFrames) length() (uint64, error) {
	b, err := g.r.ReadByte()
	if err != nil {
		g.ended = err == io.EOF
		return 0, err // io.EOF between messages is the end
	}
	g.buf.WriteByte(b)
	if b < 0x80 {
		return uint64(b), nil
	}
	k := 256 - int(b)
	if k > 8 {
		return 0, fmt.Errorf("bad record length prefix %#x", b)
	}
	var n uint64
	for i := 0; i < k; i++ {
		c, err := g.r.ReadByte()
		if err != nil {
			return 0, errGobTruncated
		}
		g.buf.WriteByte(c)
		n = n<<8 | uint64(c)
	}
	return n, nil
}

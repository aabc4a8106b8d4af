package record

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
)

// A csv.Reader holds a whole record in memory before it returns it, and a
// quoted field may hold line breaks: a record of many short lines passes
// the input's line cap and grows without bound (a 4 GiB quoted field took
// 6 GB). Every CSV-based format that reads with one csv.Reader (JMeter,
// k6 CSV, Locust, ab, Vegeta's CSV and the canonical CSV's fallback) reads
// through a recordCap, which follows record ends as bytes pass (a line end
// outside quotes; a quote toggles, a doubled one twice) and refuses a
// record longer than the cap at the line it starts, naming the field the
// cap was passed in. The csv.Reader reads ahead of the record it parses by
// its buffer only (4 KiB), so memory stays within the cap and that buffer.

// CSVCap is the reader under one csv.Reader.
type CSVCap struct {
	r      io.Reader
	max    int64
	comma  byte
	names  []string // the header's, once read: the field of an error
	quoted bool
	line   int64 // the line being read, from 1
	start  int64 // the line the record being read starts on
	field  int   // the field being read in that record, from 0
	run    int64 // the record's bytes so far
}

// CappedCSV is a csv.Reader with the field delimiter comma over rd, whose
// records are capped at max bytes (0: DefaultMaxRecord).
func CappedCSV(rd io.Reader, max int64, comma rune) (*csv.Reader, *CSVCap) {
	if max <= 0 {
		max = DefaultMaxRecord
	}
	rc := &CSVCap{r: rd, max: max, comma: byte(comma), line: 1, start: 1}
	cr := csv.NewReader(rc)
	cr.Comma = comma
	return cr, rc
}

// Header names the columns, for the field an error names.
func (c *CSVCap) Header(names []string) { c.names = names }

func (c *CSVCap) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if cerr := c.scan(p[:n]); cerr != nil {
		return 0, cerr
	}
	return n, err
}

func (c *CSVCap) scan(b []byte) error {
	for _, ch := range b {
		c.run++
		switch ch {
		case '"':
			c.quoted = !c.quoted
		case '\n':
			c.line++
			if !c.quoted {
				c.start, c.field, c.run = c.line, 0, 0
				continue
			}
		case c.comma:
			if !c.quoted {
				c.field++
			}
		}
		if c.run > c.max {
			return c.tooLong()
		}
	}
	return nil
}

func (c *CSVCap) tooLong() error {
	msg := fmt.Sprintf("record longer than %s: {max-record} raises the cap", SizeText(c.max))
	switch {
	case c.names == nil:
		return LineErr(c.start, msg)
	case c.field < len(c.names):
		return FieldErr(c.start, c.names[c.field], msg)
	}
	return FieldErr(c.start, fmt.Sprintf("#%d", c.field+1), msg+" (the header has %d columns)", len(c.names))
}

// EachRecord calls fn with every record left in cr and the line it starts
// on, checking for cancellation every 4096 records: the one record loop of
// every CSV-based format.
func EachRecord(ctx context.Context, cr *csv.Reader, fn func(line int64, rec []string) error) error {
	for n := 1; ; n++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return CSVErr(cr, err)
		}
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		line, _ := cr.FieldPos(0)
		if err := fn(int64(line), rec); err != nil {
			return err
		}
	}
}

func CSVErr(cr *csv.Reader, err error) error { return CSVErrAt(1, err) }

// CSVErrAt is csvErr for a reader whose first line is the file's line
// first (a chunk's).
func CSVErrAt(first int64, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return LineErr(first+int64(pe.Line)-1, "bad CSV: %v", pe.Err)
	}
	if err == io.EOF {
		return LineErr(first, "bad CSV: no header row")
	}
	return err
}

// sizeText prints a size in the largest binary unit that divides it.
func SizeText(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

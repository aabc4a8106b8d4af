package ingest

import (
	"encoding/csv"
	"fmt"
	"io"

	"github.com/rewind-dev/rewind/ingest/record"
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

// recordCap is the reader under one csv.Reader.
type recordCap struct {
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

// cappedCSV is a csv.Reader with the field delimiter comma over rd, whose
// records are capped at max bytes (0: DefaultMaxRecord).
func cappedCSV(rd io.Reader, max int64, comma rune) (*csv.Reader, *recordCap) {
	if max <= 0 {
		max = DefaultMaxRecord
	}
	rc := &recordCap{r: rd, max: max, comma: byte(comma), line: 1, start: 1}
	cr := csv.NewReader(rc)
	cr.Comma = comma
	return cr, rc
}

// header names the columns, for the field an error names.
func (c *recordCap) header(names []string) { c.names = names }

func (c *recordCap) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if cerr := c.scan(p[:n]); cerr != nil {
		return 0, cerr
	}
	return n, err
}

func (c *recordCap) scan(b []byte) error {
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

func (c *recordCap) tooLong() error {
	msg := fmt.Sprintf("record longer than %s: {max-record} raises the cap", sizeText(c.max))
	switch {
	case c.names == nil:
		return record.LineErr(c.start, msg)
	case c.field < len(c.names):
		return record.FieldErr(c.start, c.names[c.field], msg)
	}
	return record.FieldErr(c.start, fmt.Sprintf("#%d", c.field+1), msg+" (the header has %d columns)", len(c.names))
}

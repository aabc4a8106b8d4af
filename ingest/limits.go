package ingest

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/rewind-dev/rewind/ingest/record"
	"github.com/rewind-dev/rewind/internal/param"
)

// docRecords is how many records' worth a whole document may hold.
const docRecords = 16

// DefaultMaxRatio caps how many times its compressed size a .gz or .zst may
// decompress to, once past ratioFloor: logs compress 5-50×; a bomb 1000× and
// more (gzip's most is about 1030×, zstd's is unbounded).
const DefaultMaxRatio = 500

// ratioFloor is the decompressed size below which no ratio is refused, so a
// small, very repetitive file (blank lines, one repeated record) still loads.
var ratioFloor int64 = 64 << 20

// guard sits between the decompressor and the buffer every decoder reads:
// it counts lines and refuses a record longer than max (once armed, when the
// format is known to read lines) and a decompression past the ratio. It
// costs one IndexByte scan of what it passes.
type guard struct {
	r        io.Reader
	raw      func() int64 // compressed bytes read so far; nil when not compressed
	max      int64
	ratio    int64
	armed    bool  // the format reads records by line
	unlined  bool  // the format reads binary records
	run      int64 // bytes since the last line feed
	lines    int64 // line feeds passed
	longest  int64 // the longest record passed (before the guard was armed) ...
	longLine int64 // ... and its line
	out      int64 // bytes passed
	document bool  // read whole: the document cap applies instead
	text     textCheck
	json     int8 // the content starts as JSON: 1; not: -1; not known yet: 0
}

// DefaultMaxRecord caps one record (record.DefaultMaxRecord).
const DefaultMaxRecord = record.DefaultMaxRecord

func (g *guard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	g.out += int64(n)
	if g.json == 0 {
		if t := record.JSONText(p[:n]); len(t) > 0 {
			g.json = -1
			if t[0] == '{' || t[0] == '[' {
				g.json = 1
			}
		}
	}
	if !g.unlined {
		g.text.scan(p[:n], g.lines+1, g.json > 0, err == io.EOF)
	}
	if g.raw != nil && g.out > ratioFloor && g.out > g.ratio*max(g.raw(), 1) {
		return 0, param.Errorf("max-ratio", "decompresses to more than %d times its size (%d bytes from %d; a decompression bomb?): {max-ratio} raises the limit",
			g.ratio, g.out, g.raw())
	}
	if g.document {
		if g.out > docRecords*g.max {
			return 0, param.Errorf("max-record", "document larger than %s (a format read whole may be %d records long): {max-record} raises the cap", record.SizeText(docRecords*g.max), docRecords)
		}
		return n, err
	}
	if lerr := g.scan(p[:n]); lerr != nil {
		return 0, lerr
	}
	return n, err
}

// scan follows line feeds through b and refuses an overlong record. When b
// is no longer than the cap, no record inside it can pass the cap: only the
// runs at its two ends are followed (two scans and a count, whatever the
// number of lines: 4 GiB of blank lines cost no more than one long one).
func (g *guard) scan(b []byte) error {
	if int64(len(b)) <= g.max {
		first := bytes.IndexByte(b, '\n')
		if first < 0 {
			g.run += int64(len(b))
			g.note()
			return g.check()
		}
		g.run += int64(first)
		g.note()
		if err := g.check(); err != nil {
			return err
		}
		last := bytes.LastIndexByte(b, '\n')
		g.lines += int64(bytes.Count(b[first:last+1], []byte{'\n'}))
		g.run = int64(len(b) - last - 1)
		g.note()
		return g.check()
	}
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			g.run += int64(len(b))
			break
		}
		g.run += int64(i)
		if err := g.check(); err != nil {
			return err
		}
		g.note()
		g.run, g.lines = 0, g.lines+1
		b = b[i+1:]
	}
	g.note()
	return g.check()
}

func (g *guard) note() {
	if g.run > g.longest {
		g.longest, g.longLine = g.run, g.lines+1
	}
}

func (g *guard) check() error {
	if g.armed && g.run > g.max {
		return g.tooLong(g.lines + 1)
	}
	return nil
}

func (g *guard) tooLong(line int64) error {
	return record.LineErr(line, "record longer than %s: {max-record} raises the cap", record.SizeText(g.max))
}

// linesOnly arms the record cap once a format's decoder is set up, unless it
// said it reads a whole document or binary records: the input is read as
// records by line. What was read before (the head detection saw, a small
// file whole) is checked now.
func (in *input) linesOnly() error {
	g := in.guard
	if g.document || g.unlined {
		return nil
	}
	g.armed = true
	if g.longest > g.max {
		return g.tooLong(g.longLine)
	}
	return nil
}

// wholeDocument switches the record cap to the document cap.
func (in *input) wholeDocument() { in.guard.armed, in.guard.document = false, true }

// Unlined lifts the line cap for a binary stream (Vegeta's gob, protobuf):
// its records are not lines.
func (in *input) Unlined() { in.guard.armed, in.guard.unlined = false, true }

// TextErr is the first line of a text input that holds invalid UTF-8 (or a
// lone surrogate escape in JSON), once the input has been read; nil for a
// binary one.
func (in *input) TextErr() error {
	g := in.guard
	if g.unlined || g.text.badLine == 0 {
		return nil
	}
	return record.LineErr(g.text.badLine, "%s", g.text.what)
}

// limits are an ingest's caps: Options.MaxRecord and MaxRatio, 0 for the
// defaults.
type limits struct{ maxRecord, maxRatio int64 }

func (l limits) record() int64 {
	if l.maxRecord > 0 {
		return l.maxRecord
	}
	return DefaultMaxRecord
}

func (l limits) ratio() int64 {
	if l.maxRatio > 0 {
		return l.maxRatio
	}
	return DefaultMaxRatio
}

var sizeArg = regexp.MustCompile(`^([0-9]+)\s*([kmgt]i?b|b)?$`)

// ParseSize reads a size such as 64MiB, 1GB or 4096 (bytes): KB, MB, GB, TB
// are powers of 1000, KiB ... TiB powers of 1024.
func ParseSize(s string) (int64, error) {
	m := sizeArg.FindStringSubmatch(strings.ToLower(strings.TrimSpace(s)))
	if m == nil {
		return 0, fmt.Errorf("%q: want a size such as 64MiB or 1GB", s)
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q: want a size above 0", s)
	}
	unit := map[string]int64{"": 1, "b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}[m[2]]
	if n > (1<<62)/unit {
		return 0, fmt.Errorf("%q: too large", s)
	}
	return n * unit, nil
}

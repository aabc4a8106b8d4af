package record

import (
	"bufio"
	"bytes"
	"context"
	"io"
)

// LineReader is the one line reader of the line-oriented adapters: it
// yields each line of a stream, of any length, with its line end and its
// 1-based number (blank lines are numbered too). It reads straight from the
// input's buffered reader when given one, so no second buffer copies the
// bytes; what bounds a line is the input's guard, not this reader. The line
// it returns is valid until the next call.
type LineReader struct {
	br  *bufio.Reader
	buf []byte
	n   int64
	eof bool
}

func NewLineReader(r io.Reader) *LineReader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	return &LineReader{br: br}
}

// Next returns the Next line, its number, and io.EOF after the last one (a
// last line without a line end is returned first).
func (l *LineReader) Next() ([]byte, int64, error) {
	if l.eof {
		return nil, 0, io.EOF
	}
	l.buf = l.buf[:0]
	for {
		chunk, err := l.br.ReadSlice('\n')
		l.buf = append(l.buf, chunk...)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF:
			l.eof = true
			if len(l.buf) == 0 {
				return nil, 0, io.EOF
			}
		case err != nil:
			return nil, 0, err
		}
		l.n++
		return l.buf, l.n, nil
	}
}

// TextLines calls fn with each non-blank line of r, numbered from 1, without
// its line end and (on the first line) a byte-order mark. fn owns the slice
// it is given (the callers keep parts of it), so each line is a copy.
func TextLines(ctx context.Context, r io.Reader, fn func(line int64, b []byte) error) error {
	lines := NewLineReader(r)
	for {
		b, line, err := lines.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		}
		if b = bytes.TrimRight(b, "\r\n"); len(bytes.TrimSpace(b)) > 0 {
			if ferr := fn(line, bytes.Clone(b)); ferr != nil {
				return ferr
			}
		}
		// The last line ends the loop without a look at ctx, as it always has.
		if line%4096 == 0 && !lines.eof && ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// CutLine splits a chunk's next line (without its line feed) from the rest,
// for the chunk decoders that walk a chunk in memory (NDJSON, CLF).
func CutLine(data []byte) (line, rest []byte) {
	end := bytes.IndexByte(data, '\n')
	if end < 0 {
		return data, data[len(data):]
	}
	return data[:end], data[end+1:]
}

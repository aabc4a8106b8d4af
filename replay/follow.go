package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/rewind-dev/rewind/ingest"
)

// FollowConfig says which growing log to follow and when to give up.
type FollowConfig struct {
	Path        string
	Rule        Rule
	Size        int64         // rows per window (count windows), or
	SizeMs      float64       // window length in ms (duration windows, by t_ms)
	UntilEOF    bool          // end at the first end of file
	IdleTimeout time.Duration // end when the file has not grown for this long; 0: never
	Poll        time.Duration // how often to look for growth; 0: 100ms
}

// Follow reads a canonical NDJSON log as tail -f does and decides each
// window as it closes, with the same Evaluator as Walk. A count window closes
// at its Size-th row; a duration window [k·SizeMs, (k+1)·SizeMs) closes when
// a row of a later window arrives (rows are expected in t_ms order; a late
// row counts in the open window), and windows without rows are skipped, as
// in the windows macro. It returns
// as soon as the stop fires (Summary.StopWindow > 0), or when the log ends
// (UntilEOF, IdleTimeout) or ctx is done. When the log ends, the open window
// is closed as a short last window, as the windows macro cuts it.
//
// Rows count when their role is "experiment" or when they have no role at
// all (a log of one live run): a line's role, else the role a run record
// earlier in the log gave its run, else the run name when it is "control" or
// "experiment". A partial last line is waited for; a malformed complete line
// is an error naming file:line. Memory holds the open window's counts, the
// roles of the runs and one line.
func Follow(ctx context.Context, c FollowConfig, fn func(Verdict) error) (Summary, error) {
	if c.Size < 1 && !(c.SizeMs > 0) {
		return Summary{}, fmt.Errorf("watch needs a window: 1 or more rows, or a positive duration")
	}
	ev, err := NewEvaluator(c.Rule)
	if err != nil {
		return Summary{}, err
	}
	f, err := os.Open(c.Path)
	if err != nil {
		return Summary{}, err
	}
	defer f.Close()
	t := &tail{cfg: c, ev: ev, fn: fn, roles: map[string]string{}, open: Window{N: 1}}
	err = t.run(ctx, f)
	if errors.Is(err, errStop) {
		err = nil
	}
	return t.sum, err
}

var errStop = errors.New("stop fired")

// tail is the state of one Follow.
type tail struct {
	cfg     FollowConfig
	ev      *Evaluator
	fn      func(Verdict) error
	roles   map[string]string // run -> role, from run records
	open    Window            // the open window
	rows    int64             // rows in the open window
	line    int64             // lines read
	pending []byte            // a line not yet ended by a newline
	sum     Summary
}

func (t *tail) run(ctx context.Context, f io.Reader) error {
	poll := t.cfg.Poll
	if poll <= 0 {
		poll = 100 * time.Millisecond
	}
	buf := make([]byte, 64<<10)
	grew := time.Now()
	for {
		n, err := f.Read(buf)
		if n > 0 {
			grew = time.Now()
			if e := t.feed(buf[:n]); e != nil {
				return e
			}
		}
		switch {
		case err == nil:
			continue
		case err != io.EOF:
			return err
		case t.cfg.UntilEOF, t.cfg.IdleTimeout > 0 && time.Since(grew) >= t.cfg.IdleTimeout:
			return t.end()
		}
		if err := sleep(ctx, poll); err != nil {
			return err
		}
	}
}

// feed splits data into lines; the tail without a newline waits for more.
func (t *tail) feed(data []byte) error {
	t.pending = append(t.pending, data...)
	for {
		i := bytes.IndexByte(t.pending, '\n')
		if i < 0 {
			return nil
		}
		err := t.lineDone(t.pending[:i])
		t.pending = t.pending[i+1:]
		if err != nil {
			return err
		}
		if len(t.pending) == 0 {
			t.pending = nil // let the buffer go once drained
		}
	}
}

// end closes the log: a last line without a newline is complete now, and
// the open window closes short.
func (t *tail) end() error {
	if len(bytes.TrimSpace(t.pending)) > 0 {
		if err := t.lineDone(t.pending); err != nil {
			return err
		}
	}
	if t.rows > 0 {
		return t.close()
	}
	return nil
}

func (t *tail) lineDone(b []byte) error {
	t.line++
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	a, isReq, err := ingest.DecodeLine(b, t.line)
	if err != nil {
		var le *ingest.LineError
		if errors.As(err, &le) {
			le.File = t.cfg.Path
			return le
		}
		return fmt.Errorf("%s:%d: %w", t.cfg.Path, t.line, err)
	}
	if !isReq {
		if a.Record == "run" && a.HasRole {
			t.roles[a.Run] = a.Role
		}
		return nil
	}
	if !t.counts(a) {
		return nil
	}
	if t.cfg.SizeMs > 0 {
		return t.addTimed(a)
	}
	t.add(a)
	if t.rows == t.cfg.Size {
		return t.close()
	}
	return nil
}

// addTimed places a row in its duration window, closing the open window
// first when the row belongs to a later one.
func (t *tail) addTimed(a ingest.Attempt) error {
	if !a.HasTMs {
		return &ingest.LineError{File: t.cfg.Path, Line: t.line, Field: "t_ms", Msg: "missing: duration windows need send times"}
	}
	n := int64(math.Floor(a.TMs/t.cfg.SizeMs)) + 1
	if t.rows > 0 && n > t.open.N {
		if err := t.close(); err != nil {
			return err
		}
	}
	if t.rows == 0 && n > t.open.N {
		t.open.N = n
	}
	t.add(a)
	return nil
}

// counts reports whether a row belongs to the watched run.
func (t *tail) counts(a ingest.Attempt) bool {
	role, known := a.Role, a.HasRole
	if !known {
		role, known = t.roles[a.Run]
	}
	if !known && (a.Run == "control" || a.Run == "experiment") {
		role = a.Run
	}
	return role == "experiment" || role == ""
}

func (t *tail) add(a ingest.Attempt) {
	w := &t.open
	t.rows++
	w.Requests += a.Count
	if a.Outcome == "ok" {
		w.OK += a.Count
	} else if a.Tagged && a.Outcome != "" {
		w.Damage += a.Count
	}
	if a.HasTMs {
		if !w.HasTMs || a.TMs < w.FirstTMs {
			w.FirstTMs = a.TMs
		}
		if !w.HasTMs || a.TMs > w.LastTMs {
			w.LastTMs = a.TMs
		}
		w.HasTMs = true
	}
}

// close decides the open window and opens the next.
func (t *tail) close() error {
	v := t.ev.Feed(t.open)
	t.sum.add(t.open, v)
	t.open, t.rows = Window{N: t.open.N + 1}, 0
	if err := t.fn(v); err != nil {
		return err
	}
	if v.Stop {
		return errStop
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) error {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

package replay

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/internal/param"
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
	MaxRecord   int64         // caps one line in bytes, as ingest does; 0: ingest.DefaultMaxRecord
	// Notice, when set, is told when the log is truncated, removed or
	// replaced: a sentence naming Path, for stderr.
	Notice func(msg string)
	// Burn, when set, is the stop (--stop-on burn-rate): the open window
	// stops the moment the first alert is decided, which is when the first
	// row sent after it arrives (or at the end of the log). Good requests
	// are those Good says are (nil: outcome ok; a row without an outcome is
	// no event); Good's nil answer is no event.
	Burn *BurnConfig
	Good func(ingest.Attempt) (*bool, error)
	// GoodText is the --good expression Good evaluates ("" for none): one
	// that reads latency_ms cannot be judged on a log without one, which is
	// refused as analyze burn-rate refuses it.
	GoodText string
	// SplitMs or SplitEvent, when set, split the log in time
	// (--baseline-until): rows sent before the split are the baseline side,
	// the rest the treatment, with windows counted within each part (a
	// treatment duration window starts at the split). SplitEvent is TYPE or
	// TYPE:SUBJECT: the t_ms of the first such event line of the log. The
	// baseline, the mean of the baseline windows' values, is taken when the
	// first row sent at or after the split arrives; Rule.Baseline is then
	// set, and the baseline windows are not printed.
	SplitMs    *float64
	SplitEvent string
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
//
// Like tail -F, Follow follows the name, not the open file: at each end of
// file it looks at Path again. When another file is there (the log was
// rotated with mv, or removed and created again: os.SameFile says they
// differ), it reads what is left of the old file, then the new one from its
// first line. When the open file is shorter than what was read, or its first
// bytes changed (truncated, rewritten), it reads it again from its first
// line. Line numbers restart with the new content; the windows, the streak
// and the runs' roles carry on, as the new content continues the same log.
// A log removed and not yet replaced is waited for (IdleTimeout still ends
// the wait). Each of these is told to Notice.
func Follow(ctx context.Context, c FollowConfig, fn func(Verdict) error) (Summary, error) {
	if c.Size < 1 && !(c.SizeMs > 0) {
		return Summary{}, fmt.Errorf("watch needs a window: 1 or more rows, or a positive duration")
	}
	split := c.SplitMs != nil || c.SplitEvent != ""
	var ev *Evaluator
	var err error
	if !split {
		if ev, err = NewEvaluator(c.Rule); err != nil {
			return Summary{}, err
		}
	}
	f, err := os.Open(c.Path)
	if err != nil {
		return Summary{}, err
	}
	t := &tail{cfg: c, ev: ev, stats: newStats(c.Rule.Metric), fn: fn, roles: map[string]string{}, open: Window{N: 1}, f: f,
		inBaseline: split}
	if c.SplitMs != nil {
		t.splitAt, t.splitKnown = *c.SplitMs, true
	}
	if c.Burn != nil {
		if t.burn, err = newBurnAlert(*c.Burn); err != nil {
			f.Close()
			return Summary{}, err
		}
	}
	defer func() { t.f.Close() }()
	err = t.run(ctx)
	if t.ev != nil {
		t.sum.TagsSeen = t.ev.TagsSeen()
	}
	if errors.Is(err, errStop) {
		err = nil
	}
	return t.sum, err
}

var errStop = errors.New("stop fired")

// tail is the state of one Follow.
type tail struct {
	cfg   FollowConfig
	ev    *Evaluator
	stats *stats     // the open window's latencies, for the metric
	burn  *burnAlert // the burn-rate stop, when asked for
	fired *BurnFire  // the alert that fired

	inBaseline bool     // before the split: rows go to the baseline windows
	splitAt    float64  // ms, the split
	splitKnown bool     // splitAt is known (SplitMs, or the event arrived)
	origin     float64  // ms, where duration windows are aligned: 0, or the split
	baseWins   []Window // the baseline side's closed windows
	fn         func(Verdict) error
	roles      map[string]string // run -> role, from run records
	open       Window            // the open window
	rows       int64             // rows in the open window
	latencies  bool              // a row so far carried a latency
	counted    int64             // rows so far that count
	saidNoLat  bool              // the notice that no row has a latency yet was given
	line       int64             // lines read
	pending    []byte            // a line not yet ended by a newline
	sum        Summary

	f       *os.File // the file open at Path, or the one that was there
	off     int64    // bytes of f read
	head    []byte   // f's first bytes, as read: a rewrite changes them
	removed bool     // Path is gone (said once)
	buf     []byte
}

// headLen is how many first bytes are kept to notice a rewrite.
const headLen = 256

func (t *tail) run(ctx context.Context) error {
	poll := t.cfg.Poll
	if poll <= 0 {
		poll = 100 * time.Millisecond
	}
	t.buf = make([]byte, 64<<10)
	grew := time.Now()
	atEOF := false
	for {
		n, err := t.f.Read(t.buf)
		if n > 0 && atEOF && t.rewritten() {
			// Rewritten past the old offset since the last look: these
			// bytes start mid-line of the new content.
			if err := t.truncated(); err != nil {
				return err
			}
			continue
		}
		if n > 0 {
			grew, atEOF = time.Now(), false
			if e := t.consume(t.buf[:n]); e != nil {
				return e
			}
		}
		switch {
		case err == nil:
			continue
		case err != io.EOF:
			return err
		}
		atEOF = true
		switched, err := t.rotated()
		switch {
		case err != nil:
			return err
		case switched:
			grew = time.Now()
			continue
		case t.cfg.UntilEOF, t.cfg.IdleTimeout > 0 && time.Since(grew) >= t.cfg.IdleTimeout:
			return t.end()
		}
		if err := sleep(ctx, poll); err != nil {
			return err
		}
	}
}

// consume feeds bytes read from f.
func (t *tail) consume(b []byte) error {
	if len(t.head) < headLen {
		t.head = append(t.head, b[:min(len(b), headLen-len(t.head))]...)
	}
	t.off += int64(len(b))
	return t.feed(b)
}

// rotated looks at Path at an end of file and switches to new content:
// another file at Path, or the open one truncated or rewritten. It reports
// whether it switched.
func (t *tail) rotated() (bool, error) {
	now, err := os.Stat(t.cfg.Path)
	if errors.Is(err, os.ErrNotExist) {
		if !t.removed && !t.cfg.UntilEOF {
			t.removed = true
			t.notice("%s was removed; waiting for a new file at that path")
		}
		return false, nil
	}
	if err != nil {
		return false, err
	}
	t.removed = false
	was, err := t.f.Stat()
	if err != nil {
		return false, err
	}
	if !os.SameFile(now, was) {
		return t.replaced()
	}
	if now.Size() < t.off || t.rewritten() {
		return true, t.truncated()
	}
	return false, nil
}

// truncated starts the open file again from its first line.
func (t *tail) truncated() error {
	t.notice("%s was truncated; reading it from the start")
	t.restart()
	_, err := t.f.Seek(0, io.SeekStart)
	return err
}

// rewritten reports whether the open file's first bytes differ from those
// read: it was truncated and written again, maybe past the old offset,
// between two looks.
func (t *tail) rewritten() bool {
	b := make([]byte, len(t.head))
	n, _ := t.f.ReadAt(b, 0)
	return !bytes.Equal(b[:n], t.head)
}

// replaced finishes the old file (what was written to it before the new one
// appeared; a last line without a newline is complete) and opens the new one.
func (t *tail) replaced() (bool, error) {
	for {
		n, err := t.f.Read(t.buf)
		if n > 0 {
			if e := t.consume(t.buf[:n]); e != nil {
				return false, e
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return false, err
		}
	}
	if len(bytes.TrimSpace(t.pending)) > 0 {
		if err := t.lineDone(t.pending); err != nil {
			return false, err
		}
	}
	f, err := os.Open(t.cfg.Path)
	if err != nil {
		return false, nil // gone again: look at the next end of file
	}
	t.f.Close()
	t.f = f
	t.restart()
	t.notice("%s was replaced by a new file; reading the new file from its first line")
	return true, nil
}

// restart forgets the old content's position: line numbers start again.
func (t *tail) restart() {
	t.off, t.line, t.pending, t.head = 0, 0, nil, nil
}

func (t *tail) notice(format string) {
	if t.cfg.Notice != nil {
		t.cfg.Notice(fmt.Sprintf(format, t.cfg.Path))
	}
}

// feed splits data into lines; the tail without a newline waits for more.
func (t *tail) feed(data []byte) error {
	t.pending = append(t.pending, data...)
	for {
		i := bytes.IndexByte(t.pending, '\n')
		if max := cmp.Or(t.cfg.MaxRecord, ingest.DefaultMaxRecord); int64(i) > max || (i < 0 && int64(len(t.pending)) > max) {
			return ingest.RecordTooLong(t.cfg.Path, t.line+1, max)
		}
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
	switch {
	case t.inBaseline && !t.splitKnown:
		return param.Errorf("baseline-until", "%s: the log has no event line %s with a t_ms ({baseline-until}): nothing to split at", t.cfg.Path, t.cfg.SplitEvent)
	case t.inBaseline:
		return param.Errorf("baseline-until", "%s: the log ended before the split ({baseline-until}): no treatment to judge", t.cfg.Path)
	}
	if t.burn != nil && t.fired == nil {
		if t.fired = t.burn.end(); t.fired != nil {
			return t.stopOnAlert()
		}
	}
	if t.rows > 0 {
		if err := t.close(); err != nil {
			return err
		}
	}
	return t.noLatency()
}

// noLatency refuses a log that ended without one latency, for a latency
// metric: the rule of the recorded analyses (hypothesis.RequireLatency), for
// the whole followed run. A log with some latencies is judged on those.
func (t *tail) noLatency() error {
	if t.latencies || t.counted == 0 {
		return nil
	}
	whose := fmt.Sprintf("%s has no latency_ms in any of its %d rows", t.cfg.Path, t.counted)
	switch {
	case t.goodNoLatency():
		return &hypothesis.NoLatencyError{What: param.Errorf("good", "{good} %q", t.cfg.GoodText), Whose: whose, Use: hypothesis.GoodInstead}
	case hypothesis.NeedsLatency(t.cfg.Rule.Metric):
		return &hypothesis.NoLatencyError{What: param.Errorf("metric", "metric %s", t.cfg.Rule.Metric), Whose: whose, Use: hypothesis.UseInstead}
	}
	return nil
}

// goodNoLatency says the burn-rate stop's SLI reads latency_ms and no row
// so far has one: an alert decided on it, or none, says nothing.
func (t *tail) goodNoLatency() bool {
	return t.cfg.Burn != nil && hypothesis.GoodNeedsLatency(t.cfg.GoodText) && !t.latencies
}

// sayNoLatency tells, once, that the windows of a latency metric have no
// value yet: online, the log may still give one.
func (t *tail) sayNoLatency() {
	if t.saidNoLat || t.latencies || !hypothesis.NeedsLatency(t.cfg.Rule.Metric) || t.cfg.Notice == nil {
		return
	}
	t.saidNoLat = true
	t.cfg.Notice(fmt.Sprintf("metric %s: no row so far has a latency_ms, so its windows have no value; a log that ends without one is refused", t.cfg.Rule.Metric))
}

// lineDone takes one whole line of the log: a request goes to its window
// (and the burn-rate alert), a run or event record to what it sets.
func (t *tail) lineDone(b []byte) error {
	t.line++
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	a, isReq, err := t.decode(b)
	if err != nil {
		return err
	}
	if !isReq {
		t.note(a)
		return nil
	}
	if !t.counts(a) {
		return nil
	}
	if err := t.split(a); err != nil {
		return err
	}
	if t.cfg.SizeMs > 0 {
		if err := t.addTimed(a); err != nil {
			return err
		}
	} else {
		t.add(a)
	}
	if err := t.alert(a); err != nil {
		return err
	}
	if t.cfg.SizeMs == 0 && t.rows == t.cfg.Size {
		return t.close()
	}
	return nil
}

// decode reads the line as ingest reads a canonical NDJSON line, an error
// naming the file and line.
func (t *tail) decode(b []byte) (ingest.Attempt, bool, error) {
	a, isReq, err := ingest.DecodeLine(b, t.line)
	if err != nil {
		var le *ingest.LineError
		if errors.As(err, &le) {
			le.File = t.cfg.Path
			return a, false, le
		}
		return a, false, fmt.Errorf("%s:%d: %w", t.cfg.Path, t.line, err)
	}
	return a, isReq, nil
}

// note takes what a record that is no request says: a run's role, the
// event that ends the baseline.
func (t *tail) note(a ingest.Attempt) {
	if a.Record == "run" && a.HasRole {
		t.roles[a.Run] = a.Role
	}
	if a.Record == "event" && !t.splitKnown && t.cfg.SplitEvent != "" && a.HasTMs && eventIs(a, t.cfg.SplitEvent) {
		t.splitAt, t.splitKnown = a.TMs, true
	}
}

// split ends the baseline at the first request past the split.
func (t *tail) split(a ingest.Attempt) error {
	if !t.inBaseline {
		return nil
	}
	if !a.HasTMs {
		return ingest.FieldError(t.cfg.Path, t.line, "t_ms", "missing: a time split ({baseline-until}) needs send times")
	}
	if t.splitKnown && a.TMs >= t.splitAt {
		return t.endBaseline()
	}
	return nil
}

// alert feeds the burn-rate alert, and stops when it fires.
func (t *tail) alert(a ingest.Attempt) error {
	if t.burn == nil || t.fired != nil || t.inBaseline {
		return nil
	}
	if !a.HasTMs {
		return &ingest.LineError{File: t.cfg.Path, Line: t.line, Field: "t_ms", Msg: "missing: a burn-rate alert needs send times"}
	}
	var good *bool
	switch {
	case t.cfg.Good != nil:
		var err error
		if good, err = t.cfg.Good(a); err != nil {
			return &ingest.LineError{File: t.cfg.Path, Line: t.line, Field: "good", Msg: err.Error()}
		}
	case a.Outcome != "":
		g := a.Outcome == "ok"
		good = &g
	}
	if t.fired = t.burn.add(a.TMs, a.LatencyMs, a.Count, good); t.fired != nil {
		return t.stopOnAlert()
	}
	return nil
}

// eventIs reports whether an event line is TYPE or TYPE:SUBJECT.
func eventIs(a ingest.Attempt, want string) bool {
	typ, subject, bySubject := strings.Cut(want, ":")
	return a.EventType == typ && (!bySubject || a.Subject == subject)
}

// endBaseline closes the baseline side at the split: its last window, its
// baseline, and the evaluator of the treatment, whose windows start again
// at 1 (duration windows aligned at the split).
func (t *tail) endBaseline() error {
	if t.rows > 0 {
		if err := t.close(); err != nil {
			return err
		}
	}
	t.inBaseline = false
	metric := t.cfg.Rule.metric()
	if t.cfg.Rule.Bound == nil || t.cfg.Rule.Bound.Relative() {
		b, err := Baseline(t.baseWins, metric)
		if err != nil {
			return param.Errorf("baseline-until", "%s: {baseline-until}: %w", t.cfg.Path, err)
		}
		t.cfg.Rule.Baseline, t.sum.Baseline = b, b
	}
	ev, err := NewEvaluator(t.cfg.Rule)
	if err != nil {
		return err
	}
	t.ev, t.origin, t.open, t.rows = ev, t.splitAt, Window{N: 1}, 0
	if t.cfg.Notice != nil {
		base := "-"
		if t.cfg.Rule.Baseline != nil {
			base = Show(t.cfg.Rule.Baseline, metric)
		}
		t.cfg.Notice(fmt.Sprintf("baseline: %s over %s before t = %s ms; judging the rest", base, hypothesis.Plural(int64(len(t.baseWins)), "window"),
			strconv.FormatFloat(t.splitAt, 'f', -1, 64)))
	}
	return nil
}

// stopOnAlert closes the open window as the stop: the alert fired.
func (t *tail) stopOnAlert() error {
	if t.goodNoLatency() {
		return t.noLatency()
	}
	t.sum.Burn = t.fired
	if t.rows == 0 { // the last window closed full before the alert was decided
		t.sum.StopWindow = t.open.N - 1
		return errStop
	}
	t.ev.ForceStop()
	if err := t.close(); err != nil {
		return err
	}
	return errStop
}

// addTimed places a row in its duration window, closing the open window
// first when the row belongs to a later one.
func (t *tail) addTimed(a ingest.Attempt) error {
	if !a.HasTMs {
		return &ingest.LineError{File: t.cfg.Path, Line: t.line, Field: "t_ms", Msg: "missing: duration windows need send times"}
	}
	n := int64(math.Floor((a.TMs-t.origin)/t.cfg.SizeMs)) + 1
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
	if a.Tagged {
		w.Tagged += a.Count
	}
	w.TagField = w.TagField || a.HasTagged
	t.stats.add(a.LatencyMs, a.HasLatency, a.Count)
	t.latencies = t.latencies || a.HasLatency
	t.counted++
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
	t.sayNoLatency()
	var err error
	if t.open.Value, err = t.stats.value(t.open.Requests, t.cfg.SizeMs); err != nil {
		return fmt.Errorf("%s: %w", t.cfg.Path, err)
	}
	t.stats.reset()
	if t.inBaseline {
		t.baseWins = append(t.baseWins, t.open)
		t.open, t.rows = Window{N: t.open.N + 1}, 0
		return nil
	}
	v := t.ev.Feed(t.open)
	t.sum.add(v)
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

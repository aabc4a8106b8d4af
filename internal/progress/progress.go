// Package progress owns the progress bars that long work (ingest of a large
// file, simulators, replay with --speed, report generation) shows on stderr.
//
// It is a thin wrapper over github.com/schollz/progressbar/v3 so that callers
// get one look everywhere (description, count, rate, ETA) and one rule: a bar
// draws only when its writer is a terminal. In CI logs and pipes a bar is a
// no-op, because carriage-return redraws turn a log into noise.
package progress

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// redrawEvery caps redraws; without it a tight loop of Add calls spends more
// time drawing than working.
const redrawEvery = 100 * time.Millisecond

// Bar is a progress bar, or a no-op when it was made disabled.
// A nil *Bar is also a valid no-op, so callers need no nil checks.
type Bar struct {
	pb *progressbar.ProgressBar
}

// New returns a bar that writes to w and counts unit, a plural a person
// reads ("rows", "windows", "requests", "sections"): the rate shows as
// "12 windows/s", never "it/s". When enabled is false it writes nothing at
// all; pass IsTerminal(os.Stderr) for the usual rule. A total <= 0 means the
// amount of work is unknown: the bar shows a spinner, count and rate instead
// (redrawn by a goroutine until Finish, so always call Finish).
func New(w io.Writer, enabled bool, total int64, description, unit string) *Bar {
	return newBar(w, enabled, total, description, progressbar.OptionSetItsString(unit))
}

// NewBytes is a bar whose units are bytes: it shows MB done, MB/s and an ETA.
func NewBytes(w io.Writer, enabled bool, total int64, description string) *Bar {
	return newBar(w, enabled, total, description, progressbar.OptionShowBytes(true))
}

// quietEnv tells whether the environment asks for no bars: CI logs, or a
// terminal that cannot redraw.
func quietEnv() bool { return os.Getenv("CI") != "" || os.Getenv("TERM") == "dumb" }

func newBar(w io.Writer, enabled bool, total int64, description string, extra ...progressbar.Option) *Bar {
	if !enabled || w == nil || quietEnv() {
		return &Bar{}
	}
	if total <= 0 {
		total = -1
	}
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(description),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionThrottle(redrawEvery),
		progressbar.OptionSetWidth(30),
		// Done, the bar leaves no line behind: what the command prints
		// next starts where the bar was.
		progressbar.OptionClearOnFinish(),
	}
	pb := progressbar.NewOptions64(total, append(opts, extra...)...)
	// Drawn at once, the bar's clock starts now: its rate is the work over
	// the time since it appeared, not one unit over the microseconds before
	// the first Add (which showed "1174119 it/s").
	_ = pb.RenderBlank()
	return &Bar{pb: pb}
}

// IsTerminal reports whether f is a terminal: the condition under which the
// CLI enables bars on stderr.
func IsTerminal(f *os.File) bool {
	return f != nil && term.IsTerminal(int(f.Fd()))
}

// Add advances the bar by n units of work.
func (b *Bar) Add(n int64) {
	if b == nil || b.pb == nil {
		return
	}
	// A progress bar must never fail the work it reports on, so errors from
	// the writer are dropped.
	_ = b.pb.Add64(n)
}

// Set moves the bar to n units of work done.
func (b *Bar) Set(n int64) {
	if b == nil || b.pb == nil {
		return
	}
	_ = b.pb.Set64(n)
}

// Clear blanks the bar's line, so a line written to the same terminal (a
// table row on stdout) starts clean; the next Add draws the bar again below
// it.
func (b *Bar) Clear() {
	if b == nil || b.pb == nil || b.pb.IsFinished() {
		return
	}
	_ = b.pb.Clear()
}

// Finish ends the bar and clears its line. Calling it twice is safe.
func (b *Bar) Finish() {
	if b == nil || b.pb == nil || b.pb.IsFinished() {
		return
	}
	_ = b.pb.Finish()
}

package replay

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The rotation tests follow a real file with windows of 2 rows, baseline 1
// and margin 0 (a window falsifies when a row in it is not ok), stop after 1.
// The old content is 4 long ok lines (2 windows, no stop); what replaces it
// fails, and the stop it triggers must fire.
var (
	okLines   = strings.Repeat(`{"run":"r","req":1000000,"outcome":"ok","latency_ms":12.5}`+"\n", 4)
	failLines = strings.Repeat(`{"run":"r","outcome":"error","tagged":true}`+"\n", 2) // shorter than okLines
)

// watched is a Follow running in the background on a file.
type watched struct {
	path     string
	verdicts chan string
	notices  chan string
	done     chan error
	sum      Summary
}

func startFollow(t *testing.T, content string) *watched {
	t.Helper()
	w := &watched{
		path:     filepath.Join(t.TempDir(), "live.ndjson"),
		verdicts: make(chan string, 100), notices: make(chan string, 100), done: make(chan error, 1),
	}
	if err := os.WriteFile(w.path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	// The deadline turns a follow that misses the new content into a
	// failure rather than a hung test; no verdict depends on timing.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	c := FollowConfig{Path: w.path, Size: 2, Poll: 2 * time.Millisecond,
		Rule:   Rule{Baseline: big.NewRat(1, 1), Margin: new(big.Rat), StopAfter: 1},
		Notice: func(m string) { w.notices <- m }}
	go func() {
		var err error
		w.sum, err = Follow(ctx, c, func(v Verdict) error {
			w.verdicts <- fmt.Sprintf("%d %s", v.Window, verdictText(v))
			return nil
		})
		w.done <- err
	}()
	return w
}

// expect waits for the next n verdicts.
func (w *watched) expect(t *testing.T, want ...string) {
	t.Helper()
	var got []string
	for len(got) < len(want) {
		select {
		case v := <-w.verdicts:
			got = append(got, v)
		case err := <-w.done:
			w.done <- err // for end; the verdicts it sent are all in the channel
			for len(got) < len(want) && len(w.verdicts) > 0 {
				got = append(got, <-w.verdicts)
			}
			if len(got) < len(want) {
				t.Fatalf("follow ended (%v) after verdicts %q; want %q", err, got, want)
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

// end waits for Follow to return and wants the stop at window stop.
func (w *watched) end(t *testing.T, stop int64) {
	t.Helper()
	if err := <-w.done; err != nil {
		t.Fatal(err)
	}
	if w.sum.StopWindow != stop {
		t.Errorf("stop window %d, want %d", w.sum.StopWindow, stop)
	}
}

// noticed wants a notice containing s among those given so far.
func (w *watched) noticed(t *testing.T, s string) {
	t.Helper()
	var all []string
	for {
		select {
		case m := <-w.notices:
			if strings.Contains(m, s) {
				return
			}
			all = append(all, m)
		default:
			t.Errorf("no notice with %q; got %q", s, all)
			return
		}
	}
}

// TestFollowTruncated: the log is truncated and rewritten shorter than what
// was read. Follow reads it from its first line, and the stop fires.
func TestFollowTruncated(t *testing.T) {
	w := startFollow(t, okLines)
	w.expect(t, "1 no 0 0", "2 no 0 0")
	if err := os.WriteFile(w.path, []byte(failLines), 0o644); err != nil {
		t.Fatal(err)
	}
	w.expect(t, "3 yes 1 2 stop")
	w.end(t, 3)
	w.noticed(t, w.path+" was truncated; reading it from the start")
}

// TestFollowRewrittenLonger: truncated and written past the old offset
// before Follow looks again: the first bytes changed, so it starts over
// instead of reading the new content from the old offset, mid-line.
func TestFollowRewrittenLonger(t *testing.T) {
	w := startFollow(t, okLines)
	w.expect(t, "1 no 0 0", "2 no 0 0")
	longer := strings.Repeat(`{"run":"r","req":2000000,"outcome":"error","tagged":true}`+"\n", 6)
	if err := os.WriteFile(w.path, []byte(longer), 0o644); err != nil {
		t.Fatal(err)
	}
	w.expect(t, "3 yes 1 2 stop")
	w.end(t, 3)
	w.noticed(t, "was truncated")
}

// TestFollowTruncatedLineNumbers: after a truncation, line numbers count
// from the new first line (a bad line 2 is line 2, not 6).
func TestFollowTruncatedLineNumbers(t *testing.T) {
	w := startFollow(t, okLines)
	w.expect(t, "1 no 0 0", "2 no 0 0")
	if err := os.WriteFile(w.path, []byte(`{"run":"r","outcome":"ok"}`+"\n"+`{"run":`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := <-w.done
	if err == nil || !strings.HasPrefix(err.Error(), w.path+":2:") {
		t.Errorf("got %v, want an error at %s:2", err, w.path)
	}
}

// TestFollowMovedAndRecreated: the log is rotated with mv while its writer
// still appends to the old file, then a new log appears at the name. Follow
// reads the old file to its end, then the new one, and the stop fires.
func TestFollowMovedAndRecreated(t *testing.T) {
	w := startFollow(t, okLines)
	w.expect(t, "1 no 0 0", "2 no 0 0")
	old := w.path + ".1"
	if err := os.Rename(w.path, old); err != nil {
		t.Fatal(err)
	}
	appendTo(t, old, `{"run":"r","outcome":"ok"}`+"\n"+`{"run":"r","outcome":"ok"}`+"\n")
	if err := os.WriteFile(w.path, []byte(failLines), 0o644); err != nil {
		t.Fatal(err)
	}
	w.expect(t, "3 no 0 0", "4 yes 1 2 stop")
	w.end(t, 4)
	w.noticed(t, w.path+" was replaced by a new file; reading the new file from its first line")
}

// TestFollowRemovedAndRecreated: rm, then a new file at the name.
func TestFollowRemovedAndRecreated(t *testing.T) {
	w := startFollow(t, okLines)
	w.expect(t, "1 no 0 0", "2 no 0 0")
	if err := os.Remove(w.path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.path, []byte(failLines), 0o644); err != nil {
		t.Fatal(err)
	}
	w.expect(t, "3 yes 1 2 stop")
	w.end(t, 3)
	w.noticed(t, "was replaced")
}

// TestFollowRemovedWaits: a removed log is waited for, and said so once.
func TestFollowRemovedWaits(t *testing.T) {
	w := startFollow(t, okLines)
	w.expect(t, "1 no 0 0", "2 no 0 0")
	if err := os.Remove(w.path); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-w.notices:
		if m != w.path+" was removed; waiting for a new file at that path" {
			t.Errorf("notice %q", m)
		}
	case err := <-w.done:
		t.Fatalf("follow ended (%v) without a notice of the removal", err)
	}
	if err := os.WriteFile(w.path, []byte(failLines), 0o644); err != nil {
		t.Fatal(err)
	}
	w.expect(t, "3 yes 1 2 stop")
	w.end(t, 3)
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

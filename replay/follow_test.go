package replay

import (
	"context"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestFollowRoles: rows count when their role is experiment or when they
// have none; a run record gives a role to the later lines of its run; a
// control run (by role or by name) is skipped. Windows of 2 rows, baseline
// 1, margin 0: a window falsifies when any row in it is not ok.
func TestFollowRoles(t *testing.T) {
	log := strings.Join([]string{
		`{"record":"experiment","experiment":"x","params":{"window":2}}`,
		`{"run":"control","outcome":"error"}`,                  // control by run name: skipped
		`{"run":"a","role":"control","outcome":"error"}`,       // control by role: skipped
		`{"run":"live","outcome":"ok"}`,                        // no role: counts
		`{"run":"live","outcome":"ok","count":3}`,              // pre-binned: 3 requests, one row
		`{"record":"run","run":"b","role":"control"}`,          //
		`{"run":"b","outcome":"error"}`,                        // control by run record: skipped
		`{"run":"experiment","outcome":"error","tagged":true}`, // experiment by run name
		`{"run":"c","role":"experiment","outcome":"ok"}`,       //
		`{"record":"event","run":"c","type":"state","t_ms":1}`, // not a request
		`{"run":"c","role":"experiment","outcome":"timeout"}`,  // closes nothing: the last window is short
	}, "\n") + "\n"
	got := follow(t, log, Rule{Baseline: big.NewRat(1, 1), Margin: new(big.Rat), StopAfter: 3}, 2)
	want := []string{"no 0 0", "yes 1 1", "yes 2 1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

// TestFollowLastLineWithoutNewline: at the end of the log a last line
// without a newline is complete.
func TestFollowLastLineWithoutNewline(t *testing.T) {
	log := `{"run":"r","outcome":"ok"}` + "\n" + `{"run":"r","outcome":"error","tagged":true}`
	got := follow(t, log, Rule{Baseline: big.NewRat(1, 1), Margin: big.NewRat(1, 4), StopAfter: 1}, 2)
	if diff := cmp.Diff([]string{"yes 1 1 stop"}, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

func follow(t *testing.T, log string, r Rule, size int64) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "live.ndjson")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	_, err := Follow(context.Background(), FollowConfig{Path: path, Rule: r, Size: size, UntilEOF: true}, func(v Verdict) error {
		got = append(got, verdictText(v))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestSchedule: windows close at their last t_ms, from the first window's
// first t_ms, speed times faster; without t_ms there is no schedule.
func TestSchedule(t *testing.T) {
	ws := []Window{
		{FirstTMs: 100, LastTMs: 300, HasTMs: true},
		{FirstTMs: 310, LastTMs: 900, HasTMs: true},
	}
	got, err := Schedule(ws, 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]time.Duration{100 * time.Millisecond, 400 * time.Millisecond}, got); diff != "" {
		t.Errorf("schedule (-want +got):\n%s", diff)
	}
	if _, err := Schedule([]Window{{}}, 1); err != ErrNoTime {
		t.Errorf("without t_ms: got %v, want ErrNoTime", err)
	}
}

// TestParseShare reads decimals exactly and refuses floats' notations.
func TestParseShare(t *testing.T) {
	for in, want := range map[string]string{"0.10": "1/10", "0.955": "191/200", "1": "1/1", "24/25": "24/25"} {
		r, err := ParseShare(in)
		if err != nil || r.String() != want {
			t.Errorf("ParseShare(%q) = %v, %v; want %s", in, r, err, want)
		}
	}
	for _, in := range []string{"1e-1", "ten", ""} {
		if _, err := ParseShare(in); err == nil {
			t.Errorf("ParseShare(%q): want an error", in)
		}
	}
	if _, err := ParseMargin("0.0000005"); err == nil {
		t.Errorf("ParseMargin(0.0000005): want an error (finer than a millionth)")
	}
}

// TestFollowSplitAtEvent: --baseline-until EVENT on a live log splits at
// the first event line of that type (and subject); the baseline is the
// mean of the windows before it, here the case of
// analyze/testdata/hypotheses/split-event.txt: windows of 2, baseline
// (1 + 1/2) / 2 = 3/4, margin 1/4, so the treatment's 1/2 ties and its 0
// falsifies. A row sent before the event line but after it in time still
// counts as the baseline's, as in the SQL (t_ms < split).
func TestFollowSplitAtEvent(t *testing.T) {
	log := strings.Join([]string{
		`{"run":"only","t_ms":0,"outcome":"ok"}`,
		`{"run":"only","t_ms":500,"outcome":"ok"}`,
		`{"record":"event","type":"action_start","subject":"warm-up","t_ms":900}`, // another subject: not the split
		`{"run":"only","t_ms":1000,"outcome":"ok"}`,
		`{"record":"event","type":"action_start","subject":"inject-latency","t_ms":1500}`,
		`{"run":"only","t_ms":1400,"outcome":"error"}`,
		`{"run":"only","t_ms":1500,"outcome":"ok"}`,
		`{"run":"only","t_ms":1600,"outcome":"error"}`,
		`{"run":"only","t_ms":1700,"outcome":"error"}`,
		`{"run":"only","t_ms":1800,"outcome":"error"}`,
	}, "\n") + "\n"
	path := filepath.Join(t.TempDir(), "live.ndjson")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	cfg := FollowConfig{Path: path, Rule: Rule{Margin: big.NewRat(1, 4), StopAfter: 1, Damage: DamageFailed}, Size: 2,
		UntilEOF: true, SplitEvent: "action_start:inject-latency"}
	s, err := Follow(context.Background(), cfg, func(v Verdict) error { got = append(got, verdictText(v)); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"no 0 1", "yes 1 3 stop"}, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	if s.Baseline == nil || s.Baseline.Cmp(big.NewRat(3, 4)) != 0 {
		t.Errorf("baseline %v, want 3/4", s.Baseline)
	}
}

// Percent's int64 path prints what big.Rat's FloatString prints, halves
// (rounded away from zero) and signs included.
func TestPercentFastPath(t *testing.T) {
	r := rand.New(rand.NewPCG(20261201, 21))
	cases := [][2]int64{{1, 20000}, {-1, 20000}, {3, 20000}, {1, 8}, {1, 80000}, {-1, 80000}, {3, 80000}, {-3, 80000}, {1, 3}, {2, 3}, {0, 1}, {1, 1}, {-1, 1},
		{1<<49 - 1, 1<<49 - 3}, {1, 1<<49 - 1}}
	for range 20000 {
		d := 1 + r.Int64N([]int64{10, 1000, 1 << 40}[r.IntN(3)])
		cases = append(cases, [2]int64{r.Int64N(2*d+1) - d, d})
	}
	for _, c := range cases {
		x := big.NewRat(c[0], c[1])
		want := new(big.Rat).Mul(x, big.NewRat(100, 1)).FloatString(2) + " %"
		got, ok := percent64(x)
		if !ok {
			t.Fatalf("%v: no int64 path", x)
		}
		if got != want {
			t.Fatalf("%v: %q, want %q", x, got, want)
		}
	}
	if _, ok := percent64(big.NewRat(1<<60, 3)); ok {
		t.Fatal("1<<60 / 3 took the int64 path")
	}
}

package replay

import (
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCases runs the data-driven window cases under testdata/cases. A case
// file sets the rule, then lists windows with the verdict each must get:
//
//	baseline 0.96              the baseline as an exact share, or
//	control 24/25 1/1 ...      control windows as ok/requests: the baseline is their mean
//	margin 0.10
//	stop-after 2
//	window REQUESTS OK DAMAGE | FALSIFIED STREAK DAMAGE_SO_FAR [stop]
//	rows oOxX | ...            one window given per request: o ok, O ok and
//	                           tagged, x not ok, X not ok and tagged
//
// Lines starting with # are comments.
func TestCases(t *testing.T) {
	files, err := filepath.Glob("testdata/cases/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			c, err := readCase(f)
			if err != nil {
				t.Fatal(err)
			}
			ev, err := NewEvaluator(c.rule)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range c.windows {
				got = append(got, verdictText(ev.Feed(w)))
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s", diff)
			}
		})
	}
}

type testCase struct {
	rule    Rule
	windows []Window
	want    []string // verdicts as verdictText writes them
}

// verdictText is a verdict as the case files write it.
func verdictText(v Verdict) string {
	s := fmt.Sprintf("%s %d %d", yesNo(v.Falsified), v.Streak, v.DamageSoFar)
	if v.Stop {
		s += " stop"
	}
	return s
}

func readCase(path string) (testCase, error) {
	var c testCase
	raw, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	for i, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := c.directive(line); err != nil {
			return c, fmt.Errorf("%s:%d: %v", path, i+1, err)
		}
	}
	return c, nil
}

func (c *testCase) directive(line string) error {
	input, verdict, hasVerdict := strings.Cut(line, "|")
	f := strings.Fields(input)
	var err error
	switch {
	case f[0] == "baseline" && len(f) == 2:
		c.rule.Baseline, err = ParseShare(f[1])
	case f[0] == "control":
		c.rule.Baseline, err = controlBaseline(f[1:])
	case f[0] == "margin" && len(f) == 2:
		c.rule.Margin, err = ParseMargin(f[1])
	case f[0] == "stop-after" && len(f) == 2:
		c.rule.StopAfter, err = strconv.Atoi(f[1])
	case f[0] == "window" && len(f) == 4 && hasVerdict:
		w := Window{N: int64(len(c.windows) + 1)}
		w.Requests, w.OK, w.Damage, err = threeInts(f[1:])
		c.add(w, verdict)
	case f[0] == "rows" && len(f) == 2 && hasVerdict:
		c.add(rowsWindow(int64(len(c.windows)+1), f[1]), verdict)
	default:
		return fmt.Errorf("cannot read %q", line)
	}
	return err
}

func (c *testCase) add(w Window, verdict string) {
	c.windows = append(c.windows, w)
	c.want = append(c.want, strings.Join(strings.Fields(verdict), " "))
}

func controlBaseline(fracs []string) (*big.Rat, error) {
	var ws []Window
	for _, s := range fracs {
		var ok, n int64
		if _, err := fmt.Sscanf(s, "%d/%d", &ok, &n); err != nil {
			return nil, fmt.Errorf("control window %q: want ok/requests", s)
		}
		ws = append(ws, Window{Requests: n, OK: ok})
	}
	return Baseline(ws, "ok_share")
}

func threeInts(f []string) (a, b, c int64, err error) {
	var xs [3]int64
	for i, s := range f {
		if xs[i], err = strconv.ParseInt(s, 10, 64); err != nil {
			return 0, 0, 0, err
		}
	}
	return xs[0], xs[1], xs[2], nil
}

func rowsWindow(n int64, rows string) Window {
	w := Window{N: n, Requests: int64(len(rows))}
	for _, r := range rows {
		switch r {
		case 'o', 'O':
			w.OK++
		case 'X':
			w.Damage++
		}
	}
	return w
}

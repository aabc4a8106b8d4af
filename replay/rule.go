// Package replay walks an experiment run window by window, as if it were
// live, and decides the stop criterion "stop after K consecutive falsified
// windows" on each window as it closes. The same Evaluator serves a recorded
// run (Load, Walk: rewind replay) and a growing log (Follow: rewind watch).
//
// The rule is the one the SQL analyses falsification and stop-damage apply,
// in exact rationals: the baseline is the mean of the control run's
// per-window ok shares; a window is falsified when ok/requests is strictly
// below baseline - margin (a tie does not falsify); a streak counts
// consecutive falsified windows that have requests; the stop window is the
// first that completes K of them.
package replay

import (
	"fmt"
	"math/big"
	"strings"
)

// Rule is the stop criterion.
type Rule struct {
	Baseline  *big.Rat // mean ok share of the control run's windows
	Margin    *big.Rat // share subtracted from the baseline
	StopAfter int      // consecutive falsified windows that stop (K >= 1)
}

// Threshold is baseline - margin: a window below it is falsified.
func (r Rule) Threshold() *big.Rat { return new(big.Rat).Sub(r.Baseline, r.Margin) }

func (r Rule) check() error {
	if r.Baseline == nil || r.Margin == nil {
		return fmt.Errorf("rule needs a baseline and a margin")
	}
	if r.StopAfter < 1 {
		return fmt.Errorf("stop after %d windows: want 1 or more", r.StopAfter)
	}
	return nil
}

// Window is one closed window's counts.
type Window struct {
	N        int64   // 1-based window number
	Requests int64   // requests in the window
	OK       int64   // requests answered ok
	Damage   int64   // tagged requests not answered ok
	FirstTMs float64 // ms, earliest t_ms; valid when HasTMs
	LastTMs  float64 // ms, latest t_ms; valid when HasTMs
	HasTMs   bool
}

// Verdict is the rule's decision on one window.
type Verdict struct {
	Window      int64
	Requests    int64
	OK          int64
	OKShare     *big.Rat // ok / requests; nil for an empty window
	Threshold   *big.Rat
	Falsified   bool
	Streak      int   // consecutive falsified windows ending here
	DamageSoFar int64 // tagged requests not ok, in this window and all before
	Stop        bool  // this window completes the streak that stops (first time only)
}

// Evaluator applies a Rule online: feed it closed windows in order. It keeps
// only the streak and running sums, so it runs in constant memory.
type Evaluator struct {
	rule      Rule
	threshold *big.Rat
	streak    int
	damage    int64
	stopped   bool
}

// NewEvaluator returns an Evaluator for r.
func NewEvaluator(r Rule) (*Evaluator, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	return &Evaluator{rule: r, threshold: r.Threshold()}, nil
}

// Feed decides one closed window. A window without requests is not
// falsified and leaves the streak as it is (as stop-damage treats an empty
// duration window).
func (e *Evaluator) Feed(w Window) Verdict {
	v := Verdict{Window: w.N, Requests: w.Requests, OK: w.OK, Threshold: e.threshold}
	e.damage += w.Damage
	v.DamageSoFar = e.damage
	if w.Requests > 0 {
		v.OKShare = big.NewRat(w.OK, w.Requests)
		v.Falsified = v.OKShare.Cmp(e.threshold) < 0
		if v.Falsified {
			e.streak++
		} else {
			e.streak = 0
		}
	}
	v.Streak = e.streak
	if !e.stopped && e.streak >= e.rule.StopAfter {
		v.Stop, e.stopped = true, true
	}
	return v
}

// Stopped reports whether the stop criterion has fired.
func (e *Evaluator) Stopped() bool { return e.stopped }

// Baseline is the mean of the windows' ok shares, exactly. Windows without
// requests do not count. It fails when no window has requests.
func Baseline(ws []Window) (*big.Rat, error) {
	sum := new(big.Rat)
	n := int64(0)
	for _, w := range ws {
		if w.Requests > 0 {
			sum.Add(sum, big.NewRat(w.OK, w.Requests))
			n++
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("no control window has requests: no baseline")
	}
	return sum.Quo(sum, big.NewRat(n, 1)), nil
}

// ParseShare reads a share given as a decimal ("0.10", "0.955") or a
// fraction ("24/25") exactly: never through a float64.
func ParseShare(s string) (*big.Rat, error) {
	t := strings.TrimSpace(s)
	r, ok := new(big.Rat).SetString(t)
	if !ok || strings.ContainsAny(t, "eE") {
		return nil, fmt.Errorf("%q: want a decimal share such as 0.10", s)
	}
	return r, nil
}

// ParseMargin reads a margin as ParseShare does and checks that it is a
// whole number of millionths, the resolution of the SQL analyses, so that
// replay and stop-damage decide the same windows.
func ParseMargin(s string) (*big.Rat, error) {
	r, err := ParseShare(s)
	if err != nil {
		return nil, err
	}
	if !new(big.Rat).Mul(r, big.NewRat(1000000, 1)).IsInt() {
		return nil, fmt.Errorf("%q: want at most 6 decimals (the analyses count margins in millionths)", s)
	}
	return r, nil
}

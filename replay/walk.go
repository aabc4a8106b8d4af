package replay

import (
	"context"
	"math/big"
	"time"

	"github.com/rewind-dev/rewind/internal/param"
)

// Summary is what a walk comes to.
type Summary struct {
	Windows         int       // windows decided
	StopWindow      int64     // 1-based window where the stop fired; 0 when it never did
	DamageUntilStop int64     // damage up to and including the stop window (all when no stop)
	DamageAfter     int64     // damage after the stop window: what the stop prevents
	TotalDamage     int64     // damage in every window decided
	Burn            *BurnFire // the burn-rate alert that stopped a watch
	TagsSeen        bool      // DamageAuto: a line gave the tagged field
	Baseline        *big.Rat  // the baseline a time split took (Follow with SplitMs or SplitEvent)
}

// add counts one decided window.
func (s *Summary) add(v Verdict) {
	s.Windows++
	s.TotalDamage += v.Damage
	if v.Stop {
		s.StopWindow = v.Window
	}
	if s.StopWindow == 0 || v.Stop {
		s.DamageUntilStop += v.Damage
	} else {
		s.DamageAfter += v.Damage
	}
}

// ErrNoTime means --speed was asked of a run whose log has no t_ms.
var ErrNoTime = param.Errorf("speed", "the experiment run has no t_ms, so it cannot be paced: replay it with {max}")

// Walk decides the recording's windows in order and calls fn with each
// verdict. It walks the whole run, past the stop, so the summary can tell
// the damage the stop would have prevented. With speed > 0 it waits between
// windows as the log's t_ms did, speed times faster; with speed 0 it does
// not wait.
func (r *Recording) Walk(ctx context.Context, speed float64, fn func(Verdict) error) (Summary, error) {
	var s Summary
	ev, err := NewEvaluator(r.Rule)
	if err != nil {
		return s, err
	}
	var at []time.Duration
	if speed > 0 {
		if at, err = Schedule(r.Windows, speed); err != nil {
			return s, err
		}
	}
	start := time.Now()
	for i, w := range r.Windows {
		if at != nil {
			if err := sleepUntil(ctx, start.Add(at[i])); err != nil {
				return s, err
			}
		}
		v := ev.Feed(w)
		s.add(v)
		if err := fn(v); err != nil {
			return s, err
		}
	}
	return s, nil
}

// Schedule is when each window closes, from the start of the walk: its last
// t_ms less the first window's first t_ms, divided by speed.
func Schedule(ws []Window, speed float64) ([]time.Duration, error) {
	at := make([]time.Duration, len(ws))
	for i, w := range ws {
		if !w.HasTMs {
			return nil, ErrNoTime
		}
		ms := (w.LastTMs - ws[0].FirstTMs) / speed
		at[i] = max(time.Duration(ms*float64(time.Millisecond)), 0)
	}
	return at, nil
}

func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	return sleep(ctx, d)
}

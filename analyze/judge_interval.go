package analyze

import (
	"math"
	"time"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/param"
)

// judgeIv is one judgement: the steps that start in [from, until), in ms
// of test time; from NaN takes every step (count steps).
type judgeIv struct {
	n           int
	from, until float64
}

func (iv judgeIv) pick(start, value []float64) []float64 {
	if math.IsNaN(iv.from) {
		return value
	}
	var out []float64
	for i, s := range start {
		if s >= iv.from && s < iv.until {
			out = append(out, value[i])
		}
	}
	return out
}

// intervals are the judgements to make: one over every step from the
// warm-up, or one at each Warmup + k·Interval until the last step is in,
// growing from the warm-up or, with a lookback, over the last Lookback.
func (o JudgeOptions) intervals(arrays map[string]judgeArrays) ([]judgeIv, error) {
	if o.StepN > 0 {
		if o.Interval > 0 || o.Warmup > 0 || o.Lookback > 0 {
			return nil, param.Errorf("interval", "{interval}, {warmup} and {lookback} need duration steps ({step}), not {step-requests}")
		}
		return []judgeIv{{n: 1, from: math.NaN(), until: math.NaN()}}, nil
	}
	if o.Lookback > 0 && o.Interval == 0 {
		return nil, param.Errorf("lookback", "{lookback} needs {interval}: it is the window each interval's judgement looks back over")
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"interval", o.Interval}, {"warmup", o.Warmup}, {"lookback", o.Lookback}} {
		if d.v%o.Step != 0 {
			return nil, param.Errorf(d.name, "{"+d.name+"} %v is not a whole number of steps of %v: a judgement takes whole steps", d.v, o.Step)
		}
	}
	step, warm := msOf(o.Step), msOf(o.Warmup)
	end := math.Inf(-1)
	for _, a := range arrays {
		for _, starts := range a.start {
			for _, s := range starts {
				end = math.Max(end, s+step)
			}
		}
	}
	if end <= warm {
		return nil, param.Errorf("warmup", "{warmup} %v leaves no step: the last step ends at %s ms", o.Warmup, hypothesis.TrimFloat(end))
	}
	if o.Interval == 0 {
		return []judgeIv{{n: 1, from: warm, until: end}}, nil
	}
	var out []judgeIv
	for k := 1; ; k++ {
		until := warm + float64(k)*msOf(o.Interval)
		from := warm
		if o.Lookback > 0 {
			from = math.Max(warm, until-msOf(o.Lookback))
		}
		out = append(out, judgeIv{n: k, from: from, until: until})
		if until >= end {
			return out, nil
		}
	}
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

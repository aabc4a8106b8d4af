package sparktest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// MeanTolerance is how far a mean latency computed on Spark may be from
// the local one, relative: the local mean is DuckDB's floating-point sum
// in its threads' order, Spark's an exact decimal sum (docs/scale.md,
// Exactness).
const MeanTolerance = 1e-12

// SameReportJSON reports how the report JSON spark differs from local:
// nil when they are the same bytes, or when they differ only in the
// numbers docs/scale.md lists as floating-point sums, each within
// MeanTolerance: the control-vs-experiment table's mean row (control and
// experiment relative to themselves, delta and relative relative to the
// means' size) and the y values of a "mean latency per …" chart.
func SameReportJSON(local, spark []byte) error {
	if bytes.Equal(local, spark) {
		return nil
	}
	var a, b any
	for _, p := range []struct {
		in  []byte
		out *any
	}{{local, &a}, {spark, &b}} {
		d := json.NewDecoder(bytes.NewReader(p.in))
		d.UseNumber()
		if err := d.Decode(p.out); err != nil {
			return fmt.Errorf("report JSON: %w", err)
		}
	}
	return sameJSON("", a, b, 0)
}

// sameJSON compares a and b at path; tol > 0 lets numbers differ by tol
// times scale (see near).
func sameJSON(path string, a, b any, tol float64) error {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return fmt.Errorf("%s: local %v, Spark %v", path, a, b)
		}
		if x["metric"] == "mean" && x["unit"] == "ms" {
			return sameMeanRow(path, x, y)
		}
		for k, v := range x {
			t := tol
			if title, _ := x["title"].(string); k == "series" && strings.HasPrefix(title, "mean latency per ") {
				t = MeanTolerance
			}
			if err := sameJSON(path+"."+k, v, y[k], t); err != nil {
				return err
			}
		}
		return nil
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return fmt.Errorf("%s: local %d items, Spark %v", path, len(x), b)
		}
		for i := range x {
			if err := sameJSON(fmt.Sprintf("%s[%d]", path, i), x[i], y[i], tol); err != nil {
				return err
			}
		}
		return nil
	case json.Number:
		y, ok := b.(json.Number)
		if ok && (x == y || tol > 0 && near(x, y, tol, 0)) {
			return nil
		}
		return fmt.Errorf("%s: local %v, Spark %v", path, a, b)
	}
	if a != b {
		return fmt.Errorf("%s: local %v, Spark %v", path, a, b)
	}
	return nil
}

// sameMeanRow compares the delta table's mean row: control and experiment
// within MeanTolerance of themselves; delta and relative, differences of
// the two, within MeanTolerance of the means (over control for relative).
func sameMeanRow(path string, x, y map[string]any) error {
	num := func(v any) float64 {
		n, _ := v.(json.Number)
		f, _ := n.Float64()
		return f
	}
	c, e := num(x["control"]), num(x["experiment"])
	scale := map[string]float64{"control": 0, "experiment": 0, "delta": math.Abs(c) + math.Abs(e), "relative": (math.Abs(c) + math.Abs(e)) / math.Abs(c)}
	for k, v := range x {
		s, ok := scale[k]
		if !ok {
			if v != y[k] {
				return fmt.Errorf("%s.%s: local %v, Spark %v", path, k, v, y[k])
			}
			continue
		}
		a, aok := v.(json.Number)
		b, bok := y[k].(json.Number)
		if aok != bok || aok && a != b && !near(a, b, MeanTolerance, s) || !aok && v != y[k] {
			return fmt.Errorf("%s.%s: local %v, Spark %v (a mean: within %g)", path, k, v, y[k], MeanTolerance)
		}
	}
	if len(x) != len(y) {
		return fmt.Errorf("%s: local %v, Spark %v", path, x, y)
	}
	return nil
}

// near reports |a - b| <= tol · scale, scale being max(|a|, |b|) when 0.
func near(a, b json.Number, tol, scale float64) bool {
	x, err1 := a.Float64()
	y, err2 := b.Float64()
	if err1 != nil || err2 != nil {
		return false
	}
	if scale == 0 {
		scale = math.Max(math.Abs(x), math.Abs(y))
	}
	return math.Abs(x-y) <= tol*scale
}

package analyze

import (
	"strconv"
	"strings"
)

// BoundRow is the worst case a retry chain allows, independent of any run.
// The numbers come from the model that defines them (sim/storm's Bounds):
// analyze does not import the simulators, it only lays the numbers out as a
// Result, so that they print like every other analysis.
type BoundRow struct {
	Allowed          int     // calls per request: the product of the layers' attempts
	WorstWaitTicks   int     // every attempt plus the full backoff ceiling after it
	WorstWaitSeconds float64 // WorstWaitTicks in seconds
	ThresholdRatio   float64 // WorstWaitTicks / the caller's threshold
	SpanTicks        int     // longest time from the first attempt to the last
}

// boundsUnits stay here: Bounds computes its rows in Go, not by a macro.
var boundsUnits = map[string]string{
	"allowed": "calls", "worst_wait_ticks": "ticks", "worst_wait_s": "s", "x_threshold": "x", "span_ticks": "ticks",
}

// Bounds returns one row per depth of the chain (attempts per layer, gateway
// first): the gateway alone, then each layer added, so a row shows what its
// layer multiplies. bound computes the worst case of a chain. Columns: depth,
// layers (e.g. "3x3"), allowed, worst_wait_ticks, worst_wait_s, x_threshold,
// span_ticks.
func Bounds(layers []int, bound func(chain []int) BoundRow) *Result {
	res := &Result{Name: "bounds"}
	for _, name := range []string{"depth", "layers", "allowed", "worst_wait_ticks", "worst_wait_s", "x_threshold", "span_ticks"} {
		res.Columns = append(res.Columns, Column{Name: name, Unit: boundsUnits[name]})
	}
	parts := make([]string, 0, len(layers))
	for d, r := range layers {
		parts = append(parts, strconv.Itoa(r))
		b := bound(layers[:d+1])
		res.Rows = append(res.Rows, []any{
			int64(d + 1), strings.Join(parts, "x"), int64(b.Allowed), int64(b.WorstWaitTicks),
			b.WorstWaitSeconds, b.ThresholdRatio, int64(b.SpanTicks),
		})
	}
	return res
}

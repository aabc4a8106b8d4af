package storm

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rewind-dev/rewind/internal/jsfmt"
)

const (
	nameWidth = 25
	tableRule = "--"
)

// Column widths follow the seed's layout, widened to fit the English headings.
var (
	headCells   = []string{"allowed", "calls", "multiplier", "peak calls/tick", "succeeded", "dropped"}
	headWidths  = []int{8, 8, 12, 17, 11, 9}
	faultCells  = []string{"window calls/tick", "x normal rate"}
	faultWidths = []int{19, 15}
)

// Write prints the model line, one table per scenario and, when the seed's
// scenarios and configurations were all run, the summary lines.
func (o Outcome) Write(w io.Writer) error {
	var b strings.Builder
	p := o.Config.Params
	fmt.Fprintf(&b, "model: %d ticks (%s s), fault at tick %d; normal capacity %d calls/tick (%s requests/s), "+
		"arrivals %s/tick; seed %d\n", p.Ticks, shortest(float64(p.Ticks)/ticksPerSecond(p.TickMs)), p.FaultStart,
		p.Capacity, shortest(float64(p.Capacity)*ticksPerSecond(p.TickMs)), fixed(p.NormalRate(), 4), p.Seed)
	for _, sc := range o.Config.Scenarios {
		b.WriteString("\n")
		writeTable(&b, sc, o.scenarioRuns(sc.Name), p)
	}
	if lines := o.Summary(); len(lines) > 0 {
		b.WriteString("\n" + strings.Join(lines, "\n") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (o Outcome) scenarioRuns(scenario string) []RunResult {
	var out []RunResult
	for _, r := range o.Runs {
		if r.Scenario.Name == scenario {
			out = append(out, r)
		}
	}
	return out
}

// writeTable prints one scenario's table; the fault-free day has no window
// columns.
func writeTable(b *strings.Builder, sc Scenario, runs []RunResult, p Params) {
	if sc.faultFree() {
		fmt.Fprintf(b, "%s %s (sparse failure share %s) %s\n", tableRule, sc.Name, shortest(p.SparseFailure), tableRule)
	} else {
		fmt.Fprintf(b, "%s %s: %d ticks at capacity %d %s\n", tableRule, sc.Name, sc.Window, sc.Capacity, tableRule)
	}
	head := append([]string{}, headCells...)
	if !sc.faultFree() {
		head = append(head, faultCells...)
	}
	b.WriteString(formatRow("configuration", head) + "\n")
	for _, r := range runs {
		b.WriteString(formatRow(r.Policy.Name, RowCells(r.Result, p.NormalRate(), !sc.faultFree())) + "\n")
	}
}

// RowCells returns a run's cells as printed: allowed, calls, multiplier,
// peak calls per tick, succeeded, dropped and, with a fault window, the
// window's calls per tick and its multiple of the normal rate.
func RowCells(r Result, normalRate float64, window bool) []string {
	cells := []string{
		fmt.Sprint(r.Allowed), fmt.Sprint(r.Calls), "x" + fixed(r.Multiplier(), 2),
		fmt.Sprint(r.Peak), fmt.Sprint(r.Succeeded), fmt.Sprint(r.Dropped),
	}
	if window {
		cells = append(cells, fixed(r.WindowRate(), 2), "x"+fixed(r.WindowRate()/normalRate, 1))
	}
	return cells
}

// formatRow pads the name to the right and each cell to the left, never
// cutting a value that is wider than its column.
func formatRow(name string, cells []string) string {
	widths := append(append([]int{}, headWidths...), faultWidths...)
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s", nameWidth, name)
	for i, c := range cells {
		fmt.Fprintf(&b, "%*s", widths[i], c)
	}
	return b.String()
}

// The r^d list of the summary: layers that each try 3 times, 1 to 4 deep.
const (
	boundTries = 3
	boundDepth = 4
)

// runs indexes an outcome's results by configuration and scenario name.
type runs map[string]Result

func (o Outcome) index() runs {
	m := runs{}
	for _, r := range o.Runs {
		m[RunName(r.Policy, r.Scenario)] = r.Result
	}
	return m
}

// get returns the run of a seed configuration in a seed scenario and records
// a miss in *ok, so a summary needs one check for all its lookups.
func (m runs) get(policy, scenario string, ok *bool) Result {
	r, found := m[policy+"|"+scenario]
	*ok = *ok && found
	return r
}

// Summary returns the seed's summary lines: what retries cost on the
// fault-free day, what they gain and cost in the outage and degradation, the
// budget's effect, the bounds and the budget sensitivity. It is empty unless
// all the seed's scenarios and configurations were run.
func (o Outcome) Summary() []string {
	m, ok := o.index(), o.Sensitivity != nil
	H, K, B := ScenarioHealthy, ScenarioOutage, ScenarioDegradation
	s0, s27 := m.get(PolicyNone, H, &ok), m.get(PolicyThree, H, &ok)
	k0, k3, k9 := m.get(PolicyNone, K, &ok), m.get(PolicyGateway, K, &ok), m.get(PolicyTwo, K, &ok)
	k27, kb := m.get(PolicyThree, K, &ok), m.get(PolicyBudgeted, K, &ok)
	z0, z9 := m.get(PolicyNone, B, &ok), m.get(PolicyTwo, B, &ok)
	z27, zb := m.get(PolicyThree, B, &ok), m.get(PolicyBudgeted, B, &ok)
	budgeted, found := findPolicy(o.Config.Policies, PolicyBudgeted)
	if !ok || !found || budgeted.Budget == nil {
		return nil
	}
	p, normal := o.Config.Params, o.Config.Params.NormalRate()
	perSecond := func(r Result) string {
		return fixed(float64(r.Calls)/float64(p.Ticks)*ticksPerSecond(p.TickMs), 2)
	}
	rate := func(r Result) string { return fixed(r.WindowRate(), 2) }
	dar := *o.Sensitivity
	return []string{
		fmt.Sprintf("cost of the fault-free day: calls %d -> %d (multiplier x%s), reaching the dependency %s -> %s requests/s "+
			"(allowed %d to %d, sparse failure share %s)", s0.Calls, s27.Calls, fixed(s27.Multiplier(), 2),
			perSecond(s0), perSecond(s27), s0.Allowed, s27.Allowed, shortest(p.SparseFailure)),
		fmt.Sprintf("gain on the faulty day (outage): dropped requests %d -> %d -> %d -> %d; succeeded %d -> %d",
			k0.Dropped, k3.Dropped, k9.Dropped, k27.Dropped, k0.Succeeded, k27.Succeeded),
		fmt.Sprintf("storm growth (outage): window calls/tick %s -> %s -> %s -> %s = x%s the normal rate; "+
			"arithmetic upper bound x%d", rate(k0), rate(k3), rate(k9), rate(k27),
			fixed(k27.WindowRate()/normal, 1), k27.Allowed),
		fmt.Sprintf("degradation, allowed %d vs %d: calls %d and %d, window rate %s (equal calls: the failure rate, "+
			"not the allowance, sets the multiplier)", z9.Allowed, z27.Allowed, z9.Calls, z27.Calls, rate(z27)),
		fmt.Sprintf("budget %s across the chain: outage calls %d -> %d, window rate %s -> %s, dropped %d -> %d; "+
			"degradation calls %d -> %d, dropped %d -> %d -> %d", fixed(*budgeted.Budget, 2), k27.Calls, kb.Calls,
			rate(k27), rate(kb), k27.Dropped, kb.Dropped, z27.Calls, zb.Calls, z0.Dropped, z27.Dropped, zb.Dropped),
		powerLine(),
		o.waitLine(budgeted.Layers),
		fmt.Sprintf("sensitivity, budget %s tightened to %s: outage calls %d -> %d, window rate %s -> %s, dropped %d -> %d",
			fixed(*budgeted.Budget, 2), fixed(o.Config.SensitivityBudget, 2), kb.Calls, dar.Calls, rate(kb), rate(dar),
			kb.Dropped, dar.Dropped),
	}
}

// powerLine lists r^d for the summary's r and depths.
func powerLine() string {
	parts := make([]string, 0, boundDepth)
	for d, bound := range PowerBounds(boundTries, boundDepth) {
		parts = append(parts, fmt.Sprintf("d=%d -> %d", d+1, bound))
	}
	return fmt.Sprintf("upper bound independent of any run: d layers trying r times allow r^d calls; for r=%d %s",
		boundTries, strings.Join(parts, ", "))
}

// waitLine states how long the three-layer chain can keep a caller waiting.
func (o Outcome) waitLine(layers []int) string {
	c := o.Config
	b := Bounds(layers, c.Params.Backoff, c.Params.TickMs, c.ReadThresholdTicks)
	return fmt.Sprintf("worst-case total wait of %d attempts: %d ticks = %s s = the %d-tick read threshold x%s",
		b.Allowed, b.WorstWaitTicks, shortest(b.WorstWaitSeconds), c.ReadThresholdTicks, fixed(b.ThresholdRatio, 1))
}

// fixed formats like the seed's JavaScript toFixed (exact halves up).
func fixed(x float64, digits int) string { return jsfmt.Fixed(x, digits) }

// shortest formats x as the shortest decimal that reads back as x, which is
// how JavaScript prints a number in a template string.
func shortest(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

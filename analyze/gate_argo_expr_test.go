package analyze

import (
	"math/big"
	"strings"
	"testing"
)

// Conditions built to exhaust memory, the stack or time end in an Error
// measurement naming the bound, as Argo records an evaluation error.
func TestArgoConditionBounds(t *testing.T) {
	for _, c := range []struct{ cond, want string }{
		{`len(repeat(repeat("x", 999999), 999999)) > 0`, "built more than"},
		{strings.Repeat("(", 1_000_000) + "true" + strings.Repeat(")", 1_000_000), "longer than 4096 bytes"},
		{strings.Repeat("(", 100) + "true" + strings.Repeat(")", 100), "nested deeper than 64"},
		{`let a = split(repeat("a,", 20000), ","); all(a, {all(a, {true})})`, "more than 1000000 steps"},
		{`reduce(1..100, {#acc + #acc}, "xx") != ""`, "built more than"},
		{`let s = repeat("x", 500000); len(join(map(1..1000, {s}))) > 0`, "built more than"},
		{`let s = repeat("x", 500000); len(toJSON([s, s, s])) > 0`, "built more than"},
		{`len(replace(repeat("x", 2000), "x", repeat("y", 2000))) > 0`, "built more than"},
	} {
		m := argoTestMetric(c.cond)
		p, msg := argoMeasure(m, big.NewRat(1, 2), true)
		if p != "Error" || !strings.Contains(msg, c.want) {
			t.Errorf("%.60s: %s %.200q, want Error naming %q", c.cond, p, msg, c.want)
		}
	}
}

// Within the bounds conditions answer as expr does.
func TestArgoConditionWithinBounds(t *testing.T) {
	for _, c := range []struct {
		cond   string
		vector bool
		want   string
	}{
		{`result[0] + 1 > 1.4`, true, "Successful"},
		{`map(result, {# + 1})[0] == 1.5`, true, "Successful"},
		{`"a" + "b" == "ab" && len(repeat("ab", 3)) == 6`, true, "Successful"},
		{`sum(1..10) == 55 && all(1..1000, {# > 0})`, true, "Successful"},
		{`isNaN(result) || asFloat(result) + 0.5 < 1`, false, "Failed"},
		{`asInt("3") + 1 == 4 && replace("aXb", "X", "-") == "a-b"`, false, "Successful"},
		{`(((((result))))) > 0.4`, false, "Successful"},
	} {
		m := argoTestMetric(c.cond)
		m.Vector = c.vector
		if p, msg := argoMeasure(m, big.NewRat(1, 2), true); p != c.want {
			t.Errorf("%s: %s %q, want %s", c.cond, p, msg, c.want)
		}
	}
}

package analyze

import (
	"strings"
	"testing"
)

// A Measured column (a threshold's value, whose unit varies by row) is
// rounded to 6 decimals in a table, with no unit in its header; CSV keeps
// every digit.
func TestMeasuredRounded(t *testing.T) {
	for v, want := range map[float64]string{238.17470000000003: "238.1747", 0.002777777777777778: "0.002778", 493.6235499999998: "493.62355", 12: "12"} {
		if got := Human(v, Measured); got != want {
			t.Errorf("Human(%v, Measured) = %q, want %q", v, got, want)
		}
	}
	r := &Result{Columns: []Column{{Name: "value", Unit: Measured}}, Rows: [][]any{{238.17470000000003}}}
	var table, csv strings.Builder
	if err := Write(&table, r, "table"); err != nil {
		t.Fatal(err)
	}
	if err := Write(&csv, r, "csv"); err != nil {
		t.Fatal(err)
	}
	if got := table.String(); !strings.HasPrefix(got, "   value\n") || !strings.Contains(got, "238.1747\n") {
		t.Errorf("table:\n%s", got)
	}
	if got := csv.String(); !strings.Contains(got, "238.17470000000003") {
		t.Errorf("csv:\n%s", got)
	}
}

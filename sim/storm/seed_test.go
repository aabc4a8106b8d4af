package storm

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// seedTables are the rows the seed printed (allowed, calls, multiplier, peak,
// succeeded, dropped and, with a fault window, window calls/tick and its
// multiple of the normal rate), transcribed from the seed document. They are
// the reference the port must reproduce, not output of this package.
var seedTables = map[string]string{
	"denemesiz|saglikli":                    "1 3832 x1.00 6 3736 96",
	"yalniz gecit (3)|saglikli":             "3 3953 x1.03 6 3851 0",
	"iki katman (3x3)|saglikli":             "9 3953 x1.03 6 3851 0",
	"uc katman (3x3x3)|saglikli":            "27 3953 x1.03 6 3851 0",
	"uc katman + butce 0,30|saglikli":       "27 3953 x1.03 6 3851 0",
	"denemesiz|kesinti (1 s)":               "1 3855 x1.00 5 3775 80 0.80 x0.8",
	"yalniz gecit (3)|kesinti (1 s)":        "3 4071 x1.05 8 3782 94 2.89 x3.0",
	"iki katman (3x3)|kesinti (1 s)":        "9 4435 x1.15 13 3850 20 5.77 x5.9",
	"uc katman (3x3x3)|kesinti (1 s)":       "27 4523 x1.17 17 3870 0 6.24 x6.4",
	"uc katman + butce 0,30|kesinti (1 s)":  "27 4065 x1.05 10 3777 103 2.88 x3.0",
	"denemesiz|bozulma (10 s)":              "1 3855 x1.00 5 3534 321 0.95 x1.0",
	"yalniz gecit (3)|bozulma (10 s)":       "3 4913 x1.28 8 3754 94 2.01 x2.1",
	"iki katman (3x3)|bozulma (10 s)":       "9 5296 x1.39 9 3803 0 2.39 x2.5",
	"uc katman (3x3x3)|bozulma (10 s)":      "27 5296 x1.39 9 3803 0 2.39 x2.5",
	"uc katman + butce 0,30|bozulma (10 s)": "27 4288 x1.11 7 3643 220 1.40 x1.4",
}

// seedSummary holds, per printed summary line and in order, every number the
// seed printed in it (reference labels such as "K01" left out).
var seedSummary = []string{
	"3832 3953 1.03 95.80 98.83 1 27 0.025",
	"80 94 20 0 3775 3870",
	"0.80 2.89 5.77 6.24 6.4 27",
	"9 27 5296 5296 2.39",
	"0.30 4523 4065 6.24 2.88 0 103 5296 4288 321 0 220",
	"3 1 3 2 9 3 27 4 81",
	"27 793 7.93 20 39.6",
	"0.30 0.10 4065 3926 2.88 1.54 103 90",
}

// seedModelLine holds the numbers of the seed's first line.
const seedModelLine = "4000 40 500 6 600 0.9722 20260802"

func measureSeed(t *testing.T) Outcome {
	t.Helper()
	o, err := Measure(context.Background(), DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestSeedTables(t *testing.T) {
	o := measureSeed(t)
	got := map[string]string{}
	for _, r := range o.Runs {
		cells := RowCells(r.Result, o.Config.Params.NormalRate(), !r.Scenario.faultFree())
		got[RunName(r.Policy, r.Scenario)] = strings.Join(cells, " ")
	}
	if diff := cmp.Diff(seedTables, got); diff != "" {
		t.Errorf("tables differ from the seed (-want +got):\n%s", diff)
	}
}

var number = regexp.MustCompile(`\d+(\.\d+)?`)

func numbers(line string) string { return strings.Join(number.FindAllString(line, -1), " ") }

func TestSeedSummary(t *testing.T) {
	lines := measureSeed(t).Summary()
	got := make([]string, len(lines))
	for i, l := range lines {
		got[i] = numbers(l)
	}
	if diff := cmp.Diff(seedSummary, got); diff != "" {
		t.Errorf("summary numbers differ from the seed (-want +got):\n%s", diff)
	}
}

func TestSeedModelLine(t *testing.T) {
	var b strings.Builder
	if err := measureSeed(t).Write(&b); err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(b.String(), "\n")
	if diff := cmp.Diff(seedModelLine, numbers(first)); diff != "" {
		t.Errorf("model line %q (-want +got):\n%s", first, diff)
	}
}

// An extra configuration adds a row to each table and changes nothing else:
// every run restarts the generator from the seed.
func TestExtraPolicyLeavesSeedRunsAlone(t *testing.T) {
	cfg := DefaultConfig()
	extra, err := ParsePolicy("four layers=3,3,3,3@0.2")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Policies = append(cfg.Policies, extra)
	o, err := Measure(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	seed := measureSeed(t)
	if len(o.Runs) != 18 {
		t.Fatalf("got %d runs, want 18", len(o.Runs))
	}
	if diff := cmp.Diff(seed.Summary(), o.Summary()); diff != "" {
		t.Errorf("summary changed (-want +got):\n%s", diff)
	}
	for i, r := range seed.Runs {
		j := i + i/5 // the extra run follows the five seed runs of each scenario
		if diff := cmp.Diff(r.Result, o.Runs[j].Result); diff != "" {
			t.Errorf("%s changed (-want +got):\n%s", RunName(r.Policy, r.Scenario), diff)
		}
	}
}

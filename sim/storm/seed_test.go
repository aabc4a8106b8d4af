package storm

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/internal/seedtables"
)

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
	if diff := cmp.Diff(seedtables.Storm, got); diff != "" {
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

package storm

import (
	"bytes"
	"context"
	"testing"

	"github.com/rewind-dev/rewind/internal/golden"
)

func TestGoldenReport(t *testing.T) {
	var out bytes.Buffer
	if err := Run(context.Background(), DefaultConfig(), &out, nil); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/report.golden", out.Bytes())
}

// An excerpt of the log pins its format: the experiment line, the run line
// of the three-layer chain in the outage, and its calls as the outage begins,
// retries among them.
func TestGoldenLogExcerpt(t *testing.T) {
	var log bytes.Buffer
	if err := Run(context.Background(), DefaultConfig(), &bytes.Buffer{}, &log); err != nil {
		t.Fatal(err)
	}
	const run = `"run":"uc katman (3x3x3)|kesinti (1 s)"`
	var got []byte
	for i, line := range bytes.SplitAfter(log.Bytes(), []byte("\n")) {
		ofRun := bytes.Contains(line, []byte(run))
		isRunLine := bytes.HasPrefix(line, []byte(`{"record":"run"`))
		if i == 0 || ofRun && (isRunLine || inExcerpt(line)) {
			got = append(got, line...)
		}
	}
	golden.Check(t, "testdata/log_excerpt.golden", got)
}

// inExcerpt keeps the calls from 4990 ms to 5030 ms.
func inExcerpt(line []byte) bool {
	for _, ms := range []string{"4990", "5000", "5010", "5020", "5030"} {
		if bytes.Contains(line, []byte(`"t_ms":`+ms+`,`)) {
			return true
		}
	}
	return false
}

// A subset of the scenarios prints its tables but no summary, whose lines
// compare runs across all three.
func TestGoldenOutageOnly(t *testing.T) {
	cfg := DefaultConfig()
	scs, err := SelectScenarios([]string{"outage"})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Scenarios = scs
	var out bytes.Buffer
	if err := Run(context.Background(), cfg, &out, nil); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/outage_only.golden", out.Bytes())
}

// Expected strings are what JavaScript's toFixed prints for the same inputs.
func TestFixedMatchesToFixed(t *testing.T) {
	cases := []struct {
		x      float64
		digits int
		want   string
	}{
		{0.125, 2, "0.13"}, // exact half: rounded up, where strconv rounds to even
		{2.5, 0, "3"},
		{1.005, 2, "1.00"}, // 1.005 is stored just below the half
		{39.65, 1, "39.6"},
		{95.8, 2, "95.80"},
		{0.9722, 4, "0.9722"},
		{0.001, 2, "0.00"},
		{6.4, 1, "6.4"},
		{-1.5, 0, "-2"},
		{1234.5678, 0, "1235"},
	}
	for _, c := range cases {
		if got := fixed(c.x, c.digits); got != c.want {
			t.Errorf("fixed(%v, %d) = %q, want %q", c.x, c.digits, got, c.want)
		}
	}
}

package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// slowStep is a query far past the deadlines below on the test cluster's
// two cores: two tasks of 5·10^11 rows each, which hold both executors
// while they run.
const slowStep = "SELECT sum(id % 7) AS s FROM range(0, 1000000000000, 1, 2)"

// shortSlowStep is past 50 ms and done in seconds.
const shortSlowStep = "SELECT sum(id % 7) AS s FROM range(0, 4000000000, 1, 2)"

// A step past its deadline fails with a DeadlineError naming the step and
// the deadline, without waiting for the cluster; the query is interrupted
// on the server (the Interrupt answers with its operation), so the same
// session then runs a step that needs the executors (it would queue behind
// the slow one's tasks otherwise), and a second step, of seconds, is cut
// short at 50 ms too. A deadline of 0 is none. Needs the cluster at REWIND_SPARK.
func TestDeadlineInterruptsStep(t *testing.T) {
	ctx := context.Background()
	s, err := OpenSpark(ctx, sparkURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i, d := range []time.Duration{3 * time.Second, 50 * time.Millisecond} {
		// at 50 ms the step's request may reach the server after the
		// Interrupt (docs/scale.md: it then runs until the session is
		// released), so that step is one of seconds, not one that would
		// hold the executors for every other test on the cluster (CI: the
		// whole suite waited 5 minutes behind it)
		step := slowStep
		if i > 0 {
			step = shortSlowStep
		}
		err := WithDeadline(ctx, d, "_slow", func(ctx context.Context) error {
			_, err := s.Reduce(ctx, step)
			return err
		})
		var de *DeadlineError
		if !errors.As(err, &de) || de.Step != "_slow" || de.Deadline != d ||
			!strings.Contains(err.Error(), "step _slow on the cluster: no result within "+d.String()) {
			t.Fatalf("a step past its deadline of %s: %v, want a DeadlineError naming _slow and %s", d, err, d)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("the deadline's error %v does not wrap context.DeadlineExceeded", err)
		}
		if i == 0 && s.Stats().Interrupted == 0 {
			t.Errorf("the step past its deadline was not interrupted on the server (Interrupt named no operation)")
		}
		// generous: past it, the slow step still holds the executors
		err = WithDeadline(ctx, 5*time.Minute, "_after", func(ctx context.Context) error {
			tab, err := s.Reduce(ctx, "SELECT count(*) AS n FROM range(0, 1000, 1, 2)")
			if err == nil {
				defer tab.Release()
				if n := tab.Column(0).Data().Chunk(0).(*array.Int64).Value(0); n != 1000 {
					t.Errorf("after the deadline, count(*) = %d, want 1000", n)
				}
			}
			return err
		})
		if err != nil {
			t.Fatalf("after a step past its deadline of %s, the session's next step: %v", d, err)
		}
	}
	t.Logf("operations interrupted: %d", s.Stats().Interrupted)
	if err := WithDeadline(ctx, 0, "_none", func(ctx context.Context) error {
		if _, ok := ctx.Deadline(); ok {
			t.Error("a deadline of 0 gave the step a deadline")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

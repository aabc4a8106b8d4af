package analyze

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/store"
)

// A part file that is not Parquet fails the analysis with an error naming
// the file; it is never skipped.
func TestSparkBadPart(t *testing.T) {
	sparkURL(t)
	local := logsDB(t, edgeLog(10))
	dir := sparkDataset(t, local)
	bad := filepath.Join(dir, "requests", "experiment=edge", "run=control", "part-bad.parquet")
	if err := os.WriteFile(bad, []byte("PAR1 this is not a parquet file"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	eng, err := engine.OpenSpark(ctx, sparkURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	r, err := OpenRemote(ctx, eng, dir, 0)
	if err == nil {
		_, err = BlastRadiusOn(r, BlastRadiusOptions{Experiment: "edge"})
		r.Close()
	}
	t.Logf("error: %v", err)
	if err == nil || !strings.Contains(err.Error(), "part-bad.parquet") {
		t.Fatalf("got %v, want an error naming part-bad.parquet", err)
	}
}

// A worker killed while a reduce step runs: Spark runs its tasks again on
// the other worker and the answer is the same. .ci/spark up starts the
// worker again afterwards.
func TestSparkWorkerKilled(t *testing.T) {
	sparkURL(t)
	dir := os.Getenv("REWIND_SPARK_DIR")
	if dir == "" {
		dir = "/tmp/rewind-spark"
	}
	pidFile := filepath.Join(dir, "pids", "worker1.pid")
	if _, err := os.Stat(pidFile); err != nil {
		t.Skipf("no worker PID file (%v): the cluster is not .ci/spark's", err)
	}
	local := bigDB(t, 4_000_000)
	ds := sparkDataset(t, local)
	want, err := BlastRadius(local, BlastRadiusOptions{Experiment: "big", Start: 1_000_000, StartSet: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("data ready")
	r := onSpark(t, ds)
	var pid int
	t.Cleanup(func() {
		// a JVM killed with SIGKILL takes a while to go: until it has,
		// .ci/spark sees the worker running and does not start it again
		for i := 0; pid > 0 && i < 300 && syscall.Kill(pid, 0) == nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
		up := exec.Command("../.ci/spark", "up")
		if out, err := up.CombinedOutput(); err != nil {
			t.Errorf(".ci/spark up after the kill: %v\n%s", err, out)
		}
	})
	done := make(chan struct{})
	var got *Result
	var runErr error
	go func() {
		defer close(done)
		got, runErr = BlastRadiusOn(r, BlastRadiusOptions{Experiment: "big", Start: 1_000_000, StartSet: true})
	}()
	// Kill the worker once the query is under way (no timing is asserted:
	// the check is that the answer is the same, and that it came after the
	// kill).
	time.Sleep(700 * time.Millisecond)
	select {
	case <-done:
		t.Fatal("the query ended before the worker was killed: grow bigDB")
	default:
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Sscan(string(b), &pid)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		t.Fatal(err)
	}
	killed := time.Now()
	<-done
	t.Logf("answered %v after the kill", time.Since(killed))
	if runErr != nil {
		t.Fatal(runErr)
	}
	if a, b := asJSON(t, want), asJSON(t, got); a != b {
		t.Errorf("after a worker was killed: local\n%s\nSpark\n%s", a, b)
	}
}

// bigDB is a database of n requests of experiment big, made by SQL: runs
// control and experiment, a few outcomes, counts 1 to 3.
func bigDB(t *testing.T, n int) *store.DB {
	t.Helper()
	db := ingestedDB(t)
	for _, q := range []string{
		`INSERT INTO experiments VALUES ('big', '{}')`,
		`INSERT INTO runs VALUES ('big', 'control', 'control', NULL), ('big', 'experiment', 'experiment', NULL)`,
		fmt.Sprintf(`INSERT INTO requests (experiment, run, role, seq, req, attempt, t_ms, latency_ms, outcome, tagged, count, file_id, line)
			SELECT 'big', r, r, i, i // 2, 0, i * 0.5, (i %% 97) * 1.5, CASE WHEN i %% 13 = 0 THEN 'error' ELSE 'ok' END,
			       i %% 5 = 0, 1 + i %% 3, 1, i
			FROM range(%d) t(i), (VALUES ('control'), ('experiment')) v(r)`, n/2),
	} {
		if _, err := db.ExecContext(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// An analysis's reduce step past the deadline of a step (1 ms: less than
// any Spark job) fails with a DeadlineError naming the step's table; the
// step was interrupted and the session stays usable: the same analysis,
// without a deadline, then answers as locally.
func TestSparkStepDeadline(t *testing.T) {
	sparkURL(t)
	local := logsDB(t, edgeLog(200))
	r := onSpark(t, sparkDataset(t, local))
	o := FalsificationOptions{Experiment: "edge", Window: hypothesis.Window{N: 10}}
	r.timeout = time.Millisecond
	_, err := FalsificationOn(r, o)
	var de *engine.DeadlineError
	if !errors.As(err, &de) || de.Step != "_remote_run_rows" || de.Deadline != time.Millisecond ||
		!strings.Contains(err.Error(), "step _remote_run_rows on the cluster: no result within 1ms") {
		t.Fatalf("falsification with a deadline of 1 ms: %v, want a DeadlineError naming _remote_run_rows", err)
	}
	r.timeout = 0
	compareFalsification(t, local, r, o)
}

package analyze

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// Amplification on Spark equals the local one on the storm and retry
// fixtures, k6 and the retry edge log (runs with their own tick, one
// tick for all, a run glob, a given fault window and normal rate); the
// rows of _amplification_ticks and _amplification_dropped equal the local
// macros', and by groups of columns and status_class; a glob matching no
// run is refused alike, --by an attrs key (method) alike.
func TestAmplificationOnSpark(t *testing.T) {
	sparkURL(t)
	t.Parallel() // a step waits mostly on the cluster's scheduling: two tests overlap it
	edge := filepath.Join(t.TempDir(), "redge.ndjson")
	if err := os.WriteFile(edge, []byte(retryEdgeLog(20000)), 0o644); err != nil {
		t.Fatal(err)
	}
	local := ingestedDB(t, "../fixtures/retry/tiny.ndjson", "../fixtures/k6/chaos.json", edge)
	r := onSpark(t, sparkDataset(t, local))
	for _, c := range []struct {
		exp  string
		opts []AmplificationOptions
	}{
		{"tiny", []AmplificationOptions{{}, {TickMs: 250, Fault: hypothesis.Span{FromMs: 1000, ToMs: 2000}, NormalRate: 2}, {By: []string{"status_class"}}}},
		{"chaos", []AmplificationOptions{{}, {TickMs: 1000}}},
		{"redge", []AmplificationOptions{{}, {TickMs: 2.5}, {Runs: "a*"}, {Runs: "o*", Fault: hypothesis.Span{FromMs: -100, ToMs: -2.5}},
			{By: []string{"outcome"}}, {By: []string{"retried", "drop_reason"}, TickMs: 2.5}}},
	} {
		for _, o := range c.opts {
			o.Experiment = c.exp
			compareAmplification(t, local, r, o)
		}
	}
	storm := ingestedDB(t, "../fixtures/storm/tiny.ndjson")
	compareAmplification(t, storm, onSpark(t, sparkDataset(t, storm)), AmplificationOptions{Experiment: "tiny"})
	o := AmplificationOptions{Experiment: "tiny", Runs: "nothing*"}
	_, want := Amplification(local, o)
	if _, err := AmplificationOn(r, o); want == nil || err == nil || err.Error() != want.Error() {
		t.Errorf("%+v: local error %v, on Spark %v", o, want, err)
	}
	compareAmplification(t, local, r, AmplificationOptions{Experiment: "chaos", By: []string{"method"}})
}

func compareAmplification(t *testing.T, local store.Querier, r *Remote, o AmplificationOptions) {
	t.Helper()
	want, err := Amplification(local, o)
	if err != nil {
		t.Fatalf("%+v: %v", o, err)
	}
	got, err := AmplificationOn(r, o)
	if err != nil {
		t.Fatalf("%+v on Spark: %v", o, err)
	}
	if a, b := asJSON(t, want), asJSON(t, got); a != b {
		t.Errorf("%+v: local\n%s\nSpark\n%s", o, a, b)
	}
	g, err := groupBy(local, o.Experiment, o.By)
	if err != nil {
		t.Fatal(err)
	}
	key := cmp.Or(g.key, "true")
	args := fmt.Sprintf("%s, %s", sqllit.String(o.Experiment), key)
	for _, v := range o.args() {
		switch x := v.(type) {
		case string:
			args += ", " + sqllit.String(x)
		case float64:
			args += ", " + duckDouble(x)
		default:
			args += ", NULL"
		}
	}
	q := `SELECT run, gk, tick_no, first_seq, requests, calls, succeeded, fault_calls FROM _amplification_ticks(` + args + `)`
	sameStep(t, "_amplification_ticks", local, q, r.Querier(), q)
	q = `SELECT run, gk, dropped FROM _amplification_dropped(` + sqllit.String(o.Experiment) + `, ` + key + `)`
	sameStep(t, "_amplification_dropped", local, q, r.Querier(), q)
}

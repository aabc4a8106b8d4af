package analyze

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// redisJournal is a real Chaos Toolkit journal (docker stop redis, then
// start it again): two actions, probes, the experiment's start and end.
const redisJournal = "../ingest/testdata/real/chaostoolkit/redis-stop-completed/input.json"

// journalDB ingests redisJournal with a load log of the same seconds into
// experiment "redis" (a control and an experiment run, 20 requests/s for
// 3 s from 00:12:45, the experiment's requests failing while redis is
// stopped, latencies with ties), and edgeLog's "edge", which has no
// events.
func journalDB(t *testing.T) *store.DB {
	t.Helper()
	origin := time.Date(2025, 4, 26, 0, 12, 45, 0, time.UTC)
	var b strings.Builder
	b.WriteString(`{"record":"run","experiment":"redis","run":"control","role":"control"}` + "\n")
	b.WriteString(`{"record":"run","experiment":"redis","run":"experiment","role":"experiment"}` + "\n")
	for _, run := range []string{"control", "experiment"} {
		for i := range 60 {
			outcome := "ok"
			if run == "experiment" && i >= 22 && i < 42 {
				outcome = "error"
			}
			fmt.Fprintf(&b, `{"run":%q,"req":%d,"ts":%q,"latency_ms":%d,"outcome":%q}`+"\n",
				run, i, origin.Add(time.Duration(i)*50*time.Millisecond).Format(time.RFC3339Nano), 20+i%7, outcome)
		}
	}
	load := filepath.Join(t.TempDir(), "load.ndjson")
	if err := os.WriteFile(load, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	db := ingestedDB(t)
	if _, err := ingest.Files(context.Background(), db, ingest.Options{Experiment: "redis"}, []string{load, redisJournal}); err != nil {
		t.Fatal(err)
	}
	edge := filepath.Join(t.TempDir(), "edge.ndjson")
	if err := os.WriteFile(edge, []byte(edgeLog(50)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Files(context.Background(), db, ingest.Options{}, []string{edge}); err != nil {
		t.Fatal(err)
	}
	return db
}

// Falsification and stop-damage with --baseline-until at an event give on
// Spark the local JSON: a run split at the first action_start, at a type
// and subject, at an action_end, on either side's run, over count and
// duration windows, ok share, quantiles and the mean, --by; the split's
// reduce step equals its DuckDB twin over the events. An event the
// experiment lacks, and an experiment without events, are refused with
// the local error's text, which names the timed event types.
func TestSplitAtEventOnSpark(t *testing.T) {
	sparkURL(t)
	db := journalDB(t)
	r := onSpark(t, sparkDataset(t, db))
	hs := []hypothesis.Hypothesis{
		{BaselineUntil: "action_start"},
		{BaselineUntil: "action_start", Metric: "p50"},
		{BaselineUntil: "action_start:iniciar_container_redis", Treatment: "experiment", Metric: "mean"},
		{BaselineUntil: "action_end", Control: "control"},
	}
	for i, h := range hs {
		ws := []hypothesis.Window{{N: 5}, {Ms: 200}}
		if i > 0 {
			ws = ws[i%2 : i%2+1] // CI time: one window each past the first
		}
		for _, w := range ws {
			fo := FalsificationOptions{Experiment: "redis", Window: w, Hypothesis: h}
			if !bothRan(t, fmt.Sprintf("falsification %+v", fo), func() (*Result, error) { return Falsification(db, fo) },
				func() (*Result, error) { return FalsificationOn(r, fo) }) {
				t.Errorf("falsification %+v did not run on both engines", fo)
			}
			sameSplitStep(t, db, r, "redis", h.BaselineUntil)
			so := StopDamageOptions{Experiment: "redis", Window: w, Hypothesis: h, Ks: []int64{1, 2}}
			if !bothRan(t, fmt.Sprintf("stop-damage %+v", so), func() (*Result, error) { return StopDamage(db, so) },
				func() (*Result, error) { return StopDamageOn(r, so) }) {
				t.Errorf("stop-damage %+v did not run on both engines", so)
			}
		}
	}
	by := FalsificationOptions{Experiment: "redis", Window: hypothesis.Window{N: 10}, By: []string{"outcome"}, Hypothesis: hs[0]}
	if !bothRan(t, fmt.Sprintf("falsification %+v", by), func() (*Result, error) { return Falsification(db, by) },
		func() (*Result, error) { return FalsificationOn(r, by) }) {
		t.Errorf("falsification %+v did not run on both engines", by)
	}
	for _, c := range []struct{ exp, until, want string }{
		{"redis", "rollback_start", "its timed event types: action_end, action_start, experiment_end, experiment_start, probe_end, probe_start"},
		{"redis", "action_start:nope", "no such event in experiment \"redis\""},
		{"edge", "action_start", "it has no timed events"},
	} {
		h := hypothesis.Hypothesis{BaselineUntil: c.until}
		fo := FalsificationOptions{Experiment: c.exp, Window: hypothesis.Window{N: 5}, Hypothesis: h}
		so := StopDamageOptions{Experiment: c.exp, Window: hypothesis.Window{N: 5}, Hypothesis: h}
		for name, run := range map[string][2]func() (*Result, error){
			"falsification": {func() (*Result, error) { return Falsification(db, fo) }, func() (*Result, error) { return FalsificationOn(r, fo) }},
			"stop-damage":   {func() (*Result, error) { return StopDamage(db, so) }, func() (*Result, error) { return StopDamageOn(r, so) }},
		} {
			_, errL := run[0]()
			_, errS := run[1]()
			if errL == nil || errS == nil || errL.Error() != errS.Error() || !strings.Contains(errL.Error(), c.want) {
				t.Errorf("%s of %s split at %s: local error %v, Spark error %v; want the same, with %q", name, c.exp, c.until, errL, errS, c.want)
			}
		}
		sameSplitStep(t, db, r, c.exp, c.until)
	}
}

// sameSplitStep compares the split's reduce step, as the last split at
// an event left it, with its DuckDB twin over the database's events.
func sameSplitStep(t *testing.T, local store.Querier, r *Remote, exp, until string) {
	t.Helper()
	typ, subject, bySubject := strings.Cut(until, ":")
	match := "type = " + sqllit.String(typ)
	if bySubject {
		match += " AND subject = " + sqllit.String(subject)
	}
	sameStep(t, "_remote_split_event "+until, local, `SELECT type, min(t_ms) FILTER (WHERE `+match+`), count(t_ms)
		FROM events WHERE experiment = `+sqllit.String(exp)+` GROUP BY type`, r.Querier(), `SELECT * FROM _remote_split_event`)
}

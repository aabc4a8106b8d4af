package analyze

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/internal/sqllit"
	"github.com/rewind-dev/rewind/store"
)

// Retries on Spark equal the local ones on the retry fixtures, k6 and the
// retry edge log, with the stored, a given and no affected interval (the
// whole run, with its note), and by groups of columns and status_class;
// _retry_sums's rows (the per-run counts and the latency histograms) equal
// the local macro's; --by an attrs key (method) alike.
func TestRetriesOnSpark(t *testing.T) {
	sparkURL(t)
	t.Parallel() // a step waits mostly on the cluster's scheduling: two tests overlap it
	edge := filepath.Join(t.TempDir(), "redge.ndjson")
	if err := os.WriteFile(edge, []byte(retryEdgeLog(40000)), 0o644); err != nil {
		t.Fatal(err)
	}
	local := ingestedDB(t, "../fixtures/retry/tiny.ndjson", "../fixtures/k6/chaos.json", edge)
	r := onSpark(t, sparkDataset(t, local))
	for _, c := range []struct {
		exp  string
		opts []RetriesOptions
	}{
		{"tiny", []RetriesOptions{{}, {Affected: hypothesis.Span{FromMs: 1000, ToMs: 1300}}, {By: []string{"status_class", "attempt"}}}},
		{"chaos", []RetriesOptions{{}}},
		{"redge", []RetriesOptions{{}, {Affected: hypothesis.Span{FromMs: -7, ToMs: 297}}, {Affected: hypothesis.Span{FromMs: -1e9, ToMs: 1e9}},
			{By: []string{"outcome"}}, {By: []string{"drop_reason", "retried"}, Affected: hypothesis.Span{FromMs: -7, ToMs: 297}}}},
	} {
		for _, o := range c.opts {
			o.Experiment = c.exp
			compareRetries(t, local, r, o)
		}
	}
	storm := ingestedDB(t, "../fixtures/storm/tiny.ndjson")
	compareRetries(t, storm, onSpark(t, sparkDataset(t, storm)), RetriesOptions{})
	compareRetries(t, local, r, RetriesOptions{Experiment: "chaos", By: []string{"method"}})
}

func compareRetries(t *testing.T, local store.Querier, r *Remote, o RetriesOptions) {
	t.Helper()
	want, err := Retries(local, o)
	if err != nil {
		t.Fatalf("%+v: %v", o, err)
	}
	got, err := RetriesOn(r, o)
	if err != nil {
		t.Fatalf("%+v on Spark: %v", o, err)
	}
	if a, b := asJSON(t, want), asJSON(t, got); a != b || notesText(want) != notesText(got) {
		t.Errorf("%+v: local\n%s%s\nSpark\n%s%s", o, a, notesText(want), b, notesText(got))
	}
	e, err := store.FindExperiment(local, o.Experiment)
	if err != nil {
		t.Fatal(err)
	}
	span, _, err := retriesSpan(e, o, func() (hypothesis.Span, *param.Error, error) { return wholeRun(local, e.Name) })
	if err != nil {
		t.Fatal(err)
	}
	g, err := groupBy(local, e.Name, o.By)
	if err != nil {
		t.Fatal(err)
	}
	q := fmt.Sprintf(`SELECT * FROM _retry_sums(%s, %s, %s, %s)`, sqllit.String(e.Name), cmp.Or(g.key, "true"), duckDouble(span.FromMs), duckDouble(span.ToMs))
	sameStep(t, "_retry_sums", local, q, r.Querier(), q)
}

func notesText(r *Result) string {
	var b strings.Builder
	for _, n := range r.Notes {
		b.WriteString(n.Error() + "\n")
	}
	return b.String()
}

// retryEdgeLog is a log of two runs of n first attempts each with the
// edges retries and amplification must keep: retries of a req long after
// its first attempt (other seq blocks, other blocks of 64 reqs), a req
// sent twice as attempt 0, text reqs (negative req) and rows without a
// req, count > 1, NULL outcome and latency, negative t_ms, times at
// epoch ms in one run (the base of an operation's times), latencies at a
// half µs (the decimal's rounding), ties of latency, budget drops, rows
// at the affected interval's and ticks' edges, retried given and not.
func retryEdgeLog(n int) string {
	var b, later strings.Builder
	b.WriteString(`{"record":"experiment","experiment":"redge","params":{"affected_from_ms":-50,"affected_to_ms":600,"tick_ms":10,"normal_rate":3,"fault_from_ms":0,"fault_to_ms":500}}` + "\n")
	b.WriteString(`{"record":"run","experiment":"redge","run":"o'b\\rien","role":"experiment","params":{"allowed":3,"tick_ms":7}}` + "\n")
	for _, run := range []string{"a", `o'b\\rien`} {
		t0 := -100.0
		if run == "a" {
			t0 = 1.7e12
		}
		for i := range n {
			req := fmt.Sprint(i)
			switch {
			case i%9 == 4:
				req = fmt.Sprintf(`"s%d"`, i%5)
			case i%13 == 6:
				req = "null"
			}
			out := `"ok"`
			switch {
			case i%7 == 3:
				out = `"error"`
			case i%11 == 5:
				out = "null"
			}
			lat := fmt.Sprintf("%d.%07d", 5+i%13, 5*(i%3))
			if i%17 == 4 {
				lat = "null"
			}
			retried := ""
			switch i % 6 {
			case 1:
				retried = `,"retried":true`
			case 2:
				retried = `,"retried":false`
			}
			drop := ""
			if i%19 == 2 {
				drop = `,"drop_reason":"budget"`
			}
			t := fmt.Sprintf("%.1f", t0+float64(i)*2.5)
			row := func(w *strings.Builder, attempt int, t string) {
				fmt.Fprintf(w, `{"experiment":"redge","run":"%s","req":%s,"attempt":%d,"t_ms":%s,"latency_ms":%s,"outcome":%s,"count":%d%s%s}`+"\n",
					run, req, attempt, t, lat, out, 1+i%4/3, retried, drop)
			}
			row(&b, 0, t)
			if i%50 == 7 {
				row(&b, 0, t) // sent twice as attempt 0
			}
			if i%4 == 1 && req != "null" {
				row(&later, 1, fmt.Sprintf("%.1f", t0+float64(i)*2.5+30))
				if i%8 == 1 {
					row(&later, 2, fmt.Sprintf("%.1f", t0+float64(i)*2.5+70.5))
				}
			}
		}
	}
	return b.String() + later.String()
}

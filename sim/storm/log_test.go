package storm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/internal/seedtables"
)

// logLine holds the keys of any line of the log.
type logLine struct {
	Record     string         `json:"record"`
	Experiment string         `json:"experiment"`
	Run        string         `json:"run"`
	Params     map[string]any `json:"params"`
	Req        int64          `json:"req"`
	Attempt    *int           `json:"attempt"`
	TMs        *float64       `json:"t_ms"`
	Outcome    string         `json:"outcome"`
	Retried    *bool          `json:"retried"`
}

func readLog(t *testing.T, data []byte) []logLine {
	t.Helper()
	var out []logLine
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		var l logLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		out = append(out, l)
	}
	return out
}

func seedLog(t *testing.T) []logLine {
	t.Helper()
	var buf bytes.Buffer
	if _, err := Measure(context.Background(), DefaultConfig(), &buf); err != nil {
		t.Fatal(err)
	}
	return readLog(t, buf.Bytes())
}

// fromLog recounts a run from its log lines and stored parameters alone, the
// way an analysis of the log would.
func fromLog(params map[string]any, calls []logLine) Result {
	r := Result{Allowed: int(params["allowed"].(float64))}
	perTick := map[float64]int{}
	from, hasWindow := params["fault_from_ms"].(float64)
	to, _ := params["fault_to_ms"].(float64)
	if hasWindow {
		r.WindowTicks = int((to - from) / params["tick_ms"].(float64))
	}
	for _, c := range calls {
		r.Calls++
		perTick[*c.TMs]++
		r.Peak = max(r.Peak, perTick[*c.TMs])
		if *c.Attempt == 0 {
			r.Requests++
		}
		switch {
		case c.Outcome == "ok":
			r.Succeeded++
		case !*c.Retried:
			r.Dropped++
		}
		if hasWindow && *c.TMs >= from && *c.TMs < to {
			r.WindowCalls++
		}
	}
	return r
}

// The log alone gives the seed's tables.
func TestLogReproducesSeedTables(t *testing.T) {
	lines := seedLog(t)
	if lines[0].Record != "experiment" || lines[0].Experiment != Experiment {
		t.Fatalf("first line %+v, want the experiment line", lines[0])
	}
	params, calls := map[string]map[string]any{}, map[string][]logLine{}
	for _, l := range lines[1:] {
		switch l.Record {
		case "run":
			params[l.Run] = l.Params
		case "":
			calls[l.Run] = append(calls[l.Run], l)
		default:
			t.Fatalf("unexpected record %q", l.Record)
		}
	}
	got := map[string]string{}
	for run, p := range params {
		_, window := p["fault_from_ms"]
		cells := RowCells(fromLog(p, calls[run]), p["normal_rate"].(float64), window)
		got[run] = strings.Join(cells, " ")
	}
	if diff := cmp.Diff(seedtables.Storm, got); diff != "" {
		t.Errorf("tables from the log (-want +got):\n%s", diff)
	}
}

func TestLogRunParams(t *testing.T) {
	for _, l := range seedLog(t) {
		if l.Run != "uc katman + butce 0,30|kesinti (1 s)" || l.Record != "run" {
			continue
		}
		want := map[string]any{"allowed": 27.0, "budget": 0.3, "layers": []any{3.0, 3.0, 3.0},
			"fault_from_ms": 5000.0, "fault_to_ms": 6000.0, "fault_capacity": 0.0,
			"tick_ms": 10.0, "normal_rate": 0.9722, "capacity": 6.0}
		if diff := cmp.Diff(want, l.Params); diff != "" {
			t.Errorf("run params (-want +got):\n%s", diff)
		}
		return
	}
	t.Fatal("run line not found")
}

// Every call marked retried is followed by the next attempt of its request,
// later in the run; no other call is.
func TestLogRetriedMeansFollowed(t *testing.T) {
	type key struct {
		run     string
		req     int64
		attempt int
	}
	lines := seedLog(t)
	at := map[key]float64{}
	for _, l := range lines {
		if l.Record == "" {
			at[key{l.Run, l.Req, *l.Attempt}] = *l.TMs
		}
	}
	for _, l := range lines {
		if l.Record != "" {
			continue
		}
		next, followed := at[key{l.Run, l.Req, *l.Attempt + 1}]
		if followed != *l.Retried || (followed && next <= *l.TMs) {
			t.Fatalf("%s req %d attempt %d: retried=%v, next attempt found=%v at %v ms",
				l.Run, l.Req, *l.Attempt, *l.Retried, followed, next)
		}
	}
}

// Package benchlog writes the generated logs the benchmarks share: the
// analyses benchmark (analyze) and the scale script (bench/scale.sh, through
// cmd genlog).
package benchlog

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// WriteChaosLog writes n canonical rows shaped like a chaos experiment: runs
// control and experiment, a request every 0.2 ms on average per run at µs
// resolution, 5 % of the experiment's requests tagged, failures (4 %, 60 %
// for tagged requests after the experiment starts) retried up to twice 50 ms
// later with the same req. Params: window 40, start at the middle of the
// experiment run, the planned predicate, margin 0.10, an affected interval
// for retries. Interleaved, it writes one file; sequential, one per run.
func WriteChaosLog(dir string, n int, shape string) ([]string, error) {
	paths := []string{filepath.Join(dir, "control.ndjson"), filepath.Join(dir, "experiment.ndjson")}
	if shape == "interleaved" {
		paths = paths[:1]
	} else if shape != "sequential" {
		return nil, fmt.Errorf("REWIND_BENCH_SHAPE %q: want interleaved or sequential", shape)
	}
	var ws []*bufio.Writer
	for _, p := range paths {
		f, err := os.Create(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		ws = append(ws, bufio.NewWriterSize(f, 1<<20))
	}
	rng := rand.New(rand.NewPCG(12, 2))
	half := n / 2
	fmt.Fprintf(ws[0], `{"record":"experiment","params":{"window":40,"start":%d,"planned":"tag_hash(20260731, req) < 0.05","margin":0.1,"affected_from_ms":30000,"affected_to_ms":60000}}`+"\n", half/2)
	type state struct {
		req, rows int
		t         float64
		w         *bufio.Writer
	}
	runs := map[string]*state{"control": {w: ws[0]}, "experiment": {w: ws[len(ws)-1]}}
	for i := 0; i < n; {
		name := "control"
		if rng.IntN(2) == 1 {
			name = "experiment"
		}
		s := runs[name]
		s.t += rng.Float64() * 0.4
		tagged := name == "experiment" && rng.IntN(20) == 0
		pErr := 0.04
		if tagged && s.rows > half/2 {
			pErr = 0.6
		}
		for a := 0; a < 3 && i < n; a++ {
			out := "ok"
			if rng.Float64() < pErr {
				out = "error"
			}
			t := float64(int64(s.t*1000+float64(a)*50000)) / 1000
			fmt.Fprintf(s.w, `{"run":%q,"req":%d,"attempt":%d,"t_ms":%s,"latency_ms":%d.5,"outcome":%q,"tagged":%t}`+"\n",
				name, s.req, a, strconv.FormatFloat(t, 'f', -1, 64), 5+rng.IntN(200), out, tagged)
			i++
			s.rows++
			if out == "ok" || rng.IntN(2) == 0 {
				break
			}
		}
		s.req++
	}
	for _, w := range ws {
		if err := w.Flush(); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

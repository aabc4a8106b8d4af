package analyze

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// twinRequest is one request of a generated log, in integer ns.
type twinRequest struct {
	sendNs, endNs int64
	latency       float64
	failed        bool
}

// twinLog writes a random log whose ends often fall exactly on the 2 s
// ticks, and thresholds whose values often equal a sample: the ties.
func twinLog(r *rand.Rand) ([]twinRequest, string, []Threshold) {
	n := 5 + r.IntN(40)
	var reqs []twinRequest
	var b strings.Builder
	b.WriteString(`{"record":"experiment","experiment":"twin"}` + "\n")
	for i := 0; i < n; i++ {
		sendUs := int64(r.IntN(9000000))
		latUs := int64(1 + r.IntN(3000000))
		if r.IntN(4) == 0 { // end on a tick
			tick := (sendUs/2000000 + 1) * 2000000
			latUs = tick - sendUs
		}
		failed := r.IntN(5) == 0
		outcome := map[bool]string{false: "ok", true: "error"}[failed]
		lat := float64(latUs) / 1000
		fmt.Fprintf(&b, `{"experiment":"twin","run":"a","t_ms":%s,"latency_ms":%s,"outcome":%q}`+"\n",
			strconv.FormatFloat(float64(sendUs)/1000, 'f', -1, 64), strconv.FormatFloat(lat, 'f', -1, 64), outcome)
		reqs = append(reqs, twinRequest{sendUs * 1000, (sendUs + latUs) * 1000, lat, failed})
	}
	var ths []Threshold
	ops := []string{"<", "<=", ">", ">=", "==", "!="}
	for i := 0; i < 2+r.IntN(5); i++ {
		op := ops[r.IntN(len(ops))]
		var src string
		switch r.IntN(5) {
		case 0, 1:
			agg := []string{"p(50)", "p(90)", "p(95)", "p(99.9)", "med", "min", "max", "avg"}[r.IntN(8)]
			v := reqs[r.IntN(n)].latency
			if r.IntN(2) == 0 {
				v = math.Round(v) // between samples
			}
			src = "http_req_duration: " + agg + op + strconv.FormatFloat(v, 'f', -1, 64)
		case 2, 3:
			src = "http_req_failed: rate" + op + []string{"0", "0.1", "0.2", "0.25", "0.5", "0.333"}[r.IntN(6)]
		default:
			if r.IntN(2) == 0 {
				src = "http_reqs: count" + op + strconv.Itoa(r.IntN(n+1))
			} else {
				src = "http_reqs: rate" + op + []string{"1", "2", "2.5", "4"}[r.IntN(4)]
			}
		}
		th, err := ParseThreshold(src)
		if err != nil {
			panic(err)
		}
		th.AbortOnFail = r.IntN(2) == 0
		if th.AbortOnFail && r.IntN(2) == 0 {
			th.Delay, th.HasDelay = time.Duration(r.IntN(3))*2*time.Second, true
		}
		ths = append(ths, th)
	}
	return reqs, b.String(), ths
}

// twinEval is k6's engine loop over the generated log, written out in Go:
// every 2 s of test time each threshold over the requests ended by then
// (empty sinks skipped), an abortOnFail threshold aborting at the first
// failing tick past its delay, then the final evaluation.
func twinEval(reqs []twinRequest, ths []Threshold) [][]any {
	start, end := reqs[0].sendNs, int64(0)
	for _, q := range reqs {
		start = min(start, q.sendNs)
		end = max(end, q.endNs)
	}
	dur := end - start
	var moments []int64
	for t := int64(2e9); t < dur; t += 2e9 {
		moments = append(moments, t)
	}
	moments = append(moments, dur)
	failedBy := func(t int64) int64 {
		n := int64(0)
		for _, q := range reqs {
			if q.failed && q.endNs-start <= t {
				n++
			}
		}
		return n
	}
	type state struct{ firstFail, abort int64 }
	states := make([]state, len(ths))
	runAbort := int64(-1)
	for i, th := range ths {
		states[i] = state{-1, -1}
		for _, t := range moments {
			final := t == dur
			_, pass, empty := twinValue(reqs, start, t, th, final)
			if empty && !final || pass {
				continue
			}
			if states[i].firstFail < 0 {
				states[i].firstFail = t
			}
			if !final && th.AbortOnFail && states[i].abort < 0 && (!th.HasDelay || int64(th.Delay) < t) {
				states[i].abort = t
			}
		}
		if a := states[i].abort; a >= 0 && (runAbort < 0 || a < runAbort) {
			runAbort = a
		}
	}
	at := dur
	if runAbort >= 0 {
		at = runAbort
	}
	var rows [][]any
	for i, th := range ths {
		value, pass, _ := twinValue(reqs, start, at, th, true)
		n := int64(0)
		for _, q := range reqs {
			if q.endNs-start <= at {
				n++
			}
		}
		stop := states[i].firstFail
		if th.AbortOnFail {
			stop = states[i].abort
		}
		row := []any{"a", th.Metric, th.Source, th.AbortOnFail, n, value, pass,
			msOrNil(states[i].firstFail), msOrNil(states[i].abort), nil, failedBy(dur)}
		if stop >= 0 {
			row[9] = failedBy(stop)
		}
		rows = append(rows, row)
	}
	return rows
}

func msOrNil(ns int64) any {
	if ns < 0 {
		return nil
	}
	return float64(ns) / 1e6
}

// twinValue is one evaluation at test time t: the value, the verdict, and
// whether the sink is empty (final: as k6's end reads it, 0).
func twinValue(reqs []twinRequest, start, t int64, th Threshold, final bool) (any, bool, bool) {
	var lat []float64
	var fails int64
	for _, q := range reqs {
		if q.endNs-start <= t {
			lat = append(lat, q.latency)
			if q.failed {
				fails++
			}
		}
	}
	n := int64(len(lat))
	v := new(big.Rat)
	v.SetString(exactDecimal(th.Value))
	cmpRat := func(a, b *big.Rat) bool { return ratOp(a.Cmp(b), th.Op) }
	if n == 0 {
		if th.Agg == "rate" && th.Base == "http_req_failed" {
			return nil, true, true
		}
		return 0.0, cmpRat(new(big.Rat), v), true
	}
	switch th.Agg {
	case "p", "med":
		sort.Float64s(lat)
		x := k6P(lat, th.P/100)
		return x, floatOp(x, th.Op, th.Value), false
	case "min", "max":
		sort.Float64s(lat)
		x := lat[0]
		if th.Agg == "max" {
			x = lat[n-1]
		}
		return x, floatOp(x, th.Op, th.Value), false
	case "avg":
		sum := new(big.Rat)
		for _, l := range lat {
			r, _ := new(big.Rat).SetString(strconv.FormatFloat(l, 'f', 9, 64))
			sum.Add(sum, r)
		}
		x, _ := new(big.Rat).Quo(sum, big.NewRat(n, 1)).Float64()
		return x, cmpRat(sum, new(big.Rat).Mul(v, big.NewRat(n, 1))), false
	case "count":
		return float64(n), cmpRat(big.NewRat(n, 1), v), false
	}
	if th.Base == "http_req_failed" {
		return float64(fails) / float64(n), cmpRat(big.NewRat(fails, 1), new(big.Rat).Mul(v, big.NewRat(n, 1))), false
	}
	// http_reqs rate: n per second of test time
	return float64(n) / (float64(t) / 1e9), cmpRat(big.NewRat(n*1e9, 1), new(big.Rat).Mul(v, big.NewRat(t, 1))), false
}

func ratOp(c int, op string) bool {
	switch op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	case "==", "===":
		return c == 0
	}
	return c != 0
}

func floatOp(a float64, op string, b float64) bool {
	switch {
	case a < b:
		return ratOp(-1, op)
	case a > b:
		return ratOp(1, op)
	}
	return ratOp(0, op)
}

// The thresholds macro and the Go twin of k6's engine loop agree on
// generated logs full of ties: every verdict, first failure, abort, value
// and damage.
func TestThresholdsTwin(t *testing.T) {
	r := rand.New(rand.NewPCG(20260801, 11))
	for i := 0; i < 40; i++ {
		reqs, log, ths := twinLog(r)
		res, err := Thresholds(logsDB(t, log), ThresholdsOptions{Thresholds: ths})
		if err != nil {
			t.Fatalf("log %d: %v", i, err)
		}
		want := twinEval(reqs, ths)
		for j, row := range res.Rows {
			w := want[j]
			if a, ok := w[5].(float64); ok && ths[j].Agg == "avg" {
				if g, ok := row[5].(float64); ok && math.Abs(g-a) <= 1e-12*math.Abs(a) {
					w[5] = g
				}
			}
			if fmt.Sprint(w) != fmt.Sprint(row) {
				t.Errorf("log %d, %s:\n twin %v\n  sql %v\n%s", i, ths[j], w, row, log)
			}
		}
	}
}

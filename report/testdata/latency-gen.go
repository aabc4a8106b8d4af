//go:build ignore

// latency-gen writes latency.ndjson: a small canonical log with latencies
// for the report's latency view. Two runs at 5 requests/s: control (40 s)
// and experiment (50 s), where from request 100 (t = 20 s) to t = 35 s the
// injection slows tagged requests about sixfold and times some out at
// 1000 ms, and where nothing is sent from 42 s to 44 s (empty buckets).
// Fixed seed: `go run latency-gen.go > latency.ndjson` gives the same bytes.
package main

import (
	"fmt"
	"math"
	"math/rand/v2"
)

func main() {
	rng := rand.New(rand.NewPCG(14, 3))
	latency := func(median float64) float64 {
		return math.Round(median*math.Exp(0.35*rng.NormFloat64())*10) / 10
	}
	fmt.Println(`{"record":"experiment","experiment":"latency","params":{"window_ms":5000,"start":100}}`)
	for i := range 200 {
		outcome, status, ms := "ok", 200, latency(25)
		if rng.Float64() < 0.01 {
			outcome, status = "error", 503
		}
		fmt.Printf(`{"run":"control","req":%d,"t_ms":%d,"latency_ms":%g,"outcome":"%s","status":%d}`+"\n", i, 200*i, ms, outcome, status)
	}
	for i := range 250 {
		t := 200 * i
		if t >= 42000 && t < 44000 {
			continue
		}
		tagged := t >= 20000 && t < 35000 && rng.Float64() < 0.4
		outcome, status, ms := "ok", 200, latency(25)
		switch {
		case tagged && rng.Float64() < 0.2:
			outcome, status, ms = "timeout", 0, 1000
		case tagged:
			ms = latency(150)
		case rng.Float64() < 0.01:
			outcome, status = "error", 503
		}
		line := fmt.Sprintf(`{"run":"experiment","req":%d,"t_ms":%d,"latency_ms":%g,"outcome":"%s"`, i, t, ms, outcome)
		if status != 0 {
			line += fmt.Sprintf(`,"status":%d`, status)
		}
		fmt.Printf("%s,\"tagged\":%v}\n", line, tagged)
	}
}

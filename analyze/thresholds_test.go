package analyze

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/store"
)

func TestParseThreshold(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Threshold
	}{
		{"http_req_duration: p(95)<200", Threshold{Metric: "http_req_duration", Base: "http_req_duration",
			Source: "p(95)<200", Agg: "p", P: 95, Op: "<", Value: 200}},
		{"http_req_duration{status:200}: avg <= 150.5", Threshold{Metric: "http_req_duration{status:200}", Base: "http_req_duration",
			Tags: []Tag{{"status", "200"}}, Source: "avg <= 150.5", Agg: "avg", Op: "<=", Value: 150.5}},
		// a tag value may hold a colon; quotes and spaces around keys and values go, as in k6
		{`http_req_duration{ url : "https://a.test/x", group:'::g' }: med===3`, Threshold{
			Metric: `http_req_duration{ url : "https://a.test/x", group:'::g' }`, Base: "http_req_duration",
			Tags: []Tag{{"url", "https://a.test/x"}, {"group", "::g"}}, Source: "med===3", Agg: "med", P: 50, Op: "===", Value: 3}},
		{`http_req_failed: {"threshold": "rate<0.01", "abortOnFail": true, "delayAbortEval": "1m30s"}`, Threshold{
			Metric: "http_req_failed", Base: "http_req_failed", Source: "rate<0.01", Agg: "rate", Op: "<", Value: 0.01,
			AbortOnFail: true, Delay: 90 * time.Second, HasDelay: true, Object: true}},
		{"checks: rate!=0", Threshold{Metric: "checks", Base: "checks", Source: "rate!=0", Agg: "rate", Op: "!=", Value: 0}},
		// delayAbortEval as k6 reads it: a number, or a string without a unit, is ms
		{`http_req_failed: {"threshold": "rate<0.01", "abortOnFail": true, "delayAbortEval": "5000"}`, Threshold{
			Metric: "http_req_failed", Base: "http_req_failed", Source: "rate<0.01", Agg: "rate", Op: "<", Value: 0.01,
			AbortOnFail: true, Delay: 5 * time.Second, HasDelay: true, Object: true}},
		{`http_req_failed: {"threshold": "rate<0.01", "delayAbortEval": 250}`, Threshold{
			Metric: "http_req_failed", Base: "http_req_failed", Source: "rate<0.01", Agg: "rate", Op: "<", Value: 0.01,
			Delay: 250 * time.Millisecond, HasDelay: true, Object: true}},
	} {
		got, err := ParseThreshold(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.in, diff)
		}
	}
	for in, want := range map[string]string{
		"p(95)<200":                         `threshold "p(95)<200": want METRIC: EXPRESSION, e.g. 'http_req_duration: p(95)<200'`,
		"http_req_duration: p(95)":          `threshold "http_req_duration: p(95)": malformed expression "p(95)": want AGGREGATION OPERATOR VALUE, e.g. p(95)<200 or rate<0.01`,
		"http_req_duration: p(101)<1":       `threshold "http_req_duration: p(101)<1": malformed percentile "p(101)": provide a number between 0 and 100`,
		"http_req_duration: p<1":            `threshold "http_req_duration: p<1": unknown aggregation "p": want avg, min, max, med, p(N), rate, count or value`,
		"http_req_duration: avg<1e-10":      `threshold "http_req_duration: avg<1e-10": right-hand side "1e-10": at most 9 decimals (sums are compared exactly, in billionths)`,
		"http_req_duration{}: avg<1":        `threshold "http_req_duration{}: avg<1": submetric criteria for metric "http_req_duration" cannot be empty`,
		"http_req_duration{status}: avg<1":  `threshold "http_req_duration{status}: avg<1": metric "http_req_duration{status}": tag expression "status" is malformed (want key:value)`,
		"http_req_duration{status:1: avg<1": `threshold "http_req_duration{status:1: avg<1": metric has unmatched opening/close curly brace`,
		`http_req_failed: {"threshold": 1}`: `threshold "http_req_failed: {\"threshold\": 1}": want a k6 threshold object {"threshold": "rate<0.01", "abortOnFail": true, "delayAbortEval": "10s"}: json: cannot unmarshal number into Go struct field .threshold of type string`,
		"http_req_duration: avg<NaN":        `threshold "http_req_duration: avg<NaN": right-hand side "NaN": want a finite number below 1e18`,
		// a delay past a Duration failed in SQL on an INT128 cast
		`http_req_failed: {"threshold": "rate<0.01", "delayAbortEval": 1e300}`: `threshold "http_req_failed: {\"threshold\": \"rate<0.01\", \"delayAbortEval\": 1e300}": delayAbortEval: 1e300 ms: want a delay from 0 to 1e12 ms (about 31 years)`,
		`http_req_failed: {"threshold": "rate<0.01", "delayAbortEval": "-5"}`:  `threshold "http_req_failed: {\"threshold\": \"rate<0.01\", \"delayAbortEval\": \"-5\"}": delayAbortEval: -5 ms: want a delay from 0 to 1e12 ms (about 31 years)`,
	} {
		_, err := ParseThreshold(in)
		if err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", in, err, want)
		}
	}
}

// k6Sample is one point of a k6 JSON output, read here with encoding/json
// alone: the test's own reading of the file, not ingest's.
type k6Sample struct {
	metric string
	value  float64
	tags   map[string]string
}

func readK6Samples(t *testing.T, path string) []k6Sample {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []k6Sample
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec struct {
			Type   string `json:"type"`
			Metric string `json:"metric"`
			Data   struct {
				Value float64           `json:"value"`
				Tags  map[string]string `json:"tags"`
			} `json:"data"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Type == "Point" {
			out = append(out, k6Sample{rec.Metric, rec.Data.Value, rec.Data.Tags})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// k6Value computes a threshold's left-hand side at the end of the test as
// k6's sinks do (metrics/sink.go): TrendSink.P sorts and interpolates, avg
// is a running float sum over n, a rate counts values != 0, a counter sums,
// a gauge keeps its last value.
func k6Value(samples []k6Sample, th Threshold) (float64, int) {
	var vs []float64
	for _, s := range samples {
		if s.metric != th.Base {
			continue
		}
		match := true
		for _, g := range th.Tags {
			match = match && s.tags[g.K] == g.V
		}
		if match {
			vs = append(vs, s.value)
		}
	}
	n := len(vs)
	switch th.Agg {
	case "p", "med":
		sorted := append([]float64(nil), vs...)
		sort.Float64s(sorted)
		return k6P(sorted, th.P/100), n
	case "avg":
		sum := 0.0
		for _, v := range vs {
			sum += v
		}
		return sum / float64(n), n
	case "min", "max":
		m := vs[0]
		for _, v := range vs {
			if th.Agg == "min" && v < m || th.Agg == "max" && v > m {
				m = v
			}
		}
		return m, n
	case "rate":
		trues := 0
		for _, v := range vs {
			if v != 0 {
				trues++
			}
		}
		return float64(trues) / float64(n), n
	case "count":
		sum := 0.0
		for _, v := range vs {
			sum += v
		}
		return sum, n
	}
	return vs[n-1], n // value: a gauge's last sample
}

// k6P is TrendSink.P over sorted values.
func k6P(sorted []float64, pct float64) float64 {
	switch len(sorted) {
	case 0:
		return 0
	case 1:
		return sorted[0]
	}
	i := pct * (float64(len(sorted)) - 1.0)
	j, k := sorted[int(math.Floor(i))], sorted[int(math.Ceil(i))]
	f := i - math.Floor(i)
	// float64() forbids a fused multiply-add, which Go may use on arm64: k6
	// built for amd64 rounds the product, as DuckDB does
	return j + float64((k-j)*f)
}

// The verdicts rewind prints for real k6 files equal the values k6's own
// definitions give the same files, read independently: every point of the
// JSON, each metric's samples as k6's sinks keep them. Percentiles, min,
// max, rates, counts and gauge values must be equal to the bit; avg may
// differ in the last bits (k6 sums floats in arrival order, rewind exactly).
func TestThresholdsMatchK6(t *testing.T) {
	exprs := map[string][]string{
		"http_req_duration":                         {"p(95)", "p(90)", "p(99.9)", "p(0)", "p(100)", "med", "min", "max", "avg"},
		"http_req_duration{expected_response:true}": {"p(95)", "avg"},
		"http_req_duration{status:200}":             {"p(50)", "max"},
		"http_req_waiting":                          {"p(95)", "max"},
		"http_req_failed":                           {"rate"},
		"http_reqs":                                 {"count"},
		"checks":                                    {"rate"},
		"iterations":                                {"count"},
		"iteration_duration":                        {"p(95)"},
		"data_received":                             {"count"},
		"vus":                                       {"value"},
	}
	for _, name := range []string{"error-502-checks", "redirects", "same-time-same-tags", "unordered-tags"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("..", "ingest", "testdata", "real", "k6", name, "input.json")
			samples := readK6Samples(t, path)
			var ths []Threshold
			for metric, aggs := range exprs {
				for _, agg := range aggs {
					th, err := ParseThreshold(metric + ": " + agg + "<1000000")
					if err != nil {
						t.Fatal(err)
					}
					if _, n := k6Value(samples, th); n > 0 || strings.Contains(metric, "{") {
						ths = append(ths, th)
					}
				}
			}
			sort.Slice(ths, func(i, j int) bool { return ths[i].String() < ths[j].String() })
			// each threshold again, cut at its own value rounded to ms: the
			// decision must be k6's too
			for i, n := 0, len(ths); i < n; i++ {
				v, cnt := k6Value(samples, ths[i])
				if cnt == 0 {
					continue
				}
				th, err := ParseThreshold(ths[i].Metric + ": " + ths[i].aggText() + "<" + strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64))
				if err != nil {
					t.Fatal(err)
				}
				ths = append(ths, th)
			}
			res, err := Thresholds(ingestedDB(t, path), ThresholdsOptions{Thresholds: ths})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Rows) != len(ths) {
				t.Fatalf("%d rows for %d thresholds", len(res.Rows), len(ths))
			}
			iv, ip, in := res.Col("value"), res.Col("pass"), res.Col("samples")
			for i, th := range ths {
				want, n := k6Value(samples, th)
				row := res.Rows[i]
				if n == 0 {
					want = 0 // an empty trend reads 0 at the end
				}
				got, _ := row[iv].(float64)
				exact := th.Agg != "avg"
				if exact && got != want || !exact && math.Abs(got-want) > 1e-12*math.Abs(want) {
					t.Errorf("%s: value %v, k6 %v", th, row[iv], want)
				}
				if row[in] != int64(n) {
					t.Errorf("%s: %v samples, k6 %d", th, row[in], n)
				}
				if pass := want < th.Value; row[ip] != pass {
					t.Errorf("%s: pass %v, k6 %v (value %v)", th, row[ip], pass, want)
				}
			}
		})
	}
}

// BenchmarkThresholds times k6's cumulative evaluation of three thresholds
// over REWIND_BENCH_ROWS requests of one run (default 100000, 100 a second).
func BenchmarkThresholds(b *testing.B) {
	db, ths := benchLog(b)
	for b.Loop() {
		if _, err := Thresholds(db, ThresholdsOptions{Thresholds: ths}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBurnRate times two rules evaluated at every change.
func BenchmarkBurnRate(b *testing.B) {
	db, _ := benchLog(b)
	rules, _ := hypothesis.ParseBurnRules("1m/10m>14.4,5m/30m>6")
	for b.Loop() {
		if _, err := BurnRate(db, BurnRateOptions{SLO: "0.999", Rules: rules}); err != nil {
			b.Fatal(err)
		}
	}
}

func benchLog(b *testing.B) (*store.DB, []Threshold) {
	n := 100000
	if s := os.Getenv("REWIND_BENCH_ROWS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var buf strings.Builder
	buf.WriteString(`{"record":"experiment","experiment":"bench"}` + "\n")
	for i := 0; i < n; i++ {
		outcome := "ok"
		if r.IntN(200) == 0 {
			outcome = "error"
		}
		fmt.Fprintf(&buf, `{"experiment":"bench","run":"r","t_ms":%d.%03d,"latency_ms":%d.%03d,"outcome":%q}`+"\n",
			i*10, r.IntN(1000), r.IntN(300), r.IntN(1000), outcome)
	}
	path := filepath.Join(b.TempDir(), "bench.ndjson")
	if err := os.WriteFile(path, []byte(buf.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(b.TempDir(), "bench.duckdb"), store.Options{Mode: store.Write})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if _, err := ingest.Files(ctx, db, ingest.Options{}, []string{path}); err != nil {
		b.Fatal(err)
	}
	var ths []Threshold
	for _, s := range []string{"http_req_duration: p(95)<280", "http_req_duration: avg<150", `http_req_failed: {"threshold": "rate<0.01", "abortOnFail": true}`} {
		th, err := ParseThreshold(s)
		if err != nil {
			b.Fatal(err)
		}
		ths = append(ths, th)
	}
	return db, ths
}

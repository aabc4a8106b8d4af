package analyze

import (
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The gate readers never panic on malformed YAML, and every error names
// the file; an Argo metric's conditions evaluate within their bounds.
func FuzzGateYAML(f *testing.F) {
	paths, _ := filepath.Glob("testdata/gate/*/*.yaml")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("kind: AnalysisTemplate\nspec: {metrics: [{name: a, count: x, interval: 1s}]}"))
	f.Add([]byte("kind: Canary\nspec: {analysis: {stepWeight: 5, metrics: [{name: request-duration, thresholdRange: {max: [1]}}]}}"))
	f.Add([]byte("objectives: [{sli: a, pass: [{criteria: ['<=+1e400%']}]}]\ntotal_score: {pass: 90%}"))
	bind := map[string]string{}
	for _, n := range []string{"a", "pass", "random-fail", "success-rate", "latency", "request_latency_p95", "error_rate", "response_time_p95"} {
		bind[n] = "p95"
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o := GateOptions{File: "f.yaml", Data: data, Metrics: bind}
		ms, errA := readArgo(o)
		for _, m := range ms {
			argoMeasure(m, big.NewRat(1, 2), true) // bounded: an Error at worst
		}
		_, errF := readFlagger(o)
		_, errK := readKeptn(o)
		for _, err := range []error{errA, errF, errK} {
			if err != nil && !strings.HasPrefix(err.Error(), "f.yaml") {
				t.Errorf("error without the file name: %v", err)
			}
		}
	})
}

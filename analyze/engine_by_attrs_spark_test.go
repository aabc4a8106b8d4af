package analyze

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// attrsKinds are attrs values of every JSON kind that Spark writes as
// DuckDB's ->> does, so --by their key runs on Spark: strings with
// escapes and unicode, strings that read like a number or true (one group
// with the number, as locally), integers (-0, past 64 bits), floats Java
// writes alike (1.0, 1e5, -0.0), true, false, null and a missing key.
var attrsKinds = []string{`"GET"`, `"esc\"\\\/\b\f\n\r\t\u0001\u001f\u007f"`, `"\u00e9 é \ud83d\ude00 😀 \u2028"`,
	`"1.0"`, `1.0`, `1.00`, `"true"`, `true`, `false`, `"123"`, `123`, `-0`, `0`, `""`, `null`, ``,
	`9223372036854775808`, `-9223372036854775809`, `123456789012345678901234567890`, `1.5`, `0.1`, `1e5`, `"100000.0"`, `-0.0`}

// attrsNested are objects and arrays Jackson writes as yyjson does
// (members in order, a repeated key kept).
var attrsNested = []string{`{"b":1,"a":[1,2.0,"x\n\u00e9/"]}`, `[]`, `{}`, `{"a":1,"a":2}`, `[true,null]`, `{"s":"ü"}`}

// attrsRefused are values Spark writes otherwise, each under its own key
// (a row in 50 has it; the others "x"), with what the refusal says.
var attrsRefused = map[string][2]string{
	"exp":  {`1e-7`, `the number 1e-7, which Spark writes as 1.0E-7`},
	"long": {`123456789.123456789`, `the number 123456789.12345679, which Spark writes as 1.2345678912345679E8`},
	"inf":  {`1e400`, `a number past the double range, which Spark reads as "Infinity"`},
	"oinf": {`[1E400]`, `the array ["Infinity"], which may hold a number past the double range`},
	"oexp": {`{"a":1e-7}`, `the object {"a":1e-7}, which Spark writes as {"a":1.0E-7}`},
	"ninf": {`-1e400`, `a number past the double range, which Spark reads as "-Infinity"`},
}

// attrsLog is a log of a control and an experiment run whose rows carry
// attrs of every kind: k (attrsKinds), o (attrsNested), a key with a dot,
// one with a double quote and one named like a column, and the refused
// keys.
func attrsLog(n int) string {
	var b strings.Builder
	for i := range n {
		for _, run := range []string{"control", "experiment"} {
			var a []string
			if k := attrsKinds[i%len(attrsKinds)]; k != "" {
				a = append(a, `"k":`+k)
			}
			a = append(a, `"o":`+attrsNested[i%len(attrsNested)], fmt.Sprintf(`"a.b":"%d"`, i%3), fmt.Sprintf(`"q\"k":%d`, i%2),
				fmt.Sprintf(`"status":"s%d"`, i%4), `"x'y":1`)
			for key, v := range attrsRefused {
				if i%50 == 7 {
					a = append(a, fmt.Sprintf("%q:%s", key, v[0]))
				} else {
					a = append(a, fmt.Sprintf(`%q:"x"`, key))
				}
			}
			outcome := []string{`"ok"`, `"ok"`, `"error"`, `null`, `"ok"`}[i%5]
			fmt.Fprintf(&b, `{"experiment":"attrs","run":"%s","req":%d,"t_ms":%d,"latency_ms":%d.%d,"outcome":%s,"count":%d,"attrs":{%s}}`+"\n",
				run, i, i*37-500, 3+i%17, i%3, outcome, 1+i%3/2, strings.Join(a, ","))
		}
	}
	return b.String()
}

// --by an attrs key on Spark equals the local run for every JSON kind of
// value that Spark writes as DuckDB does (peaks aligned and sliding,
// judge with duration and count steps, retries, amplification; the steps'
// rows against the local macros'); a key no row has is the same error; a
// value Spark writes otherwise, and a key Spark's JSON path cannot name,
// are refused by name, never grouped under another text.
func TestByAttrsOnSpark(t *testing.T) {
	sparkURL(t)
	t.Parallel() // a step waits mostly on the cluster's scheduling: two tests overlap it
	local := logsDB(t, attrsLog(400))
	r := onSpark(t, sparkDataset(t, local))
	analyses := []func(by []string){
		func(by []string) {
			comparePeaksWith(t, local, r, PeaksOptions{Experiment: "attrs", By: by, ResolutionsMs: []int64{10, 100}, Sliding: true})
		},
		func(by []string) {
			compareJudge(t, local, r, JudgeOptions{Experiment: "attrs", By: by, Step: time.Second})
		},
		func(by []string) { compareJudge(t, local, r, JudgeOptions{Experiment: "attrs", By: by, StepN: 7}) },
		func(by []string) { compareRetries(t, local, r, RetriesOptions{Experiment: "attrs", By: by}) },
		func(by []string) {
			compareAmplification(t, local, r, AmplificationOptions{Experiment: "attrs", By: by})
		},
	}
	// each grouping in three of the analyses, each analysis over three of the
	// groupings (the group's expression is one, engine_by_attrs.go; CI time)
	for i, by := range [][]string{{"k"}, {"o"}, {"k", "outcome"}, {"a.b", `q"k`}, {"attrs.status", "k"}} {
		for _, j := range []int{i, i + 1, i + 3} {
			analyses[j%len(analyses)](by)
		}
	}
	// a key no row has: the local error, its known fields read on the cluster
	for _, by := range [][]string{{"nope"}, {"k", "nope"}, {"attrs.outcome"}} {
		o := PeaksOptions{Experiment: "attrs", By: by}
		_, want := Peaks(local, o)
		if _, err := PeaksOn(r, o); want == nil || err == nil || err.Error() != want.Error() {
			t.Errorf("%+v: local error %v, on Spark %v", o, want, err)
		}
	}
	for key, v := range attrsRefused {
		o := PeaksOptions{Experiment: "attrs", By: []string{"k", key}}
		if _, err := Peaks(local, o); err != nil {
			t.Fatalf("%+v locally: %v", o, err)
		}
		want := fmt.Sprintf("peaks by %q does not run on Spark yet: attrs %q has %s", key, key, v[1])
		if _, err := PeaksOn(r, o); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v on Spark: %v, want %s", o, err, want)
		}
	}
	o := JudgeOptions{Experiment: "attrs", By: []string{"x'y"}}
	if _, _, err := JudgeOn(r, o); err == nil || !strings.Contains(err.Error(), `judge by "x'y" does not run on Spark yet: an attrs key with '`) {
		t.Errorf("%+v on Spark: %v, want a refusal by name", o, err)
	}
}

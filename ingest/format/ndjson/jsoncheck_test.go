package ndjson

import "testing"

func TestCountTopKeys(t *testing.T) {
	for raw, want := range map[string]int{
		`{}`:                                   0,
		`{"a":1}`:                              1,
		`{"a":1,"b":{"c":2,"d":[{"e":3}]}}`:    2,
		`{"a":"x:\"y\":z","b" : 2}`:            2,
		`{"a":1,"a":2}`:                        2,
		`{"k":"\\","l":["m",{"n":"o"}],"p":1}`: 3,
	} {
		if got := countTopKeys([]byte(raw)); got != want {
			t.Errorf("countTopKeys(%s) = %d, want %d", raw, got, want)
		}
	}
}

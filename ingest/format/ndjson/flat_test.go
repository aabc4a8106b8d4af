package ndjson

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/ingest/record"
)

// Whenever the one-pass scanner accepts a line, the map decoder must accept
// it too and produce the same row: the scanner is an optimization only.
func checkFlatAgrees(t *testing.T, line string) {
	t.Helper()
	var fast record.Row
	fast.Reset(7)
	if !scanFlat([]byte(line), &fast) {
		return
	}
	var slow record.Row
	slow.Reset(7)
	isReq, err := decodeObject([]byte(line), &slow, new(collector))
	if err != nil || !isReq {
		t.Fatalf("scanner accepted %q, map decoder: request %v, error %v", line, isReq, err)
	}
	if fast != slow {
		t.Fatalf("line %q:\nscanner %+v\nmap     %+v", line, fast, slow)
	}
}

func TestFlatScannerAgrees(t *testing.T) {
	fixed := []string{
		`{"run":"a","req":1,"outcome":"ok"}`,
		`{"run":"a","req":"17","outcome":"OK ","tagged":true,"retried":null}`,
		`{"run":"a","req":007,"outcome":"ok"}`,
		`{"run":"a","req":1e3,"outcome":"ok"}`,
		`{"run":"a","req":1,"outcome":"ok","attempt":1.0}`,
		`{"run":"a","req":1,"outcome":"ok","t_ms":-0.5e-3,"latency_ms":1E+2}`,
		`{"run":"a","run":"b","outcome":"ok"}`,
		`{"run":"a\"b","outcome":"ok"}`,
		"{\"run\":\"a\tb\",\"outcome\":\"ok\"}",
		`{"run":"ä","outcome":"ok","user_id":12,"batch_id":"x","client_id":-3}`,
		`{"run":"a","outcome":"ok","status":1000}`,
		`{"run":"a","outcome":"ok","count":0}`,
		`{ "run" : "a" , "outcome" : "ok" }`,
		`{"run":"a","outcome":"ok",}`,
		`{"run":"a","outcome":"ok"} x`,
		`{}`,
	}
	for _, l := range fixed {
		checkFlatAgrees(t, l)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	values := []string{`"ok"`, `"error"`, `"Timeout"`, `1`, `-2`, `0`, `01`, `1.5`, `2e3`, `true`, `false`, `null`, `""`, `" 3"`, `"x y"`, `[1]`, `{"a":1}`, `1e400`}
	keys := []string{"run", "req", "attempt", "t_ms", "latency_ms", "outcome", "status", "tagged", "user_id",
		"batch_id", "client_id", "retried", "drop_reason", "count", "experiment", "role", "attrs", "ts", "extra"}
	for i := 0; i < 20000; i++ {
		n := 1 + rng.IntN(6)
		parts := make([]string, n)
		for j := range parts {
			parts[j] = fmt.Sprintf("%q:%s", keys[rng.IntN(len(keys))], values[rng.IntN(len(values))])
		}
		checkFlatAgrees(t, "{"+strings.Join(parts, ",")+"}")
	}
}

func FuzzFlatScanner(f *testing.F) {
	f.Add(`{"run":"a","req":1,"attempt":0,"t_ms":1.5,"outcome":"ok","tagged":false}`)
	f.Add(`{"run":"a","req":"x","outcome":"error","count":3}`)
	f.Fuzz(func(t *testing.T, line string) { checkFlatAgrees(t, line) })
}

// TestParseFloatIsStrconv: the scanner's decimal fast path gives
// strconv.ParseFloat's float, bit for bit, on numbers of every shape
// scanNumber passes.
func TestParseFloatIsStrconv(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 6))
	cases := []string{"0", "-0", "0.5", "-0.0", "12.50", "999999999999999", "9999999999999999", "0.000001234",
		"123456789.012345", "1234567890.123456", "1e5", "-2.5E-3", "0.1", "0.3", "4e12", "179769313486231570000"}
	for range 20000 {
		intPart := strconv.FormatUint(rng.Uint64N(1<<uint(rng.IntN(50)+1)), 10)
		s := intPart
		if rng.IntN(4) > 0 {
			s += "." + fmt.Sprintf("%012d", rng.Uint64N(1e12))[:1+rng.IntN(12)]
		}
		if rng.IntN(3) == 0 {
			s = "-" + s
		}
		cases = append(cases, s)
	}
	for _, s := range cases {
		if scanNumber([]byte(s), 0) != len(s) {
			continue // not a JSON number: the scanner never passes it on
		}
		want, wantErr := strconv.ParseFloat(s, 64)
		got, err := parseFloat(s)
		if math.Float64bits(got) != math.Float64bits(want) || (err == nil) != (wantErr == nil) {
			t.Fatalf("parseFloat(%q) = %v, %v; strconv: %v, %v", s, got, err, want, wantErr)
		}
	}
}

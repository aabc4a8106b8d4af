package ingest

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/ingest/record"
)

// jsonKey is a key of a JSON object, its first letter in group 1.
var jsonKey = regexp.MustCompile(`"([A-Za-z])[A-Za-z_]*"\s*:`)

// jsonValue is a text value of a JSON object, its first letter in group 1.
var jsonValue = regexp.MustCompile(`:\s*"([A-Za-z])`)

// TestInvalidTextEveryFormat: invalid UTF-8 in a key (a header name for
// CSV formats) and in a value, and a lone surrogate escape in JSON, fail
// every text format at their line, whatever its decoder would have made of
// them: one real file per format, changed at one byte.
func TestInvalidTextEveryFormat(t *testing.T) {
	seen := map[string]bool{}
	inputs, _ := filepath.Glob("testdata/real/*/*/input.*")
	for _, in := range inputs {
		data := readInput(t, in)
		from := filepath.Base(filepath.Dir(filepath.Dir(in)))
		if !validFormat(from) || realFormat(filepath.Dir(in), from) != from {
			continue // a server's log read with its format line (server.txt) is clf, which clf's own case covers
		}
		if seen[from] || bytes.IndexByte(data, 0) >= 0 || strings.HasSuffix(in, ".binpb") {
			continue
		}
		seen[from] = true
		t.Run(from, func(t *testing.T) {
			// Envoy's text lines start with '[' too: JSON has keys and text values.
			isJSON := len(record.JSONText(data)) > 0 && (record.JSONText(data)[0] == '{' || record.JSONText(data)[0] == '[') &&
				jsonKey.Match(data) && jsonValue.Match(data)
			key := []int{0, 0, 0, 0}
			if isJSON {
				key = jsonKey.FindSubmatchIndex(data)
			} else {
				key[2] = bytes.IndexFunc(data, func(r rune) bool { return r >= 'A' && r <= 'z' })
			}
			cases := map[string]int{"key": key[2]}
			if isJSON {
				cases["value"] = jsonValue.FindSubmatchIndex(data)[2]
			} else if nl := bytes.IndexByte(data, '\n'); nl > 0 {
				cases["value"] = nl + 1 + bytes.IndexFunc(data[nl+1:], func(r rune) bool { return r >= 'A' && r <= 'z' })
			}
			for what, off := range cases {
				bad := append(append(append([]byte{}, data[:off]...), 0xff), data[off+1:]...)
				line := bytes.Count(data[:off], []byte("\n")) + 1
				refusedAt(t, what+filepath.Ext(in), bad, from, fmt.Sprintf(":%d: ", line))
				refusedAt(t, what+filepath.Ext(in), bad, from, "invalid UTF-8")
			}
			if isJSON {
				off := cases["value"]
				bad := append(append(append([]byte{}, data[:off]...), `\udc00`...), data[off:]...)
				refusedAt(t, "surrogate"+filepath.Ext(in), bad, from, fmt.Sprintf(":%d: invalid UTF-8: a lone UTF-16 surrogate", bytes.Count(data[:off], []byte("\n"))+1))
			}
		})
	}
}

func TestLoneSurrogate(t *testing.T) {
	for in, want := range map[string]int{
		`"a\udc00"`: 2, `"\ud83d\ude00"`: -1, `"\\udc00"`: -1, `"\ud83d x"`: 1, `"\\\udc00"`: 3, `"\uDFFF"`: 1, `"\u00e9"`: -1,
	} {
		if got := loneSurrogate([]byte(in), 0, true); got != want {
			t.Errorf("loneSurrogate(%s) = %d, want %d", in, got, want)
		}
	}
}

// TestTextCheckAcrossReads: a character or a surrogate pair split between
// two reads is not bad text; a bad one is found whatever the cut.
func TestTextCheckAcrossReads(t *testing.T) {
	good := []byte("{\"a\":\"é \\ud83d\\ude00 ü\"}\n")
	for cut := 0; cut <= len(good); cut++ {
		var c textCheck
		c.scan(good[:cut], 1, true, false)
		c.scan(good[cut:], 1+int64(bytes.Count(good[:cut], []byte("\n"))), true, true)
		if c.badLine != 0 {
			t.Errorf("cut at %d: %s at line %d", cut, c.what, c.badLine)
		}
	}
	bad := []byte("{}\n{\"a\":\"x\\udc00\"}\n")
	for cut := 0; cut <= len(bad); cut++ {
		var c textCheck
		c.scan(bad[:cut], 1, true, false)
		c.scan(bad[cut:], 1+int64(bytes.Count(bad[:cut], []byte("\n"))), true, true)
		if c.badLine != 2 {
			t.Errorf("cut at %d: line %d, want 2", cut, c.badLine)
		}
	}
}

func TestTextCheckTruncatedAtEnd(t *testing.T) {
	var c textCheck
	c.scan([]byte("{\"a\":\"x\"}\n{\"a\":\"\xe2\x82"), 1, true, false)
	c.scan(nil, 2, true, true)
	if c.badLine != 2 {
		t.Errorf("line %d (%s), want 2", c.badLine, c.what)
	}
}

// An error quotes at most 40 bytes of a bad value: a 1 MB field is not
// echoed whole.
func TestErrorsTruncateValues(t *testing.T) {
	big := strings.Repeat("9x", 500_000)
	cases := map[string]string{
		"a.csv":    "run,outcome,latency_ms\na,ok," + big + "\n",
		"b.ndjson": `{"run":"a","outcome":"ok","attempt":"` + big + `"}` + "\n",
		"h.log":    `127.0.0.1:1 [02/Dec/2026:14:24:22.550] web app/s1 0/0/0/1/1 ` + big + ` 120 - - ---- 1/1/0/0/0 0/0 ""` + "\n",
	}
	for name, in := range cases {
		db, _ := openDB(t)
		_, err := Files(context.Background(), db, Options{}, []string{writeFile(t, name, in)})
		if err == nil || len(err.Error()) > 400 {
			t.Errorf("%s: an error of %d bytes: %.300v", name, len(fmt.Sprint(err)), err)
		}
	}
}

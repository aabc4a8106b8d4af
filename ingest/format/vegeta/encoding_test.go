package vegeta

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// TestVegetaDetect tells each of vegeta's encodings by its first bytes, and
// none of them in other formats' files.
func TestVegetaDetect(t *testing.T) {
	var gob bytes.Buffer
	enc := vegeta.NewEncoder(&gob)
	for i := range 2 {
		r := vegeta.Result{Seq: uint64(i), Code: 200, Timestamp: time.Unix(1714557600, int64(i)), Latency: time.Millisecond,
			Headers: http.Header{"A": {"b"}}}
		if err := enc.Encode(&r); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{
		"json": `{"attack":"a","seq":0,"code":200,"timestamp":"2024-05-01T10:00:00.000001500Z","latency":1,"bytes_out":3,"bytes_in":4,"error":"","body":"aGk=","method":"GET","url":"http://x/","headers":{"A":["b"]}}` + "\n",
		"csv":  "1714557600000000000,200,1500,0,0,,,a,0,GET,http://x/,\n",
		"gob":  gob.String(),
	} {
		if got := vegetaEncoding([]byte(body)); got != name {
			t.Errorf("%s detected as %q", name, got)
		}
	}
	for _, body := range []string{`{"run":"r","req":1}`, "timeStamp,elapsed,label\n1,2,x\n", "a,b,c\n", "\x00\x01garbage"} {
		if got := vegetaEncoding([]byte(body)); got != "" {
			t.Errorf("%q detected as vegeta %q", body, got)
		}
	}
}

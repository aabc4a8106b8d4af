package clf

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rewind-dev/rewind/ingest/record"
)

// Envoy's own format language, from its documentation (no Envoy runs on
// this machine: Debian 12 has no package): HAND-WRITTEN lines in the shape
// Envoy's text access log writes for this format. START_TIME is the start,
// DURATION ms.
func TestEnvoyFormatHandWritten(t *testing.T) {
	format := `text_format: "[%START_TIME%] \"%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%\" %RESPONSE_CODE% %RESPONSE_FLAGS% %DURATION% \"%REQ(X-REQUEST-ID)%\"\n"`
	lines := []string{
		`[2024-05-01T10:00:00.123Z] "GET /a HTTP/1.1" 200 - 7 "0f5e4b2a-1111-4c1d-9b1e-000000000001"`,
		`[2024-05-01T10:00:01.500Z] "POST /b HTTP/2" 503 UF 1500 "-"`,
	}
	lo, err := parseServerLayout("envoy", format)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, line := range lines {
		d := clfDecoder{lo: lo, given: true, run: "r"}
		var r record.Row
		r.Reset(int64(i + 1))
		if _, err := d.line(&r, []byte(line), nil); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		got = append(got, describeRow(&r)+" "+r.Attrs)
	}
	want := []string{
		`ts=10:00:00.123000 latency=7 status=200 req=0f5e4b2a-1111-4c1d-9b1e-000000000001 {"method":"GET","path":"/a","protocol":"HTTP/1.1","start_time":"2024-05-01T10:00:00.123Z"}`,
		`ts=10:00:01.500000 latency=1500 status=503 {"method":"POST","path":"/b","protocol":"HTTP/2","response_flags":"UF","start_time":"2024-05-01T10:00:01.500Z"}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

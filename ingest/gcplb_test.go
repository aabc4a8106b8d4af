package ingest

import (
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/gcplb"
)

func FuzzGCPLB(f *testing.F) { fuzzFormat(f, gcplb.Name, "testdata/real/gcp-lb/*/input*") }

const gcpOK = `{"httpRequest":{"latency":"0.058s","status":200},"resource":{"type":"http_load_balancer"},"timestamp":"2023-04-21T15:59:24.827008Z"}`

func TestGCPLBDetect(t *testing.T) {
	cases := []struct {
		head string
		want bool
	}{
		{gcpOK, true},
		{"[\n  {\n    \"httpRequest\": {\"status\": 200},\n    \"jsonPayload\": {\"@type\": \"type.googleapis.com/google.cloud.loadbalancing.type.LoadBalancerLogEntry\"}", true},
		{`{"httpRequest":{"status":200},"resource":{"type":"cloud_run_revision"}}`, false}, // not a load balancer's
		{`[{"run":"a","latency_ms":3,"outcome":"ok"}]`, false},
	}
	for _, c := range cases {
		if got := (gcplb.Format{}).Detect("x.json", []byte(c.head)); got != c.want {
			t.Errorf("gcplb.Format{}.Detect(%q) = %v, want %v", c.head, got, c.want)
		}
	}
}

func TestGCPLBErrors(t *testing.T) {
	checkErrors(t, gcplb.Name, "lb.json", map[string]errorCase{
		"bad-latency": {gcpOK + "\n" + `{"httpRequest":{"latency":"58ms","status":200},"timestamp":"2023-04-21T15:59:24Z"}`,
			`:2: field "httpRequest.latency": want a duration such as "0.058s", got "58ms"`},
		"number-latency": {`{"httpRequest":{"latency":0.058,"status":200},"timestamp":"2023-04-21T15:59:24Z"}`,
			`:1: field "httpRequest.latency": want a duration such as "0.058s", got number 0.058`},
		"bad-time": {`{"httpRequest":{"status":200},"timestamp":"2023-04-21 15:59"}`,
			`:1: field "timestamp": want an RFC 3339 time such as 2020-06-08T23:41:30.078651Z, got "2023-04-21 15:59"`},
		"bad-status": {`{"httpRequest":{"status":"200"},"timestamp":"2023-04-21T15:59:24Z"}`,
			`:1: field "httpRequest.status": want an HTTP status code, got "200"`},
		"no-request": {`{"textPayload":"x","timestamp":"2023-04-21T15:59:24Z"}`,
			`:1: field "httpRequest": want an object (an HTTP load balancer's request log), got null`},
		"array-entry": {"[\n" + gcpOK + ",\n\n  {\"httpRequest\":{\"latency\":\"1\"},\"timestamp\":\"2023-04-21T15:59:24Z\"}\n]",
			`:4: field "httpRequest.latency": want a duration such as "0.058s", got "1"`},
		"array-cut": {"[\n" + gcpOK + ",\n", `:2: bad JSON: the array ends before its closing ]`},
		"not-json":  {gcpOK + "\nhello", `:2: want a LogEntry JSON object, got "hello"`},
	})
}

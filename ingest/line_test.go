package ingest

import (
	"testing"
)

// TestDecodeLineEvent: an event line gives its type, subject and t_ms to
// rewind watch (--baseline-until EVENT splits at one).
func TestDecodeLineEvent(t *testing.T) {
	a, isReq, err := DecodeLine([]byte(`{"record":"event","type":"action_start","subject":"inject","t_ms":1500}`), 3)
	if err != nil || isReq {
		t.Fatalf("DecodeLine: %v (request %v)", err, isReq)
	}
	if a.Record != "event" || a.EventType != "action_start" || a.Subject != "inject" || !a.HasTMs || a.TMs != 1500 {
		t.Errorf("got %+v", a)
	}
	a, _, err = DecodeLine([]byte(`{"record":"event","type":"state"}`), 4)
	if err != nil || a.EventType != "state" || a.HasTMs || a.Subject != "" {
		t.Errorf("an event without t_ms or subject: %+v, %v", a, err)
	}
	a, isReq, err = DecodeLine([]byte(`{"run":"r","outcome":"ok","status":503,"latency_ms":12.5,"tagged":false}`), 5)
	if err != nil || !isReq || !a.HasStatus || a.Status != 503 || !a.HasLatency || a.LatencyMs != 12.5 || !a.HasTagged {
		t.Errorf("a request: %+v, %v", a, err)
	}
}

// FuzzDecodeLine: watch's line decoder never panics, and what it returns is
// consistent: an error, or a request, or a record.
func FuzzDecodeLine(f *testing.F) {
	for _, s := range []string{
		`{"run":"r","outcome":"ok","t_ms":1,"latency_ms":2,"status":200,"tagged":true,"count":3}`,
		`{"record":"event","type":"action_start","subject":"x","t_ms":1500}`,
		`{"record":"event","type":"a","t_ms":"x"}`,
		`{"record":"run","run":"r","role":"control"}`,
		`{"record":"experiment","experiment":"e"}`,
		`{"run":"r"}`, `{`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		a, isReq, err := DecodeLine(b, 1)
		if err != nil {
			return
		}
		if isReq != (a.Record == "request") {
			t.Fatalf("request %v but record %q", isReq, a.Record)
		}
		if a.EventType != "" && a.Record != "event" {
			t.Fatalf("event type %q on a %q record", a.EventType, a.Record)
		}
	})
}

package ingest

import (
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/traefik"
)

func FuzzTraefik(f *testing.F) { fuzzFormat(f, traefik.Name, "testdata/real/traefik/*/input*") }

func TestTraefikDetect(t *testing.T) {
	cases := []struct {
		head string
		want bool
	}{
		{`{"DownstreamStatus":200,"Duration":5,"StartUTC":"2024-08-25T04:34:37.306691884Z"}`, true},
		{`{"StartUTC":"2024-08-25T04:34:37Z","DownstreamStatus":200}`, true},
		{`{"StartUTC":"2024-08-25T04:34:37Z","run":"a"}`, false},
		{`{"start_time":"2020-09-30T03:22:42.267Z","response_code":"200","duration":3}`, false}, // Envoy JSON: access
		{`{"StartUTC":"2024-08-25T04:34:37Z","Duration":5`, false},
	}
	for _, c := range cases {
		if got := (traefik.Format{}).Detect("access.log", []byte(c.head)); got != c.want {
			t.Errorf("traefik.Format{}.Detect(%q) = %v, want %v", c.head, got, c.want)
		}
	}
}

func TestTraefikErrors(t *testing.T) {
	ok := `{"DownstreamStatus":200,"Duration":5,"StartUTC":"2024-08-25T04:34:37Z"}` + "\n"
	checkErrors(t, traefik.Name, "traefik.log", map[string]errorCase{
		"bad-start":     {ok + `{"DownstreamStatus":200,"Duration":5,"StartUTC":"yesterday"}`, `:2: field "StartUTC": want an RFC 3339 time such as 2024-08-25T04:34:37.306691884Z, got "yesterday"`},
		"no-start":      {`{"DownstreamStatus":200,"Duration":5}`, `:1: field "StartUTC": want an RFC 3339 time, got null`},
		"float-dur":     {ok + ok + `{"DownstreamStatus":200,"Duration":1.5,"StartUTC":"2024-08-25T04:34:37Z"}`, `:3: field "Duration": want integer nanoseconds, got number 1.5`},
		"string-dur":    {`{"DownstreamStatus":200,"Duration":"5ms","StartUTC":"2024-08-25T04:34:37Z"}`, `:1: field "Duration": want integer nanoseconds, got "5ms"`},
		"bad-status":    {`{"DownstreamStatus":"OK","Duration":5,"StartUTC":"2024-08-25T04:34:37Z"}`, `:1: field "DownstreamStatus": want an HTTP status code, got "OK"`},
		"missing-state": {`{"Duration":5,"StartUTC":"2024-08-25T04:34:37Z"}`, `:1: field "DownstreamStatus": want an HTTP status code, got null`},
		"not-json":      {ok + `time="2024" level=info`, `:2: want a JSON object per line (Traefik's JSON access log), got "time=\"2024\" level=in…"`},
		"bad-json":      {ok + `{"Duration":`, `:2: bad JSON: `},
	})
}

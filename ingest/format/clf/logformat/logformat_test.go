package logformat

import (
	"fmt"
	"strings"
	"testing"
)

// describe is a layout as text: literal text quoted, each field as
// name:role with its time semantics (start/end, layout or epoch unit,
// step) or latency unit.
func describe(lo *Layout) string {
	var parts []string
	for _, it := range lo.Items {
		if it.F == nil {
			parts = append(parts, fmt.Sprintf("%q", it.Lit))
			continue
		}
		f := it.F
		s := f.Name
		switch f.Role {
		case Time:
			when := "start"
			if f.End {
				when = "end"
			}
			how := f.GoLayout
			if f.EpochUnitUs > 0 {
				how = fmt.Sprintf("epoch/%dus", f.EpochUnitUs)
			}
			s += fmt.Sprintf(":time(%s %s %gms)", when, how, f.StepMs)
		case Latency:
			s += fmt.Sprintf(":latency(e%d whole=%v)", f.Shift, f.Whole)
		case Status:
			s += ":status"
		case Request:
			s += ":request"
		case ReqID:
			s += ":reqid"
		}
		if f.Pad {
			s += ":pad"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// Each server's format line, as its configuration writes it, and what
// the line reader gets: the times' start or end, units and resolution are
// each server's own (docs/formats/servers.md gives the sources).
func TestParseServers(t *testing.T) {
	cases := []struct{ server, line, want string }{
		{"", `log_format t '$msec $status $request_time';`, `msec:time(end epoch/1000000us 1ms) " " status:status " " request_time:latency(e3 whole=false)`},
		{"", `LogFormat "%t %>s %D" x`, `"[" time_local:time(start 02/Jan/2006:15:04:05 -0700 1000ms) "] " status:status " " request_time_us:latency(e-3 whole=true)`},
		{"lighttpd", `accesslog.format = "%t %>s %D"`, `"[" time_local:time(end 02/Jan/2006:15:04:05 -0700 1000ms) "] " status:status " " request_time_us:latency(e-3 whole=true)`},
		{"", `accesslog.format = "%{begin:msec}t %s %{ns}T"`, `time_msec:time(start epoch/1000us 1ms) " " status:status " " request_time_ns:latency(e-6 whole=true)`},
		{"tomcat10", `<Valve className="org.apache.catalina.valves.AccessLogValve" pattern="%{msec}t &quot;%r&quot; %s %D" />`, `time_msec:time(end epoch/1000us 1ms) " \"" request:request "\" " status:status " " request_time_us:latency(e-3 whole=true)`},
		{"tomcat9", `pattern='%{yyyy-MM-dd HH:mm:ss.SSS Z}t %s %D'`, `time:time(end 2006-01-02 15:04:05.000 -0700 1ms) " " status:status " " request_time_ms:latency(e0 whole=true)`},
		{"tomcat", `combined`, `remote_host " " remote_logname " " remote_user " [" time_local:time(end 02/Jan/2006:15:04:05 -0700 1000ms) "] \"" request:request "\" " status:status " " body_bytes_sent " \"" http_referer "\" \"" http_user_agent "\""`},
		{"varnishncsa", `varnishncsa -F '%t %s %D %{Varnish:hitmiss}x %{VSL:Timestamp:Resp[2]}x'`, `"[" time_local:time(start 02/Jan/2006:15:04:05 -0700 1000ms) "] " status:status " " request_time_us:latency(e-3 whole=true) " " varnish_hitmiss " " vsl_timestamp_resp_2`},
		{"squid", `squid`, `time:time(end epoch/1000000us 1ms) " " response_time_ms:latency(e0 whole=true):pad " " remote_addr " " squid_status "/" status:status " " bytes_sent " " method " " url " " remote_user " " hierarchy "/" peer_addr " " content_type`},
		{"squid", `logformat x %tS %>Hs "%{User-Agent}>h"`, `time_start:time(start epoch/1000000us 1ms) " " status:status " \"" http_user_agent "\""`},
		{"squid", `common`, `remote_addr " " user_ident " " remote_user " [" time_local:time(end 02/Jan/2006:15:04:05 -0700 1000ms) "] \"" method " " url " HTTP/" protocol_version "\" " status:status " " bytes_sent " " squid_status ":" hierarchy`},
		{"trafficserver", `format: '%<cqtq> %<ttms> %<{User-Agent}cqh> %<pssc>'`, `time:time(start epoch/1000000us 1ms) " " request_time_ms:latency(e0 whole=true) " " http_user_agent " " status:status`},
		{"", `%<cqtn> %<pssc> %<tts>`, `time_local:time(start 02/Jan/2006:15:04:05 -0700 1000ms) " " status:status " " request_time_s:latency(e3 whole=true)`},
		{"h2o", `format: "%t %s %{duration}x %{connect-time}x"`, `"[" time_local:time(start 02/Jan/2006:15:04:05 -0700 1000ms) "] " status:status " " h2o_duration:latency(e3 whole=false) " " h2o_connect_time`},
		{"envoy", `text_format: "[%START_TIME%] %RESPONSE_CODE% %DURATION% %REQ(X-REQUEST-ID)%\n"`, `"[" start_time:time(start 2006-01-02T15:04:05.000Z07:00 1ms) "] " response_code:status " " duration:latency(e0 whole=true) " " http_x_request_id:reqid`},
		{"envoy", `%START_TIME(%Y-%m-%dT%H:%M:%S.%6f%z)% %RESPONSE_CODE%`, `start_time:time(start 2006-01-02T15:04:05.000000-0700 0.001ms) " " response_code:status`},
		{"haproxy", `log-format "%ci [%trg] %ST %Ta %Tt %{+Q}r %ID"`, `client_ip " [" request_date:time(start 02/Jan/2006:15:04:05 -0700 1000ms) "] " status:status " " Ta:latency(e0 whole=true) " " Tt " \"" request:request "\" " unique_id:reqid`},
		{"haproxy", `log-format %Ts.%ms\ %ST\ %Tt`, `accept_ts:time(start epoch/1000000us 1ms) " " status:status " " Tt:latency(e0 whole=true)`},
	}
	for _, c := range cases {
		lo, err := Parse(c.server, c.line)
		if err != nil {
			t.Errorf("Parse(%q, %q): %v", c.server, c.line, err)
			continue
		}
		if got := describe(lo); got != c.want {
			t.Errorf("Parse(%q, %q):\n got %s\nwant %s", c.server, c.line, got, c.want)
		}
	}
}

// What each language refuses, naming what would work.
func TestParseServerErrors(t *testing.T) {
	cases := []struct{ server, line, want string }{
		{"", "", "log format is empty"},
		{"", "   ", "log format is empty"},
		{"nginx2", "$status", `server "nginx2": want one of`},
		{"", `pattern="%h %t %D"`, "give the server's version, server tomcat10"},
		{"tomcat", `%t %s %D`, "%D is µs in Tomcat 10 and later but ms in Tomcat 9 and earlier: name the version with server tomcat10 or server tomcat9"},
		{"", `%b %B %>s`, "it names body_bytes_sent twice"},
		{"", `$status $status`, "it names status twice"},
		{"squid", `%ts %zz`, "is not a Squid logformat code"},
		{"trafficserver", `%<cqth> %<pssc>`, "%<cqth> is a time rewind does not read: use %<cqtq>"},
		{"haproxy", `%ci [%tr] %ST`, "%tr is a local time without a zone: use %trg"},
		{"h2o", `%t %s %D`, "%D is not an h2o directive: h2o writes durations with %{duration}x"},
		{"varnishncsa", `%t %{Varnish:nope}x`, "%{Varnish:nope}x: want time_firstbyte"},
		{"lighttpd", `literal only`, "it has no field"},
		{"", `just text`, "want an nginx log_format"},
	}
	for _, c := range cases {
		_, err := Parse(c.server, c.line)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q, %q) = %v, want an error with %q", c.server, c.line, err, c.want)
		}
	}
}

// A format line of 10,000 fields reads in one pass: each directive is
// found from where the last ended (the regexp search it replaced cleared
// state as long as the rest of the line for every directive).
func BenchmarkParseWide(b *testing.B) {
	var lf []string
	for i := 0; i < 10000; i++ {
		lf = append(lf, fmt.Sprintf("%%{X-H%d}i", i))
	}
	s := strings.Join(lf, " ") + " %>s"
	for i := 0; i < b.N; i++ {
		if _, err := Parse("", s); err != nil {
			b.Fatal(err)
		}
	}
}

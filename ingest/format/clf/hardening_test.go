package clf

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/ingest/record"
)

// The hardening cases of issue 40 over --log-format: each line reads as
// the server wrote it or is refused, never misread.
func TestLogFormatHardening(t *testing.T) {
	refused := map[string]struct{ layout, line, want string }{
		"same-key-twice":   {`%b %B %>s`, `1 2 200`, `body_bytes_sent twice`},
		"same-var-twice":   {`$status $body_bytes_sent $body_bytes_sent`, `200 1 2`, `body_bytes_sent twice`},
		"underscore-us":    {`%>s %D`, `200 1_000`, `want a whole number of µs, got "1_000"`},
		"underscore-s":     {`$status $request_time`, `200 1_0.5`, `want a number of seconds, got "1_0.5"`},
		"hex-float":        {`$status $request_time`, `200 0x1p4`, `want a number of seconds, got "0x1p4"`},
		"hex-float-ms":     {`%>s %{ms}T`, `200 0x10`, `want a whole number of ms, got "0x10"`},
		"leading-dot":      {`$status $request_time`, `200 .5`, `want a number of seconds, got ".5"`},
		"trailing-dot":     {`$status $request_time`, `200 5.`, `want a number of seconds, got "5."`},
		"inf":              {`$status $request_time`, `200 Inf`, `want a number of seconds, got "Inf"`},
		"epoch-underscore": {`%{msec}t %>s`, `1_714_557_600_123 200`, `want a number of ms since the epoch`},
	}
	for name, c := range refused {
		t.Run(name, func(t *testing.T) {
			lo, err := parseLayout(c.layout)
			if err == nil {
				d := clfDecoder{lo: lo, given: true, run: "r"}
				var r record.Row
				r.Reset(1)
				_, err = d.line(&r, []byte(c.line), nil)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%q reading %q: %v, want an error with %q", c.layout, c.line, err, c.want)
			}
		})
	}
	read := []struct{ layout, line, want string }{
		{`%h %{%d/%b/%Y:%H:%M:%S %z}t %>s %D`, `1.2.3.4 01/May/2024:13:00:00 +0300 200 1500`, "ts=10:00:00.000000 latency=1.5 status=200"},
		{`%{%d/%b/%Y %H:%M:%S %z}t %>s`, `01/May/2024 13:00:00 +0300 200`, "ts=10:00:00.000000 status=200"},
		{`%>s %{%Y-%m-%d %H:%M:%S}t`, `200 2024-05-01 10:00:00`, "ts=10:00:00.000000 status=200"},
	}
	for _, c := range read {
		lo, err := parseLayout(c.layout)
		if err != nil {
			t.Errorf("parseLayout(%q): %v", c.layout, err)
			continue
		}
		d := clfDecoder{lo: lo, given: true, run: "r"}
		var r record.Row
		r.Reset(1)
		if _, err := d.line(&r, []byte(c.line), nil); err != nil {
			t.Errorf("%q reading %q: %v", c.layout, c.line, err)
			continue
		}
		if got := describeRow(&r); got != c.want {
			t.Errorf("%q reading %q:\n got %s\nwant %s", c.layout, c.line, got, c.want)
		}
	}
}

// A line with 10,000 fields sorts its attrs in n log n comparisons: the
// insertion sort it had made a --log-format of 10,000 fields take 22 s.
func TestAttrsSortIsNLogN(t *testing.T) {
	const n = 10000
	var a attrList
	for i := n; i > 0; i-- {
		a.add(fmt.Sprintf("k%05d", i), "v")
	}
	calls := 0
	defer func(f func(a, b string) int) { compareKeys = f }(compareKeys)
	compareKeys = func(x, y string) int { calls++; return strings.Compare(x, y) }
	got := a.json()
	if limit := 4 * n * 14; calls > limit { // log2(10,000) < 14
		t.Errorf("%d comparisons to sort %d keys, want at most %d", calls, n, limit)
	}
	if !strings.HasPrefix(got, `{"k00001":"v","k00002":"v"`) || !strings.HasSuffix(got, `"k10000":"v"}`) {
		t.Errorf("attrs not sorted: %.60s…", got)
	}
}

// A format line of 10,000 fields reads, and a line of it gives every field.
func TestLogFormatWide(t *testing.T) {
	var lf, ln []string
	for i := 0; i < 10000; i++ {
		lf = append(lf, fmt.Sprintf("%%{X-H%d}i", i))
		ln = append(ln, strconv.Itoa(i))
	}
	lo, err := parseLayout(strings.Join(lf, " ") + " %>s")
	if err != nil {
		t.Fatal(err)
	}
	d := clfDecoder{lo: lo, given: true, run: "r"}
	var r record.Row
	r.Reset(1)
	if _, err := d.line(&r, []byte(strings.Join(ln, " ")+" 200"), nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Attrs, `"http_x_h9999":"9999"`) || r.Status != 200 {
		t.Errorf("attrs %.80s…, status %d", r.Attrs, r.Status)
	}
}

// FuzzServerLogFormat reads any line with any format line in any server's
// language: an error or rows, never a panic or a hang.
func FuzzServerLogFormat(f *testing.F) {
	f.Add(uint8(2), `accesslog.format = "%h %t \"%r\" %>s %b %D"`, `127.0.0.1 [05/Dec/2026:21:42:39 -0300] "GET /r/0 HTTP/1.1" 200 10 6232`)
	f.Add(uint8(6), `squid`, `1796517798.585      6 127.0.0.1 TCP_MISS/200 260 GET http://127.0.0.1:18080/r/0 - HIER_DIRECT/127.0.0.1 text/plain`)
	f.Add(uint8(7), `format: '%<cqtq> %<ttms> %<pssc>'`, `1796518031.474 5 200`)
	f.Add(uint8(8), `format: "%{%Y-%m-%dT%H:%M:%S}t.%{usec_frac}t%{%z}t %s %{duration}x"`, `2026-12-05T21:46:13.606310-0300 200 0.005733`)
	f.Add(uint8(9), `%START_TIME% %RESPONSE_CODE% %DURATION%`, `2024-05-01T10:00:00.123Z 200 7`)
	f.Add(uint8(10), `log-format "%ci [%trg] %ST %Ta"`, `1.2.3.4 [01/May/2024:10:00:00 +0000] 200 12`)
	f.Add(uint8(4), `pattern="%{msec}t &quot;%r&quot; %s %{ms}T"`, `1796518580541 "GET /r/0 HTTP/1.1" 200 12`)
	servers := []string{"", "nginx", "lighttpd", "apache", "tomcat10", "varnishncsa", "squid", "trafficserver", "h2o", "envoy", "haproxy", "tomcat9"}
	f.Fuzz(func(t *testing.T, server uint8, layoutText, line string) {
		lo, err := parseServerLayout(servers[int(server)%len(servers)], layoutText)
		if err != nil {
			return
		}
		d := clfDecoder{lo: lo, given: true, run: "r"}
		var r record.Row
		r.Reset(1)
		_, _ = d.line(&r, []byte(line), nil)
	})
}

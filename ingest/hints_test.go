package ingest

import (
	"context"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/access"
	"github.com/rewind-dev/rewind/ingest/format/clf"
	"github.com/rewind-dev/rewind/internal/param"
)

// Every refusal of a server's log names what would work, and following it
// loads the log right: each start, latency and status held to the
// backend's own record.
func TestHintsFollowed(t *testing.T) {
	cases := []struct {
		name, path string
		opts       Options
		want       string            // in the refusal
		fill       map[string]string // the hint's placeholders
		lag        float64
	}{
		{name: "squid-combined-detected", path: "testdata/real/squid/combined/input.log",
			want: `"TCP_MISS:HIER_DIRECT" is Squid's result and hierarchy (%Ss:%Sh): this is Squid's combined log`},
		{name: "h2o-duration-detected", path: "testdata/real/h2o/clf-duration/input.log",
			want: `h2o's %{duration}x writes seconds with 6 decimals`},
		{name: "access-duration", path: "testdata/services/slog/service.log", opts: Options{From: access.Name},
			want: `field "duration": unit unknown`, fill: map[string]string{"latency_ms=EXPR": "latency_ms=duration / 1e6"}},
		{name: "tomcat-pattern-no-version", path: "testdata/real/tomcat/clf-D/input.log",
			opts: Options{LogFormat: `pattern="%h %l %u %t &quot;%r&quot; %s %b %D"`},
			want: `a Tomcat AccessLogValve pattern: give the server's version, --server tomcat10`, lag: 30},
		{name: "tomcat-D-no-version", path: "testdata/real/tomcat/clf-D/input.log",
			opts: Options{Server: "tomcat", LogFormat: `%h %l %u %t "%r" %s %b %D`},
			want: `%D is µs in Tomcat 10 and later but ms in Tomcat 9 and earlier: name the version with --server tomcat10`, lag: 30},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db, _ := openDB(t)
			_, err := Files(context.Background(), db, c.opts, []string{c.path})
			if err == nil || !strings.Contains(flagged(err), c.want) {
				t.Fatalf("error %v, want one with %q", err, c.want)
			}
			opts := followHint(t, flagged(err), c.fill)
			if opts.LogFormat == "" {
				opts.LogFormat = c.opts.LogFormat
			}
			if opts.From == "" {
				opts.From = c.opts.From
			}
			res := mustIngest(t, db, opts, c.path)
			holdToBackend(t, db, strings.Replace(c.path, inputName(c.path), "backend.csv", 1), res[0].ResolutionMs, c.lag, 0)
		})
	}
}

func inputName(path string) string { return path[strings.LastIndex(path, "/")+1:] }

// A log read as Apache's by its line alone gets a warning naming the flag
// for the servers whose %t is the end; following it reads Tomcat's right.
// A log with an end time and no duration is warned of naming its server.
func TestLogFormatWarnings(t *testing.T) {
	db, _ := openDB(t)
	path := "testdata/real/tomcat/clf-D/input.log"
	res := mustIngest(t, db, Options{LogFormat: `%h %l %u %t "%r" %s %b %D`}, path)
	got := strings.Join(saidAll(res[0].Warnings...), "\n")
	if !strings.Contains(got, "lighttpd and Tomcat write the same directives with %t when it ended: if the log is theirs, name the server with --server") {
		t.Fatalf("warnings %q", got)
	}
	db2, _ := openDB(t)
	res = mustIngest(t, db2, Options{LogFormat: `%h %l %u %t "%r" %s %b %D`, Server: "tomcat10"}, path)
	if len(res[0].Warnings) != 0 {
		t.Errorf("warnings %q", saidAll(res[0].Warnings...))
	}
	holdToBackend(t, db2, "testdata/real/tomcat/clf-D/backend.csv", res[0].ResolutionMs, 30, 0)
	for server, path := range map[string]string{"Tomcat": "testdata/real/tomcat/combined", "lighttpd": "testdata/real/lighttpd/common"} {
		db, _ := openDB(t)
		res := mustIngest(t, db, realOptions(path+"/input.log"), path+"/input.log")
		want := server + " writes this log's time when a request ends and the log has no duration: ts is each request's end"
		if got := strings.Join(saidAll(res[0].Warnings...), "\n"); !strings.Contains(got, want) {
			t.Errorf("%s: warnings %q, want %q", path, got, want)
		}
	}
}

// A recognised common/combined line without a duration does not tell its
// time's start from its end: a warning says so, naming the flags.
func TestStartOrEndWarning(t *testing.T) {
	db, _ := openDB(t)
	res := mustIngest(t, db, Options{}, "testdata/real/lighttpd/common/input.log")
	want := "this log's lines do not tell whether their time is a request's start (Apache, varnishncsa, h2o, Traefik) or its end " +
		"(nginx, lighttpd, Tomcat), and carry no duration: ts is read as the start; if the log is nginx's, lighttpd's or Tomcat's, " +
		"give its format line with --log-format (and --server)"
	if got := saidAll(res[0].Warnings...); len(got) != 1 || got[0] != want {
		t.Errorf("warnings %q, want %q", got, want)
	}
	db, _ = openDB(t)
	res = mustIngest(t, db, Options{}, "testdata/real/clf/nginx-timed-upstream-list/input.log")
	if len(res[0].Warnings) != 0 {
		t.Errorf("a line with a duration: warnings %q", saidAll(res[0].Warnings...))
	}
}

// Squid's native line and Traffic Server's squid line look alike with
// opposite times; one that fits both (hand-written: no padding, no HIER_
// code) is refused naming both, and --from reads it as said.
func TestSquidAmbiguous(t *testing.T) {
	line := "1796517874.306 123456 127.0.0.1 TCP_MISS/200 260 GET http://h/r/0 - NONE/- text/plain\n"
	path := writeFile(t, "access.log", line)
	db, _ := openDB(t)
	_, err := Files(context.Background(), db, Options{}, []string{path})
	want := "name the server with --from squid or --from trafficserver"
	if err == nil || !strings.Contains(flagged(err), want) {
		t.Fatalf("error %v, want %q", err, want)
	}
	for from, ts := range map[string]string{clf.SquidName: "2026-12-06 00:42:30.850", clf.TrafficServerName: "2026-12-06 00:44:34.306"} {
		db, _ := openDB(t)
		mustIngest(t, db, Options{From: from}, path)
		if got := queryStrings(t, db, `SELECT strftime(ts, '%Y-%m-%d %H:%M:%S.%g') FROM requests`); len(got) != 1 || got[0] != ts {
			t.Errorf("--from %s: ts %v, want %s", from, got, ts)
		}
	}
}

var _ = param.Textf

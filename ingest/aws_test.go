package ingest

import (
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/aws"
)

func FuzzAWSALB(f *testing.F) { fuzzFormat(f, aws.ALBName, "testdata/real/aws-alb/*/input*") }
func FuzzAWSELB(f *testing.F) { fuzzFormat(f, aws.ELBName, "testdata/real/aws-elb/*/input*") }
func FuzzCloudFront(f *testing.F) {
	fuzzFormat(f, aws.CloudFrontName, "testdata/real/cloudfront/*/input*")
}

const (
	albSample = `http 2018-07-02T22:23:00.186641Z app/my-lb/50dc 192.168.131.39:2817 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 "GET http://www.example.com:80/ HTTP/1.1" "curl/7.46.0" - - arn:tg "Root=1-5833" "-" "-" 0 2018-07-02T22:22:48.364000Z "forward" "-" "-"`
	elbSample = `2015-05-13T23:39:43.945958Z my-loadbalancer 192.168.131.39:2817 10.0.0.1:80 0.000073 0.001048 0.000057 200 200 0 29 "GET http://www.example.com:80/ HTTP/1.1" "curl/7.38.0" - -`
	cfHead    = "#Version: 1.0\n#Fields: date time x-edge-location sc-status time-taken x-edge-request-id\n"
)

func TestAWSDetect(t *testing.T) {
	cases := []struct {
		head, want string
	}{
		{albSample, aws.ALBName},
		{elbSample, aws.ELBName},
		{`2014-02-15T23:39:43.945958Z my-test-loadbalancer 192.168.131.39:2817 10.0.0.1:80 0.000073 0.001048 0.000057 200 200 0 29 "GET http://www.example.com:80/ HTTP/1.1"`, aws.ELBName},
		{cfHead + "2019-12-04\t21:02:31\tLAX1\t200\t0.001\tabc\n", aws.CloudFrontName},
		{"#Version: 1.0\n#Fields: date time c-ip cs-method\n", ""}, // W3C, but not CloudFront's
		{`2015-05-13T23:39:43.945958Z my-loadbalancer 192.168.131.39:2817 10.0.0.1:80 fast 0.001048 0.000057 200 200 0 29 "GET / HTTP/1.1"`, ""},
	}
	for _, c := range cases {
		got := ""
		for _, f := range []struct {
			name   string
			detect func(string, []byte) bool
		}{{aws.ALBName, aws.ALB{}.Detect}, {aws.ELBName, aws.ELB{}.Detect}, {aws.CloudFrontName, aws.CloudFront{}.Detect}} {
			if f.detect("x.log", []byte(c.head)) {
				got += f.name
			}
		}
		if got != c.want {
			t.Errorf("detected %q as %q, want %q", c.head, got, c.want)
		}
	}
}

// CloudFront's times are whole seconds: the file's resolution is 1000 ms.
func TestCloudFrontResolution(t *testing.T) {
	db, _ := openDB(t)
	res := mustIngest(t, db, Options{}, writeFile(t, "cf.log", cfHead+"2019-12-04\t21:02:31\tLAX1\t200\t0.001\ta\n2019-12-04\t21:02:33\tLAX1\t000\t0.250\tb\n"))
	if res[0].Format != aws.CloudFrontName || res[0].ResolutionMs != 1000 {
		t.Errorf("format %q resolution %v, want cloudfront 1000", res[0].Format, res[0].ResolutionMs)
	}
	got := queryStrings(t, db, `SELECT strftime(ts, '%H:%M:%S.%f') || ' ' || latency_ms || ' ' || status FROM requests ORDER BY seq`)
	if len(got) != 2 || got[0] != "21:02:31.000000 1.0 200" || got[1] != "21:02:33.000000 250.0 0" {
		t.Errorf("rows %q", got)
	}
}

func TestAWSErrors(t *testing.T) {
	checkErrors(t, aws.ALBName, "alb.log", map[string]errorCase{
		"bad-time": {albSample + "\n" + `http 2018-07-02T22:23:00.186641Z app/my-lb/50dc 192.168.131.39:2817 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 "GET / HTTP/1.1" "-" - - arn:tg "-" "-" "-" 0 yesterday "forward" "-" "-"`,
			`:2: field "request_creation_time": want an ISO 8601 time such as 2018-07-02T22:22:48.364000Z, got "yesterday"`},
		"bad-processing-time": {`http 2018-07-02T22:23:00.186641Z app/my-lb/50dc 1.2.3.4:1 - 0.000 1ms 0.000 200 200 34 366 "GET / HTTP/1.1"`,
			`:1: field "target_processing_time": want seconds such as 0.001 (or -1: not dispatched), got "1ms"`},
		"negative-time": {`http 2018-07-02T22:23:00.186641Z app/my-lb/50dc 1.2.3.4:1 - -2 0 0 200 200 34 366 "GET / HTTP/1.1"`,
			`:1: field "request_processing_time": want seconds such as 0.001 (or -1: not dispatched), got "-2"`},
		"bad-status": {`http 2018-07-02T22:23:00.186641Z app/my-lb/50dc 1.2.3.4:1 - 0 0 0 2xx 200 34 366 "GET / HTTP/1.1"`,
			`:1: field "elb_status_code": want an HTTP status code or -, got "2xx"`},
		"short": {`http 2018-07-02T22:23:00.186641Z app/my-lb/50dc 1.2.3.4:1 - 0 0 0 200`, `:1: want at least 13 fields (type through request), got 9`},
	})
	checkErrors(t, aws.ELBName, "elb.log", map[string]errorCase{
		"field-count": {elbSample + "\n" + `2015-05-13T23:39:43.945958Z my-loadbalancer 1.2.3.4:1 - 0 0 0 200 200 0 29 "GET / HTTP/1.1" "curl"`,
			`:2: want 12 or 15 fields (a Classic Load Balancer entry), got 13`},
		"bad-timestamp": {`2015-05-13 23:39:43 my-loadbalancer 1.2.3.4:1 - 0 0 0 200 200 0 29 "GET / HTTP/1.1"`,
			`:1: want 12 or 15 fields (a Classic Load Balancer entry), got 13`},
		"bad-time": {`2015-05-13T23:39:43 my-loadbalancer 1.2.3.4:1 - 0 0 0 200 200 0 29 "GET / HTTP/1.1"`,
			`:1: field "timestamp": want an ISO 8601 time such as 2018-07-02T22:22:48.364000Z, got "2015-05-13T23:39:43"`},
		"bad-backend-time": {`2015-05-13T23:39:43Z my-loadbalancer 1.2.3.4:1 - 0 x 0 200 200 0 29 "GET / HTTP/1.1"`,
			`:1: field "backend_processing_time": want seconds`},
	})
	checkErrors(t, aws.CloudFrontName, "cf.log", map[string]errorCase{
		"bad-date":   {cfHead + "2019-12-04\t21:02\tLAX1\t200\t0.001\ta\n", `:3: field "date": want date and time such as 2019-12-04 and 21:02:31 (UTC), got "2019-12-04" and "21:02"`},
		"bad-taken":  {cfHead + "2019-12-04\t21:02:31\tLAX1\t200\t82ms\ta\n", `:3: field "time-taken": want seconds such as 0.082, got "82ms"`},
		"bad-status": {cfHead + "2019-12-04\t21:02:31\tLAX1\tOK\t0.1\ta\n", `:3: field "sc-status": want an HTTP status code (000: no response), got "OK"`},
		"count":      {cfHead + "2019-12-04\t21:02:31\tLAX1\t200\n", `:3: 4 tab-separated fields, the #Fields: header names 6`},
		"no-header":  {"2019-12-04\t21:02:31\tLAX1\t200\t0.1\ta\n", `:1: an entry before the #Fields: header that names its fields`},
	})
}

package ingest

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/ingest/format/jmeter"
)

const jmeterRowSQL = `SELECT concat_ws('|', run, req, ts, latency_ms, outcome, coalesce(status::VARCHAR, '-'), line, attrs) FROM requests ORDER BY seq`

func TestJmeterCSVColumns(t *testing.T) {
	for _, c := range []struct {
		name, body string
		opts       Options
		want       []string
	}{{
		// Columns chosen in jmeter.properties, a tab delimiter, a sample
		// variable, a non-HTTP response code and a sample without a label.
		name: "chosen.jtl",
		body: "timeStamp\telapsed\tlabel\tresponseCode\tsuccess\tthreadName\tuser\n" +
			"1700000000000\t12\tlogin\t200\ttrue\t10.0.0.1-Users 1-3\tu1\n" +
			"1700000000100\t7\t\tNon HTTP response code: java.net.SocketTimeoutException\tFALSE\tsetUp\t\n",
		want: []string{
			`login|0|2023-11-14 22:13:20|12.0|ok|200|2|{"threadGroup":"10.0.0.1-Users","threadName":"10.0.0.1-Users 1-3","user":"u1"}`,
			`chosen|0|2023-11-14 22:13:20.1|7.0|error|-|3|{"responseCode":"Non HTTP response code: java.net.SocketTimeoutException","threadName":"setUp"}`,
		},
	}, {
		// Older lower-case names; no success column, so the outcome comes
		// from the status and --ok-status.
		name: "lower.csv",
		body: "timestamp,elapsed,label,responsecode,latency,connect,bytes\n1700000000000,1.5,a,404,1,0,x\n",
		opts: Options{OkStatus: "200-299,404"},
		want: []string{`a|0|2023-11-14 22:13:20|1.5|ok|404|2|{"Connect":0,"Latency":1,"bytes":"x"}`},
	}} {
		t.Run(c.name, func(t *testing.T) {
			db, _ := openDB(t)
			res := mustIngest(t, db, c.opts, writeFile(t, c.name, c.body))
			if res[0].Format != jmeter.Name {
				t.Errorf("detected as %s", res[0].Format)
			}
			if diff := cmp.Diff(c.want, queryStrings(t, db, jmeterRowSQL)); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}

// A generated XML file (no real one with these was found): sub-samples of
// a redirect, an assertion failure, the URL child, a body and headers
// (dropped), an attribute JMeter does not name, and a start tag over two
// lines.
const jmeterXML = `<?xml version="1.0" encoding="UTF-8"?>
<testResults version="1.2">
<httpSample t="30" it="0" lt="20" ct="5" ts="1700000000000" s="false" lb="home" rc="200" rm="OK" tn="TG 1-1" dt="text" by="100" sby="50" ng="1" na="1" myVar="v">
  <httpSample t="10" lt="9" ts="1700000000000" s="true" lb="home-0" rc="302" rm="Found" tn="TG 1-1" dt="text" by="0"/>
  <httpSample t="20" lt="11" ts="1700000000010" s="true" lb="home-1" rc="200" rm="OK" tn="TG 1-1" dt="text" by="100"/>
  <assertionResult>
    <name>RA</name>
    <failure>true</failure>
    <error>false</error>
    <failureMessage>Test failed: text expected to contain /welcome/</failureMessage>
  </assertionResult>
  <responseHeader class="java.lang.String">HTTP/1.1 200 OK</responseHeader>
  <responseData class="java.lang.String">&lt;html&gt;</responseData>
  <java.net.URL>http://example.com/</java.net.URL>
</httpSample>
<sample t="5" ts="1700000000100"
  s="true" lb="jdbc" rc="null 0" rm=""/>
</testResults>
`

func TestJmeterXML(t *testing.T) {
	db, _ := openDB(t)
	mustIngest(t, db, Options{}, writeFile(t, "x.jtl", jmeterXML))
	want := []string{
		`home-0|0|2023-11-14 22:13:20|10.0|ok|302|4|{"Latency":9,"bytes":0,"dataType":"text","responseMessage":"Found","threadGroup":"TG","threadName":"TG 1-1"}`,
		`home-1|0|2023-11-14 22:13:20.01|20.0|ok|200|5|{"Latency":11,"bytes":100,"dataType":"text","responseMessage":"OK","threadGroup":"TG","threadName":"TG 1-1"}`,
		`home|0|2023-11-14 22:13:20|30.0|error|200|3|{"Connect":5,"IdleTime":0,"Latency":20,"URL":"http://example.com/","allThreads":1,"bytes":100,"dataType":"text","failureMessage":"Test failed: text expected to contain /welcome/","grpThreads":1,"myVar":"v","responseMessage":"OK","sentBytes":50,"threadGroup":"TG","threadName":"TG 1-1"}`,
		`jdbc|0|2023-11-14 22:13:20.1|5.0|ok|-|16|{"responseCode":"null 0"}`,
	}
	if diff := cmp.Diff(want, queryStrings(t, db, jmeterRowSQL)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// TestJmeterHeaderless: a file written with print_field_names=false in
// each of JMeter's default layouts (5.x, 3.1-4.0, 2.13-3.0), with each
// delimiter, reads as if it had the header; a quoted label keeps its
// delimiter. Generated: the real headerless case is csv-webtours-no-header.
func TestJmeterHeaderless(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"v5.jtl", "1700000000000,12,\"GET /a,b\",200,OK,TG 1-1,text,true,,100,50,1,2,http://x/a,10,0,3\n",
			`GET /a,b|0|2023-11-14 22:13:20|12.0|ok|200|1|{"Connect":3,"IdleTime":0,"Latency":10,"URL":"http://x/a","allThreads":2,"bytes":100,"dataType":"text","grpThreads":1,"responseMessage":"OK","sentBytes":50,"threadGroup":"TG","threadName":"TG 1-1"}`},
		{"v3.jtl", "1700000000000|12|a|500|Server Error|TG 1-1|text|false|boom|100|50|1|2|10|0|3\n",
			`a|0|2023-11-14 22:13:20|12.0|error|500|1|{"Connect":3,"IdleTime":0,"Latency":10,"allThreads":2,"bytes":100,"dataType":"text","failureMessage":"boom","grpThreads":1,"responseMessage":"Server Error","sentBytes":50,"threadGroup":"TG","threadName":"TG 1-1"}`},
		{"v2.jtl", "1700000000000;12;a;200;OK;TG 1-1;text;true;;100;1;2;10;0;3\n",
			`a|0|2023-11-14 22:13:20|12.0|ok|200|1|{"Connect":3,"IdleTime":0,"Latency":10,"allThreads":2,"bytes":100,"dataType":"text","grpThreads":1,"responseMessage":"OK","threadGroup":"TG","threadName":"TG 1-1"}`},
		{"tab.jtl", "1700000000000\t12\ta\t200\tOK\tTG 1-1\ttext\ttrue\t\t100\t1\t2\t10\t0\t3\n",
			`a|0|2023-11-14 22:13:20|12.0|ok|200|1|{"Connect":3,"IdleTime":0,"Latency":10,"allThreads":2,"bytes":100,"dataType":"text","grpThreads":1,"responseMessage":"OK","threadGroup":"TG","threadName":"TG 1-1"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, _ := openDB(t)
			res := mustIngest(t, db, Options{}, writeFile(t, c.name, c.body))
			if res[0].Format != jmeter.Name {
				t.Errorf("detected as %s", res[0].Format)
			}
			if diff := cmp.Diff([]string{c.want}, queryStrings(t, db, jmeterRowSQL)); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}

func TestJmeterBadInput(t *testing.T) {
	const header = "timeStamp,elapsed,label,responseCode,success\n"
	for _, c := range []struct{ name, body, want string }{
		{"ts.jtl", header + "1700000000000,1,a,200,true\n2023/11/14 22:13:20.000,1,a,200,true\n",
			`ts.jtl:3: field "timeStamp": want epoch milliseconds (JMeter's default jmeter.save.saveservice.timestamp_format=ms), got "2023/11/14 22:13:20.000"`},
		{"elapsed.jtl", header + "1700000000000,12x,a,200,true\n", `elapsed.jtl:2: field "elapsed": want milliseconds, got "12x"`},
		{"success.jtl", header + "1700000000000,1,a,200,yes\n", `success.jtl:2: field "success": want true or false, got "yes"`},
		{"cols.jtl", header + "1700000000000,1,a,200\n", `cols.jtl:2: want 5 columns as in the header, got 4`},
		{"quote.jtl", header + "1700000000000,1,\"a,200,true\n", `quote.jtl:2: bad CSV`},
		{"far.jtl", header + "99999999999999999,1,a,200,true\n", `far.jtl:2: field "timeStamp": out of range`},
		{"ts.xml", strings.Replace(jmeterXML, `ts="1700000000100"`, `ts="soon"`, 1), `ts.xml:16: field "ts": want epoch milliseconds`},
		{"cut.xml", jmeterXML[:strings.Index(jmeterXML, "<assertionResult>")], `cut.xml:3: bad XML: the file ends inside this sample`},
		{"tag.xml", strings.Replace(jmeterXML, "</responseData>", "</responseDat>", 1), `tag.xml:13: bad XML`},
		{"noheader.jtl", "1700000000000,12,a,200,OK,TG 1-1,text,true,,100,1,2,10,0,3\n1700000000001,1x,a,200,OK,TG 1-1,text,true,,100,1,2,10,0,3\n",
			`noheader.jtl:2: field "elapsed": want milliseconds, got "1x"`},
		{"noheader-cols.jtl", "1700000000000,12,a,200,OK,TG 1-1,text,true,,100,1,2,10,0,3\n1700000000001,1,a,200,OK,TG 1-1,text,true,,100,1,2,10,0\n",
			`noheader-cols.jtl:2: want 15 columns as the first row has (JMeter's default columns, no header), got 14`},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, _ := openDB(t)
			before := snapshot(t, db)
			_, err := Files(context.Background(), db, Options{}, []string{writeFile(t, c.name, c.body)})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one with %q", err, c.want)
			}
			if snapshot(t, db) != before {
				t.Error("a failed ingest changed the database")
			}
		})
	}
}

func TestJmeterDetect(t *testing.T) {
	for body, want := range map[string]bool{
		"timeStamp;elapsed;label\n1;2;x\n":                                          true,
		"\ufefftimeStamp,elapsed\n1,2\n":                                            true,
		"<?xml version=\"1.0\"?>\n<testResults version=\"1.2\">\n":                  true,
		"label,elapsed\nx,2\n":                                                      false,
		"1714557600000000000,200,1500,0,0,,,a,0,GET,http://x/,\n":                   false,
		"<?xml version=\"1.0\"?>\n<jmeterTestPlan>\n":                               false,
		"1700000000000,12,a,200,OK,TG 1-1,text,true,,100,1,2,10,0,3\n":              true,
		"1700000000000,12,a,200,OK,TG 1-1,text,maybe,,100,1,2,10,0,3\n":             false,
		"1700000000000,12,a,200,OK,TG 1-1,text,true,,100,1,2,10,0\n":                false,
		"1700000000000,12,a,200,OK,TG 1-1,text,true,,100,50,1,2,http://x/,10,0,3\n": true,
		"1700000000000,12,a,200,OK,TG 1-1,text,true,,100,50,1,2,10,x,3\n":           false,
	} {
		if got := (jmeter.Format{}).Detect("f", []byte(body)); got != want {
			t.Errorf("detectJmeter(%q) = %v, want %v", body, got, want)
		}
	}
}

func FuzzJmeter(f *testing.F) {
	f.Add([]byte(jmeterXML))
	fuzzFormat(f, jmeter.Name, "testdata/real/jmeter/*/input*")
}

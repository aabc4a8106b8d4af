package ingest

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/gzip"
	vegeta "github.com/tsenart/vegeta/v12/lib"

	vegetaformat "github.com/rewind-dev/rewind/ingest/format/vegeta"
	"github.com/rewind-dev/rewind/internal/golden"
)

const vegetaReal = "testdata/real/vegeta"

// readInput reads a test input, gunzipped when it ends in .gz.
func readInput(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(path, ".gz") {
		return b
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestVegetaDerivedEncodings is the generator of the JSON and CSV cases:
// vegeta encode --to json and --to csv of the real binary file, made with
// Vegeta's own encoders. With -update it writes them; otherwise it checks
// the committed files are exactly that.
func TestVegetaDerivedEncodings(t *testing.T) {
	src := readInput(t, filepath.Join(vegetaReal, "binary-ratelimiter/input.bin"))
	for path, newEnc := range map[string]func(io.Writer) vegeta.Encoder{
		"json-ratelimiter/input.json": vegeta.NewJSONEncoder,
		"csv-ratelimiter/input.csv":   vegeta.NewCSVEncoder,
	} {
		var b bytes.Buffer
		enc := newEnc(&b)
		dec := vegeta.NewDecoder(bytes.NewReader(src))
		for {
			var r vegeta.Result
			if err := dec.Decode(&r); err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			if err := enc.Encode(&r); err != nil {
				t.Fatal(err)
			}
		}
		path = filepath.Join(vegetaReal, path)
		if golden.Updating() {
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		// easyjson writes a result's headers in map order, so JSON is
		// compared as the results it decodes to.
		got := readInput(t, path)
		if strings.HasSuffix(path, ".csv") && !bytes.Equal(got, b.Bytes()) || !sameResults(t, got, b.Bytes()) {
			t.Errorf("%s is not vegeta's encoding of binary-ratelimiter/input.bin (go test -update rewrites it)", path)
		}
	}
}

func sameResults(t *testing.T, a, b []byte) bool {
	t.Helper()
	da, db := vegeta.DecoderFor(bytes.NewReader(a)), vegeta.DecoderFor(bytes.NewReader(b))
	for {
		var ra, rb vegeta.Result
		ea, eb := da.Decode(&ra), db.Decode(&rb)
		if ea != nil || eb != nil {
			return ea == io.EOF && eb == io.EOF
		}
		if !ra.Equal(rb) {
			return false
		}
	}
}

// TestVegetaEncodingsAgree: the three encodings of the same results give
// the same rows (their lines aside: record numbers in the binary file).
func TestVegetaEncodingsAgree(t *testing.T) {
	var want []string
	for _, c := range []string{"binary-ratelimiter/input.bin", "json-ratelimiter/input.json", "csv-ratelimiter/input.csv"} {
		db, _ := openDB(t)
		mustIngest(t, db, Options{Run: "r"}, filepath.Join(vegetaReal, c))
		got := queryStrings(t, db, `SELECT concat_ws('|', req, ts, latency_ms, outcome, status, attrs) FROM requests ORDER BY seq`)
		if want == nil {
			want = got
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-binary +got):\n%s", c, diff)
		}
	}
}

// TestVegetaMatchesVegetaMetrics: what rewind computes in SQL from the
// ingested rows equals what Vegeta's own library reports (vegeta.Metrics
// over the results of its DecoderFor), compared in integer nanoseconds.
func TestVegetaMatchesVegetaMetrics(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(vegetaReal, "*/input*"))
	if len(paths) == 0 {
		t.Fatal("no vegeta cases")
	}
	for _, path := range paths {
		t.Run(filepath.Base(filepath.Dir(path)), func(t *testing.T) {
			m := vegetaMetrics(t, readInput(t, path))
			db, _ := openDB(t)
			mustIngest(t, db, Options{}, path)
			checkVegetaTotals(t, db, m)
			checkVegetaLatencies(t, db, m)
			checkVegetaQuantiles(t, db, m)
		})
	}
}

func vegetaMetrics(t *testing.T, raw []byte) *vegeta.Metrics {
	t.Helper()
	dec := vegeta.DecoderFor(bytes.NewReader(raw))
	if dec == nil {
		t.Fatal("vegeta's DecoderFor does not recognise the file")
	}
	var m vegeta.Metrics
	for {
		var r vegeta.Result
		if err := dec.Decode(&r); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		m.Add(&r)
	}
	m.Close()
	return &m
}

func vegetaInts(t *testing.T, db *sql.DB, cols int, q string) []int64 {
	t.Helper()
	row := db.QueryRow(q)
	out := make([]int64, cols)
	ptrs := make([]any, cols)
	for i := range out {
		ptrs[i] = &out[i]
	}
	if err := row.Scan(ptrs...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

func checkVegetaTotals(t *testing.T, db *sql.DB, m *vegeta.Metrics) {
	t.Helper()
	got := vegetaInts(t, db, 6, `SELECT count(*), count(*) FILTER (WHERE outcome = 'ok'), sum((attrs->>'bytes_in')::BIGINT)::BIGINT,
		sum((attrs->>'bytes_out')::BIGINT)::BIGINT, epoch_us(min(ts)), epoch_us(max(ts)) FROM requests`)
	n, ok := got[0], got[1]
	if uint64(n) != m.Requests || float64(ok)/float64(n) != m.Success {
		t.Errorf("requests %d, success %v; vegeta says %d, %v", n, float64(ok)/float64(n), m.Requests, m.Success)
	}
	if uint64(got[2]) != m.BytesIn.Total || uint64(got[3]) != m.BytesOut.Total {
		t.Errorf("bytes in/out %d/%d; vegeta says %d/%d", got[2], got[3], m.BytesIn.Total, m.BytesOut.Total)
	}
	// ts keeps microseconds; vegeta's times are nanoseconds.
	if got[4] != m.Earliest.UnixMicro() || got[5] != m.Latest.UnixMicro() {
		t.Errorf("first/last ts %d/%d µs; vegeta says %d/%d", got[4], got[5], m.Earliest.UnixMicro(), m.Latest.UnixMicro())
	}
	codes := map[string]int{}
	for _, s := range queryStrings(t, db, `SELECT status || '=' || count(*) FROM requests GROUP BY status ORDER BY status`) {
		k, v, _ := strings.Cut(s, "=")
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatal(err)
		}
		codes[k] = n
	}
	if diff := cmp.Diff(m.StatusCodes, codes); diff != "" {
		t.Errorf("status codes (-vegeta +rewind):\n%s", diff)
	}
	errs := []string{}
	for _, e := range queryStrings(t, db, `SELECT attrs->>'error' FROM requests WHERE attrs->>'error' IS NOT NULL ORDER BY seq`) {
		if !slices.Contains(errs, e) {
			errs = append(errs, e)
		}
	}
	if diff := cmp.Diff(m.Errors, errs); diff != "" {
		t.Errorf("error set (-vegeta +rewind):\n%s", diff)
	}
}

// latNs is latency_ms back in integer nanoseconds: exact, since a float64
// holds ns/1e6 to well under half a nanosecond for any latency below days.
const latNs = `round(latency_ms * 1000000.0::DOUBLE)::BIGINT`

func checkVegetaLatencies(t *testing.T, db *sql.DB, m *vegeta.Metrics) {
	t.Helper()
	got := vegetaInts(t, db, 4, `SELECT sum(`+latNs+`)::BIGINT, min(`+latNs+`), max(`+latNs+`), count(*) FROM requests`)
	total, minNs, maxNs, n := time.Duration(got[0]), time.Duration(got[1]), time.Duration(got[2]), got[3]
	mean := time.Duration(float64(total) / float64(n)) // Metrics.Close's own rounding
	if total != m.Latencies.Total || mean != m.Latencies.Mean || maxNs != m.Latencies.Max {
		t.Errorf("latency total/mean/max %v/%v/%v; vegeta says %v/%v/%v", total, mean, maxNs, m.Latencies.Total, m.Latencies.Mean, m.Latencies.Max)
	}
	var maxMs float64
	if err := db.QueryRow(`SELECT max(latency_ms) FROM requests`).Scan(&maxMs); err != nil || maxMs != float64(m.Latencies.Max)/1e6 {
		t.Errorf("max latency_ms %v; vegeta's max is %v ms (%v)", maxMs, float64(m.Latencies.Max)/1e6, err)
	}
	// LatencyMetrics.Add replaces Min whenever Min is 0, so a zero latency
	// (a request that failed before it was sent) resets it: vegeta's Min is
	// the least latency after the last zero one, rewind's min the least.
	vmin := vegetaInts(t, db, 1, `WITH l AS (SELECT seq, `+latNs+` AS ns FROM requests),
		z AS (SELECT coalesce(max(seq) FILTER (WHERE ns = 0), -1) AS last_zero FROM l)
		SELECT coalesce(min(ns), 0) FROM l, z WHERE seq > last_zero`)[0]
	if time.Duration(vmin) != m.Latencies.Min {
		t.Errorf("vegeta-style min %v; vegeta says %v", time.Duration(vmin), m.Latencies.Min)
	}
	if zeros := vegetaInts(t, db, 1, `SELECT count(*) FILTER (WHERE latency_ms = 0) FROM requests`)[0]; zeros == 0 && minNs != m.Latencies.Min {
		t.Errorf("min %v; vegeta says %v", minNs, m.Latencies.Min)
	}
}

// vegetaQuantileSQL is vegeta's p-quantile for fewer than 64 results.
// Vegeta estimates quantiles with a t-digest (influxdata/tdigest,
// compression 100); below 64 samples it merges no centroids, and its
// Quantile is then exact: the linear interpolation between the sorted
// latencies at rank q*n - 0.5 (Hazen's definition), clamped to the ends,
// written here with tdigest's own float operations. (DuckDB's
// quantile_cont interpolates at rank (n-1)*q, so it differs.)
const vegetaQuantileSQL = `WITH l AS (SELECT ` + latNs + `::DOUBLE AS x, row_number() OVER (ORDER BY latency_ms) - 1 AS i FROM requests),
	k AS (SELECT $1::DOUBLE * count(*)::DOUBLE AS idx, count(*) AS n FROM requests),
	b AS (SELECT idx, n, CASE WHEN idx <= 0.5 THEN 0 ELSE least(ceil(idx - 0.5::DOUBLE), n)::BIGINT END AS lo FROM k)
	SELECT trunc(CASE
		WHEN idx <= 0.5 THEN (SELECT x FROM l WHERE i = 0)
		WHEN lo = n THEN (SELECT x FROM l WHERE i = n - 1)
		ELSE (SELECT greatest(a.x, least((a.x * (lo::DOUBLE + 0.5::DOUBLE - idx) + c.x * (idx - (lo::DOUBLE - 0.5::DOUBLE)))
			/ ((lo::DOUBLE + 0.5::DOUBLE - idx) + (idx - (lo::DOUBLE - 0.5::DOUBLE))), c.x)) FROM l a, l c WHERE a.i = lo - 1 AND c.i = lo)
	END)::BIGINT FROM b`

func checkVegetaQuantiles(t *testing.T, db *sql.DB, m *vegeta.Metrics) {
	t.Helper()
	if m.Requests >= 64 {
		t.Logf("%d results: vegeta's t-digest merges centroids, its quantiles are estimates; not compared", m.Requests)
		return
	}
	for q, want := range map[float64]time.Duration{0.5: m.Latencies.P50, 0.9: m.Latencies.P90, 0.95: m.Latencies.P95, 0.99: m.Latencies.P99} {
		var got int64
		if err := db.QueryRow(vegetaQuantileSQL, q).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if time.Duration(got) != want {
			t.Errorf("p%v %v; vegeta says %v", q*100, time.Duration(got), want)
		}
	}
}

const vegetaJSONLine = `{"attack":"a","seq":%d,"code":%d,"timestamp":"2024-05-01T10:00:00.000001500Z","latency":%d,"bytes_out":3,"bytes_in":4,"error":"%s","body":"aGk=","method":"GET","url":"http://x/","headers":{"A":["b"]}}`

func TestVegetaRows(t *testing.T) {
	db, _ := openDB(t)
	// A blank line, sub-millisecond latencies, codes at the edges of
	// vegeta's success range, and a last line without a line end.
	body := strings.Join([]string{
		vegetaLine(0, 200, 1500, ""), "", vegetaLine(1, 399, 999_999, ""), vegetaLine(2, 400, 2_000_000, "400 Bad Request"),
		vegetaLine(3, 0, 0, "dial tcp: connection refused"),
	}, "\n")
	mustIngest(t, db, Options{OkStatus: "200-499"}, writeFile(t, "r.json", body))
	got := queryStrings(t, db, `SELECT concat_ws('|', run, req, latency_ms, outcome, status, line, attrs) FROM requests ORDER BY seq`)
	want := []string{
		`a|0|0.0015|ok|200|1|{"bytes_in":4,"bytes_out":3,"method":"GET","url":"http://x/"}`,
		`a|1|0.999999|ok|399|3|{"bytes_in":4,"bytes_out":3,"method":"GET","url":"http://x/"}`,
		`a|2|2.0|error|400|4|{"bytes_in":4,"bytes_out":3,"error":"400 Bad Request","method":"GET","url":"http://x/"}`,
		`a|3|0.0|error|0|5|{"bytes_in":4,"bytes_out":3,"error":"dial tcp: connection refused","method":"GET","url":"http://x/"}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if ts := queryStrings(t, db, `SELECT strftime(min(ts), '%Y-%m-%dT%H:%M:%S.%fZ') FROM requests`); ts[0] != "2024-05-01T10:00:00.000001Z" {
		t.Errorf("ts %s, want the nanosecond timestamp cut to the microsecond", ts[0])
	}
}

func vegetaLine(seq, code, latency int, errText string) string {
	return fmt.Sprintf(vegetaJSONLine, seq, code, latency, errText)
}

func TestVegetaBadInput(t *testing.T) {
	good := vegetaLine(0, 200, 1, "")
	csvGood := "1714557600000000000,200,1500,0,0,,,a,0,GET,http://x/,"
	gob := vegetaGob(t, 3)
	for _, c := range []struct{ name, body, want string }{
		{"a.json", good + "\n" + strings.Replace(good, `"code":200`, `"code":"x"`, 1) + "\n", `a.json:2: field "code": want an integer 0..65535, got "x"`},
		{"b.json", good + "\n\n" + `{"attack":"","seq":1,"code":200,"latency":1}` + "\n", `b.json:3: field "timestamp": missing`},
		{"c.json", good + "\n" + `{"attack":"",` + "\n", `c.json:2: bad JSON`},
		{"d.json", good + "\n" + strings.Replace(good, `"latency":1`, `"latency":1.5`, 1), `d.json:2: field "latency": want integer nanoseconds, got 1.5`},
		{"e.csv", csvGood + "\n" + strings.Replace(csvGood, ",1500,", ",12x,", 1) + "\n", `e.csv:2: field "latency": want integer nanoseconds, got "12x"`},
		{"f.csv", csvGood + "\n" + csvGood + ",extra\n", `f.csv:2: want Vegeta's 12 CSV columns`},
		{"g.csv", csvGood + "\n" + strings.Replace(csvGood, "GET,", "GET,http://x/\"oops,", 1) + "\n", `g.csv:2: bad CSV`},
		{"h.bin", string(gob[:len(gob)-5]), `h.bin:3: bad Vegeta binary record: the file ends inside a record (truncated?)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, _ := openDB(t)
			before := snapshot(t, db)
			_, err := Files(context.Background(), db, Options{From: vegetaformat.Name}, []string{writeFile(t, c.name, c.body)})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one with %q", err, c.want)
			}
			if snapshot(t, db) != before {
				t.Error("a failed ingest changed the database")
			}
		})
	}
}

// vegetaGob is n results in vegeta's binary encoding.
func vegetaGob(t *testing.T, n int) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := vegeta.NewEncoder(&b)
	for i := 0; i < n; i++ {
		r := vegeta.Result{Seq: uint64(i), Code: 200, Timestamp: time.Unix(1714557600, int64(i)), Latency: time.Millisecond,
			Headers: http.Header{"A": {"b"}}}
		if err := enc.Encode(&r); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// TestVegetaHugeHeaderCount: a record whose header map claims 2^36
// entries fails as a bad record instead of making gob allocate that map.
func TestVegetaHugeHeaderCount(t *testing.T) {
	src := vegetaGob(t, 1)
	entry := []byte("\x01\x01A\x01\x01b") // count 1, key "A", one value "b"
	var out []byte
	for rest := src; len(rest) > 0; {
		n, k := gobLen(rest)
		msg := rest[k : k+n]
		rest = rest[k+n:]
		if i := bytes.Index(msg, entry); i >= 0 {
			msg = append(append(append([]byte{}, msg[:i]...), 0xfb, 0x10, 0, 0, 0, 0), msg[i+1:]...)
		}
		out = append(append(out, gobLenBytes(len(msg))...), msg...)
	}
	db, _ := openDB(t)
	_, err := Files(context.Background(), db, Options{From: vegetaformat.Name}, []string{writeFile(t, "huge.bin", string(out))})
	if err == nil || !strings.Contains(err.Error(), "huge.bin:1: bad Vegeta binary record") {
		t.Fatalf("error %v, want a bad record 1", err)
	}
}

func gobLen(b []byte) (n, k int) {
	if b[0] < 0x80 {
		return int(b[0]), 1
	}
	k = 256 - int(b[0])
	for _, c := range b[1 : 1+k] {
		n = n<<8 | int(c)
	}
	return n, k + 1
}

func gobLenBytes(n int) []byte {
	if n < 0x80 {
		return []byte{byte(n)}
	}
	var be []byte
	for ; n > 0; n >>= 8 {
		be = append([]byte{byte(n)}, be...)
	}
	return append([]byte{byte(256 - len(be))}, be...)
}

func FuzzVegeta(f *testing.F) {
	fuzzFormat(f, vegetaformat.Name, "testdata/real/vegeta/*/input*")
}

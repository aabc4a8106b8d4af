package analyze

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/go-cmp/cmp"
	"github.com/rewind-dev/rewind/store"
)

// Equality tests for issue 12 §2: every macro made fast gives what its
// anchor (anchor_sql_test.go, the straightforward SQL it replaced) gives, row
// for row, on generated data built to hit the cases the fast paths treat
// differently.

// sameRows runs q with the library's macros and with the anchor's (every
// NAME( in anchored replaced by old_NAME() and compares the rows.
func sameRows(t *testing.T, db *store.DB, anchored []string, q string, args ...any) int {
	t.Helper()
	old := q
	for _, name := range anchored {
		old = strings.ReplaceAll(old, name+"(", "old_"+name+"(")
	}
	want, wantErr := SQL(withArgs(db, args), old)
	got, gotErr := SQL(withArgs(db, args), q)
	if (wantErr != nil) != (gotErr != nil) {
		t.Fatalf("%s %v: anchor error %v, library error %v", q, args, wantErr, gotErr)
	}
	if wantErr != nil {
		return 0
	}
	if diff := cmp.Diff(want.Rows, got.Rows); diff != "" {
		t.Fatalf("%s %v (-anchor +library):\n%s", q, args, diff)
	}
	return len(got.Rows)
}

// argsQuerier passes fixed arguments to every query (SQL takes none).
type argsQuerier struct {
	db   *store.DB
	args []any
}

func (a argsQuerier) Query(q string, _ ...any) (*sql.Rows, error) { return a.db.Query(q, a.args...) }
func (a argsQuerier) QueryRow(q string, _ ...any) *sql.Row        { return a.db.QueryRow(q, a.args...) }
func (a argsQuerier) Context() context.Context                    { return context.Background() }
func (a argsQuerier) Arrow(q string, _ []any, fn func(arrow.RecordBatch) error) error {
	return a.db.Arrow(q, a.args, fn)
}

// withArgs is a store.Querier that runs every query with args.
func withArgs(db *store.DB, args []any) store.Querier { return argsQuerier{db, args} }

// tag_hash in UBIGINT is the HUGEINT original, bit for bit, for every
// integer type and for values past 64 bits, negative or not (both reduce
// modulo 2^32), and for the wrap-around points of i + 1 and of the seed.
func TestTagHashEqualsAnchor(t *testing.T) {
	db := ingestedDB(t)
	installAnchor(t, db)
	var diff int64
	q := `SELECT count(*) FILTER (WHERE tag_hash(s, i) IS DISTINCT FROM old_tag_hash(s, i)), count(*) FROM (%s)`
	cases := map[string]string{
		"bigint wrap points": `SELECT s, i FROM unnest([0, 1, 20260731, 31337, 2147483647, 2147483648, 4294967295, 4294967296, -1, -2147483648, 9007199254740993]::BIGINT[]) a(s),
			unnest([0, 1, 199, 2147483646, 2147483647, 4294967294, 4294967295, 4294967296, -1, -2, -4294967297, 9223372036854775806, -9223372036854775808]::BIGINT[]) b(i)`,
		"bigint ranges": `SELECT s, i FROM unnest([20260731, 31337, 4294967295]) a(s),
			(SELECT range AS i FROM range(-3000, 3000) UNION ALL SELECT range * 4294967296 + d FROM range(-40, 40), unnest([-1, 0, 1]) t(d))`,
		"bigint random": `SELECT 20260731 AS s, (hash(range)::HUGEINT - 9223372036854775808)::BIGINT AS i FROM range(100000)`,
		"integer":       `SELECT s::INTEGER AS s, i::INTEGER AS i FROM range(-50, 50) a(s), range(-2147483648, 2147483647, 9999991) b(i)`,
		"hugeint":       `SELECT s, i FROM unnest([7, 18446744073709551621, -36893488147419103232]::HUGEINT[]) a(s), unnest([0, 18446744073709551615, 18446744073709551616, -18446744073709551617, 170141183460469231731687303715884105726]::HUGEINT[]) b(i)`,
		"ubigint":       `SELECT 20260731 AS s, i FROM unnest([0, 4294967295, 9223372036854775808, 18446744073709551614]::UBIGINT[]) b(i)`,
		"double":        `SELECT 20260731 AS s, i FROM unnest([0.5, 1.5, -2.5, 1e15 + 0.5, 4294967295.5, -0.4]::DOUBLE[]) b(i)`,
		"null":          `SELECT NULL::INTEGER AS s, 5 AS i UNION ALL SELECT 5, NULL`,
	}
	for name, c := range cases {
		var n int64
		if err := db.QueryRow(fmt.Sprintf(q, c)).Scan(&diff, &n); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff != 0 || n == 0 {
			t.Errorf("%s: tag_hash differs from the HUGEINT original on %d of %d (seed, i) pairs", name, diff, n)
		}
	}
}

// logShape is one generated experiment for the window tests.
type logShape struct {
	name       string
	contiguous bool // each role's rows one after another (else interleaved)
	runs       int  // runs per role: 1, or 2 (runs a and b share a role)
	rows       int
}

// writeShapeLog writes a canonical log of shape s: random outcomes and
// tags, some pre-binned rows (count > 1), some rows without t_ms, runs of
// one role interleaved with each other.
func writeShapeLog(t *testing.T, r *rand.Rand, dir string, s logShape) string {
	t.Helper()
	type row map[string]any
	var roles [2][]row
	for ri, role := range []string{"control", "experiment"} {
		pOK := 0.5 + r.Float64()/2
		tm := 0.0
		for i := range s.rows {
			run := role
			if s.runs > 1 {
				run = fmt.Sprintf("%s-%c", role, 'a'+r.IntN(s.runs))
			}
			x := row{"experiment": s.name, "run": run, "role": role, "req": i, "outcome": "error", "tagged": r.IntN(4) == 0}
			if r.Float64() < pOK {
				x["outcome"] = "ok"
			}
			tm += float64(r.IntN(30))
			if r.IntN(20) > 0 {
				x["t_ms"] = tm
			}
			if r.IntN(6) == 0 {
				x["count"] = 1 + r.IntN(3)
			}
			roles[ri] = append(roles[ri], x)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `{"record":"experiment","experiment":%q,"params":{"window":7}}`+"\n", s.name)
	emit := func(x row) {
		j, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	c, e := roles[0], roles[1]
	for len(c) > 0 || len(e) > 0 {
		if len(e) == 0 || len(c) > 0 && (s.contiguous || r.IntN(2) == 0) {
			emit(c[0])
			c = c[1:]
		} else {
			emit(e[0])
			e = e[1:]
		}
	}
	p := filepath.Join(dir, s.name+".ndjson")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// shapesDB ingests one log of every shape (and a few random sizes) into one
// database, so that seqs of each experiment start past those of the others.
func shapesDB(t *testing.T) (*store.DB, []logShape) {
	t.Helper()
	r := rand.New(rand.NewPCG(12, 2))
	dir := t.TempDir()
	var shapes []logShape
	var paths []string
	for i := range 12 {
		s := logShape{name: fmt.Sprintf("shape%02d", i), contiguous: i%2 == 0, runs: 1 + i/2%2, rows: 1 + r.IntN(300)}
		if i >= 8 { // past one 65536-seq block: experiment_window's block search
			s.rows = 70000 + r.IntN(5000)
		}
		shapes = append(shapes, s)
		paths = append(paths, writeShapeLog(t, r, dir, s))
	}
	db := ingestedDB(t, paths...)
	installAnchor(t, db)
	return db, shapes
}

// windows, experiment_window, blast_radius, falsification and stop_damage
// give their anchors' rows on every shape: single and several runs per role,
// contiguous and interleaved, count and duration windows, start positions
// before, on and past the edges.
func TestWindowsEqualAnchor(t *testing.T) {
	db, shapes := shapesDB(t)
	windowed := []string{"windows", "falsification", "stop_damage"}
	for _, s := range shapes {
		sizes := []string{"size_n := 1", "size_n := 3", "size_n := 40", "size_ms := 50", "size_ms := 250", "size_n := 4, size_ms := 100"}
		if s.rows > 65536 {
			sizes = []string{"size_n := 40"}
		}
		for _, size := range sizes {
			for _, role := range []string{"control", "experiment"} {
				sameRows(t, db, windowed, fmt.Sprintf(`SELECT * FROM windows(?, '%s', %s)`, role, size), s.name)
			}
			sameRows(t, db, windowed, fmt.Sprintf(`SELECT * FROM falsification(?, %s, margins := [0, 0.05, 0.1, 0.125, 0.333333]::DECIMAL(18,6)[])`, size), s.name)
			sameRows(t, db, windowed, fmt.Sprintf(`SELECT * FROM stop_damage(?, %s, margin := 0.1, ks := [1, 2, 3, 5])`, size), s.name)
		}
		sameRows(t, db, windowed, `SELECT * FROM windows(?, 'experiment')`, s.name) // an error both ways
		// the rows themselves, or for the large logs a fingerprint of them
		rows := `SELECT * FROM experiment_window(?, ?) ORDER BY pos`
		if s.rows > 65536 {
			rows = `SELECT count(*), sum(hash(pos, seq, run, req, t_ms, outcome, tagged, count)::HUGEINT) FROM experiment_window(?, ?)`
		}
		n := s.rows // per role
		for _, start := range []any{nil, -3, 0, 1, 2.5, n / 3, n / 2, n - 1, n, n + 5, 65535, 65536, 65537} {
			anchored := []string{"experiment_window", "blast_radius"}
			sameRows(t, db, anchored, rows, s.name, start)
			sameRows(t, db, anchored, `SELECT count(*), sum(req) FROM experiment_window(?, ?) WHERE tag_hash(20260731, req) < 0.3`, s.name, start)
			sameRows(t, db, anchored, `SELECT * FROM blast_radius(?, ?, 17)`, s.name, start)
		}
	}
}

// Count windows take a row's window from run_pos only when a side is one
// run whose positions are 0 to n - 1; rows changed by hand break that, and
// the windows must then be numbered in (run, seq) order as the anchor does:
// positions missing on some rows, gaps left by deleted rows, and a second
// run of the role that the runs table does not list.
func TestWindowsWithoutDensePositions(t *testing.T) {
	db, shapes := shapesDB(t)
	src := shapes[0].name
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, c := range []struct{ name, rows string }{
		{"nullpos", `SELECT * REPLACE (? AS experiment, CASE WHEN seq % 7 = 3 THEN NULL ELSE run_pos END AS run_pos) FROM requests WHERE experiment = ?`},
		{"gaps", `SELECT * REPLACE (? AS experiment) FROM requests WHERE experiment = ? AND seq % 5 <> 1`},
		{"ghost", `SELECT * REPLACE (? AS experiment) FROM requests WHERE experiment = ?
			UNION ALL SELECT * REPLACE (? AS experiment, 'ghost' AS run, seq + 1000000000 AS seq) FROM requests WHERE experiment = ? AND role = 'control'`},
	} {
		args := []any{c.name, src}
		if c.name == "ghost" {
			args = append(args, c.name, src)
		}
		exec(`INSERT INTO requests `+c.rows, args...)
		exec(`INSERT INTO runs SELECT * REPLACE (? AS experiment) FROM runs WHERE experiment = ?`, c.name, src)
		for _, size := range []string{"size_n := 1", "size_n := 3", "size_n := 40"} {
			for _, role := range []string{"control", "experiment"} {
				sameRows(t, db, []string{"windows"}, fmt.Sprintf(`SELECT * FROM windows(?, '%s', %s)`, role, size), c.name)
			}
			sameRows(t, db, []string{"falsification"}, fmt.Sprintf(`SELECT * FROM falsification(?, %s, margins := [0, 0.1]::DECIMAL(18,6)[])`, size), c.name)
		}
	}
}

// The sliding peak from one sort and an ASOF join equals the RANGE frame it
// replaced, and the aligned peaks summed from the rows equal those summed
// from distinct times: raw and pre-binned (count-weighted) rows, whole-ms
// times that put rows exactly on window edges (t + res), several rows at one
// time, and decimal times whose sums round.
func TestPeaksEqualAnchor(t *testing.T) {
	db := ingestedDB(t)
	installAnchor(t, db)
	r := rand.New(rand.NewPCG(20261201, 3))
	res := "[1, 3, 7, 10, 100, 250, 1000]::BIGINT[]"
	for c := range 30 {
		raw := randomRaw(r, fmt.Sprintf("c%02d", c))
		if c%3 == 0 { // tenths of a ms: t + res rounds in float64
			for i := range raw {
				raw[i].t = float64(int64(raw[i].t*10)) / 10
			}
		}
		exp := fmt.Sprintf("raw%02d", c)
		insertPoints(t, db, exp, raw)
		sameRows(t, db, []string{"peaks"}, fmt.Sprintf(`SELECT * FROM peaks(?, %s, sliding := true)`, res), exp)
		// the smallest resolution sets the buckets: others not a multiple of it
		sameRows(t, db, []string{"peaks"}, `SELECT * FROM peaks(?, [3, 7, 10, 250]::BIGINT[], sliding := true)`, exp)
		sameRows(t, db, []string{"peaks"}, `SELECT * FROM peaks(?, [7, 100, 333]::BIGINT[], sliding := true)`, exp)
		sameRows(t, db, []string{"peaks"}, fmt.Sprintf(`SELECT * FROM peaks(?, %s, sliding := ?)`, res), exp, false)
		bin := fmt.Sprintf("bin%02d", c)
		insertPoints(t, db, bin, binned(raw, []int64{1, 5, 10, 50}[c%4]))
		sameRows(t, db, []string{"peaks"}, fmt.Sprintf(`SELECT * FROM peaks(?, %s, sliding := ?)`, res), bin, true)
	}
	// The bucket length is bounded below by the table's span and by the
	// magnitude of its times: a span of hours (buckets longer than the
	// finest resolution) and then epoch milliseconds, each in a database of
	// its own.
	for i, shape := range []struct {
		scale, shift float64
	}{{1e4, 0}, {1, 1.7e12}, {100, 1.7e12}} {
		db := ingestedDB(t)
		installAnchor(t, db)
		for c := range 6 {
			raw := randomRaw(r, fmt.Sprintf("s%d%d", i, c))
			for j := range raw {
				raw[j].t = raw[j].t*shape.scale + shape.shift
			}
			exp := fmt.Sprintf("shape%d%d", i, c)
			insertPoints(t, db, exp, raw)
			sameRows(t, db, []string{"peaks"}, fmt.Sprintf(`SELECT * FROM peaks(?, %s, sliding := true)`, res), exp)
		}
	}
}

// retryRow is one attempt for the retries equality test; nil fields are NULL.
type retryRow struct {
	run, reqText, outcome string
	req                   *int64
	attempt               int
	tMs, latencyMs        *float64
	count                 int
	retried               string // "true", "false" or "" (NULL)
}

// randomRetryLog draws operations of one to four attempts, some first
// attempts logged twice (attempt 0 again), some rows with a text id or no
// id at all, negative reqs, and missing times and outcomes.
func randomRetryLog(r *rand.Rand) []retryRow {
	var rows []retryRow
	f := func(x float64) *float64 { return &x }
	for run := range 1 + r.IntN(3) {
		name := fmt.Sprintf("S%d", run)
		ops := 1 + r.IntN(400)
		for op := range ops {
			req := int64(op) - int64(r.IntN(2))*int64(ops/2) // some negative, some shared by chance
			var reqp *int64
			if r.IntN(15) > 0 {
				reqp = &req
			}
			text := ""
			if reqp == nil && r.IntN(2) == 0 {
				text = fmt.Sprintf("op-%d", r.IntN(ops))
			}
			t := float64(r.IntN(5000)) + float64(r.IntN(1000))/1000
			n := 1
			if r.IntN(5) == 0 {
				n += r.IntN(4)
			}
			for a := range n {
				x := retryRow{run: name, req: reqp, reqText: text, attempt: a, tMs: f(t), latencyMs: f(float64(r.IntN(3000)) / 8), outcome: []string{"ok", "error", "timeout"}[r.IntN(3)], count: 1 + r.IntN(2)}
				if r.IntN(10) == 0 {
					x.attempt = 0 // logged without attempt numbers
				}
				if r.IntN(30) == 0 {
					x.tMs = nil
				}
				if r.IntN(30) == 0 {
					x.latencyMs = nil
				}
				if r.IntN(30) == 0 {
					x.outcome = ""
				}
				if x.outcome != "ok" && r.IntN(3) > 0 {
					x.retried = []string{"true", "false"}[r.IntN(2)]
				}
				rows = append(rows, x)
				t += float64(r.IntN(400)) / 4
			}
		}
	}
	r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	return rows
}

// insertRetryRows writes rows as requests of experiment exp through a CSV
// file (rows without a req cannot come through ingest, which numbers them).
func insertRetryRows(t *testing.T, db *store.DB, exp string, rows []retryRow) {
	t.Helper()
	var b strings.Builder
	b.WriteString("run,req,req_text,attempt,t_ms,latency_ms,outcome,count,retried\n")
	opt := func(p *float64) string {
		if p == nil {
			return ""
		}
		return fmt.Sprint(*p)
	}
	for _, x := range rows {
		req := ""
		if x.req != nil {
			req = fmt.Sprint(*x.req)
		}
		fmt.Fprintf(&b, "%s,%s,%s,%d,%s,%s,%s,%d,%s\n", x.run, req, x.reqText, x.attempt, opt(x.tMs), opt(x.latencyMs), x.outcome, x.count, x.retried)
	}
	path := filepath.Join(t.TempDir(), exp+".csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := db.Exec(`INSERT INTO requests (experiment, run, role, seq, req, req_text, attempt, t_ms, latency_ms, outcome, tagged, count, retried, file_id, line)
		SELECT ?, run, '', row_number() OVER (), req, nullif(req_text, ''), attempt, t_ms, latency_ms, nullif(outcome, ''), false, count, retried, 0, row_number() OVER ()
		FROM read_csv(?, header = true, columns = {'run': 'VARCHAR', 'req': 'BIGINT', 'req_text': 'VARCHAR', 'attempt': 'INTEGER',
			't_ms': 'DOUBLE', 'latency_ms': 'DOUBLE', 'outcome': 'VARCHAR', 'count': 'BIGINT', 'retried': 'BOOLEAN'})`, exp, path)
	if err != nil {
		t.Fatal(err)
	}
}

// retries groups only the reqs that may have several rows and takes its
// percentiles from counts per distinct latency; its operations and its
// table are the anchor's, which groups every row and calls quantile_cont:
// latencies in eighths of a ms (many ties) and, in every other log, to the
// nanosecond (almost none).
func TestRetriesEqualAnchor(t *testing.T) {
	db := ingestedDB(t, "../fixtures/retry/tiny.ndjson")
	installAnchor(t, db)
	anchored := []string{"retries", "_retry_ops"}
	sameRows(t, db, anchored, `SELECT * FROM retries('tiny', 1000, 2000)`)
	r := rand.New(rand.NewPCG(20261201, 12))
	for c := range 25 {
		exp := fmt.Sprintf("retry%02d", c)
		rows := randomRetryLog(r)
		if c%2 == 1 {
			for i := range rows {
				if l := rows[i].latencyMs; l != nil {
					x := *l + float64(r.IntN(1_000_000))/1e6
					rows[i].latencyMs = &x
				}
			}
		}
		insertRetryRows(t, db, exp, rows)
		if n := sameRows(t, db, anchored, `SELECT * FROM _retry_ops(?) ORDER BY ALL`, exp); n == 0 {
			t.Fatalf("%s: no operations", exp)
		}
		sameRows(t, db, anchored, `SELECT * FROM retries(?, 1000, 3000)`, exp)
	}
}

// Times in epoch milliseconds (1.7e12: past what DECIMAL(18,6) holds)
// give the table of the same log in relative times: every time is a
// quarter ms, so both logs hold exactly the shifted times, and the
// latencies, differences of logged times, are the same. So do times all
// below 0.
func TestRetriesEpochTimes(t *testing.T) {
	db := ingestedDB(t)
	r := rand.New(rand.NewPCG(20261201, 14))
	for c := range 8 {
		rows := randomRetryLog(r)
		for _, shift := range []float64{0, 1.7e12, -1.7e12 - 1e4} {
			moved := make([]retryRow, len(rows))
			for i, x := range rows {
				if x.tMs != nil {
					v := math.Round(*x.tMs*4)/4 + shift
					x.tMs = &v
				}
				moved[i] = x
			}
			insertRetryRows(t, db, fmt.Sprintf("epoch%02d_%d", c, int(shift/1e12)), moved)
		}
		var want *Result
		for _, shift := range []float64{0, 1.7e12, -1.7e12 - 1e4} {
			got, err := SQL(withArgs(db, []any{fmt.Sprintf("epoch%02d_%d", c, int(shift/1e12)), 1000 + shift, 3000 + shift}),
				`SELECT * FROM retries(?, ?, ?)`)
			if err != nil {
				t.Fatalf("log %d shifted by %g ms: %v", c, shift, err)
			}
			if want == nil {
				want = got
				continue
			}
			if diff := cmp.Diff(want.Rows, got.Rows); diff != "" {
				t.Fatalf("log %d shifted by %g ms (-relative +shifted):\n%s", c, shift, diff)
			}
		}
	}
}

// amplification looks up the last attempt only of the reqs whose failed
// calls do not say whether they were retried (among the retries only, but
// among all rows for a negative attempt), and groups the calls once; its
// table is the anchor's, on the storm fixture and on random logs with
// retried true, false and missing, rows without a req, negative attempts,
// and stored and given ticks and fault windows.
func TestAmplificationEqualAnchor(t *testing.T) {
	db := ingestedDB(t, "../fixtures/storm/tiny.ndjson")
	installAnchor(t, db)
	anchored := []string{"amplification"}
	var exp string
	if err := db.QueryRow(`SELECT experiment FROM requests LIMIT 1`).Scan(&exp); err != nil {
		t.Fatal(err)
	}
	sameRows(t, db, anchored, `SELECT * FROM amplification(?)`, exp)
	sameRows(t, db, anchored, `SELECT * FROM amplification(?, tick_ms := 7, fault_from_ms := 100, fault_to_ms := 900, normal_rate := 2)`, exp)
	r := rand.New(rand.NewPCG(20261201, 13))
	for c := range 20 {
		exp := fmt.Sprintf("amp%02d", c)
		rows := randomRetryLog(r)
		if c%2 == 1 {
			// negative attempts (an ingest refuses them; rows inserted in
			// SQL may have them): whole reqs shifted below 0, and single rows
			for i := range rows {
				if x := rows[i].req; (x != nil && *x%3 == 0) || r.IntN(20) == 0 {
					rows[i].attempt -= 2
				}
			}
		}
		insertRetryRows(t, db, exp, rows)
		runs := map[string]bool{}
		for _, x := range rows {
			runs[x.run] = true
		}
		for run := range runs {
			if c%4 == 0 && run == "S1" {
				continue // a run the runs table does not list
			}
			params := fmt.Sprintf(`{"allowed": %d, "tick_ms": %d, "fault_from_ms": %d, "fault_to_ms": %d, "normal_rate": 3}`,
				1+r.IntN(9), 5+r.IntN(50), r.IntN(2000), 2000+r.IntN(3000))
			if _, err := db.Exec(`INSERT INTO runs VALUES (?, ?, '', ?)`, exp, run, params); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.Exec(`INSERT INTO experiments VALUES (?, NULL)`, exp); err != nil {
			t.Fatal(err)
		}
		if n := sameRows(t, db, anchored, `SELECT * FROM amplification(?)`, exp); n == 0 {
			t.Fatalf("%s: no rows", exp)
		}
		sameRows(t, db, anchored, `SELECT * FROM amplification(?, runs_glob := 'S[01]', tick_ms := 10)`, exp)
		// the same tick and window for every run: no join per row
		sameRows(t, db, anchored, `SELECT * FROM amplification(?, runs_glob := 'S[12]', tick_ms := 10, fault_from_ms := 500, fault_to_ms := 2500)`, exp)
	}
}

// randomBurnLog draws runs whose failures hover around thr (the share of
// bad requests a rule fires above): bursts of failures, requests ending at
// the same ns, whole and fractional ms, counts, rows that are no SLI event.
func randomBurnLog(r *rand.Rand, thr float64) []retryRow {
	var rows []retryRow
	f := func(x float64) *float64 { return &x }
	for run := range 1 + r.IntN(2) {
		name := fmt.Sprintf("R%d", run)
		p := thr * (0.6 + 0.8*r.Float64())
		burstAt, burstLen := float64(r.IntN(8000)), float64(r.IntN(2000))
		t := float64(r.IntN(50))
		for range 20 + r.IntN(400) {
			t += float64(r.IntN(60)) / []float64{1, 4, 1000}[r.IntN(3)]
			x := retryRow{run: name, attempt: 0, tMs: f(t), latencyMs: f(float64(r.IntN(300)) / []float64{1, 8}[r.IntN(2)]), outcome: "ok", count: 1}
			pb := p
			if t >= burstAt && t < burstAt+burstLen {
				pb = min(1, 3*p)
			}
			if r.Float64() < pb {
				x.outcome = "error"
			}
			if r.IntN(8) == 0 {
				x.count = 1 + r.IntN(4)
			}
			if r.IntN(20) == 0 {
				x.outcome = "" // no SLI event
			}
			if r.IntN(30) == 0 {
				x.latencyMs = nil
			}
			rows = append(rows, x)
		}
	}
	r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	return rows
}

// burn_rate with the bucket bound gives the anchor's rows (which evaluates
// every candidate moment) for any bucket size: 0.1 ms, sizes that divide
// no window, sizes past the long window, and the default; continuous and
// stepped, with and without partial windows, several rules at once.
func TestBurnRateEqualsAnchor(t *testing.T) {
	db := ingestedDB(t)
	installAnchor(t, db)
	r := rand.New(rand.NewPCG(20261201, 12))
	fired, rows := 0, 0
	for c := range 40 {
		slo := []string{"0.9", "0.99", "0.95", "0.8"}[r.IntN(4)]
		var rules []string
		thr := 0.0
		for k := range 1 + r.IntN(3) {
			short := []int{50, 100, 250, 333, 1000}[r.IntN(5)]
			long := short * (2 + r.IntN(8))
			if r.IntN(3) == 0 {
				long += r.IntN(short)
			}
			factor := []string{"1", "2", "1.5", "3", "0.5"}[r.IntN(5)]
			rules = append(rules, fmt.Sprintf("{name: 'r%d', short_ms: %d, long_ms: %d, factor: %s::DECIMAL(18,6)}", k, short, long, factor))
			var fv, sv float64
			fmt.Sscan(factor, &fv)
			fmt.Sscan(slo, &sv)
			thr = fv * (1 - sv)
		}
		exp := fmt.Sprintf("burn%02d", c)
		insertRetryRows(t, db, exp, randomBurnLog(r, min(thr, 0.9)))
		step := []string{"NULL", "NULL", "250", "100", "7"}[r.IntN(5)]
		partial := r.IntN(3) == 0
		q := fmt.Sprintf(`SELECT * FROM %%s(?, (outcome = 'ok'), slo := %s, rules := [%s], step_ms := %s, partial := %t%%s)`,
			slo, strings.Join(rules, ", "), step, partial)
		want, err := SQL(withArgs(db, []any{exp}), fmt.Sprintf(q, "old_burn_rate", ""))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range []string{"", ", bucket_ns := 100000", fmt.Sprintf(", bucket_ns := %d", 100_000+r.IntN(3_000_000)),
			fmt.Sprintf(", bucket_ns := %d", 1_000_000*(1+r.IntN(20))), ", bucket_ns := 100000000000"} {
			got, err := SQL(withArgs(db, []any{exp}), fmt.Sprintf(q, "burn_rate", b))
			if err != nil {
				t.Fatal(err)
			}
			for i := range got.Rows {
				got.Rows[i] = got.Rows[i][:len(want.Columns)] // and run_ms, unjudged
			}
			if diff := cmp.Diff(want.Rows, got.Rows); diff != "" {
				t.Fatalf("%s%s (-anchor +library):\n%s", fmt.Sprintf(q, "burn_rate", ""), b, diff)
			}
		}
		for _, row := range want.Rows {
			rows++
			if row[2] != nil {
				fired++
			}
		}
	}
	if fired < rows/4 || fired > rows*3/4 {
		t.Errorf("%d of %d rules fire: the generator no longer tests both", fired, rows)
	}
}

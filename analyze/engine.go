package analyze

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	rds "github.com/rewind-dev/rewind/dataset"
	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/store"
)

// Remote runs analyses on an engine over a dataset (docs/scale.md): the
// engine does the per-request work, one reduce step at a time, and returns
// aggregates; they are loaded into an in-memory DuckDB, which holds the
// dataset's small tables (experiments, runs) as well, and the analysis is
// finished there.
type Remote struct {
	ctx     context.Context
	eng     engine.Engine
	db      *store.DB
	dataset string        // the path the engine reads
	timeout time.Duration // each step's deadline (0: none)
	swept   string        // how the last falsification was judged (sweepOn), for tests
	// sweepShadowed: the in-memory _sweep is sweepOn's, not the library's
	sweepShadowed bool
	streaked      string // how the last stop-damage was judged (streaksOn), for tests
	// streaksShadowed: the in-memory _streaks and _streaks_by are
	// streaksOn's, not the library's
	streaksShadowed bool
	// memo holds the results of the session's queries by their text (an
	// analysis and a report run some of the same steps: a report on the
	// chaos fixture ran 28 steps, 11 of them a second time), up to
	// memoLimit bytes of Arrow (nil: the engine returned no table);
	// memoBytes is what it holds.
	memo      map[string]arrow.Table
	memoBytes int64
}

// memoLimit bounds what a session keeps of its results (a step's result
// larger than it, such as the windows a report's timeline pulls, is not
// kept): the client's memory stays flat.
const memoLimit = 16 << 20

// OpenRemote registers the dataset with eng and copies its experiments and
// runs into a new in-memory database. timeout is the deadline of each
// call on the engine, each reduce step (0: none): a step past it fails
// with an engine.DeadlineError naming it.
func OpenRemote(ctx context.Context, eng engine.Engine, dataset string, timeout time.Duration) (*Remote, error) {
	if !strings.Contains(dataset, "://") {
		// a path this machine reads too: its parts are checked here, so that
		// a bad one is named (Spark's error names the folder, and the cause
		// that names the part is past what Spark Connect sends back); a
		// relative one is made absolute, since the engine would resolve it
		// against its own working folder, not the user's
		abs, err := filepath.Abs(dataset)
		if err != nil {
			return nil, fmt.Errorf("dataset %s: %w", dataset, err)
		}
		dataset = abs
		if err := rds.Check(ctx, dataset); err != nil {
			return nil, err
		}
	}
	err := engine.WithDeadline(ctx, timeout, "register (the dataset's views)", func(ctx context.Context) error { return eng.Register(ctx, dataset) })
	if err != nil {
		return nil, err
	}
	db, err := store.Open(ctx, "", store.Options{Mode: store.Memory})
	if err != nil {
		return nil, err
	}
	r := &Remote{ctx: ctx, eng: eng, db: db, dataset: dataset, timeout: timeout}
	if err := r.copySmallTables(); err != nil {
		db.Close()
		return nil, err
	}
	return r, nil
}

// smallTables are the dataset's tables of one row per experiment, run or
// file, copied whole into the in-memory database: per column what the
// engine selects (JSON read as text), its name and DuckDB type in the copy,
// and the insert's select list.
var smallTables = []struct {
	table string
	cols  []smallCol
	ins   string
}{
	{"experiments", []smallCol{{"experiment", "experiment", "VARCHAR"}, {"CAST(params AS STRING)", "params", "VARCHAR"}},
		"experiment, params::JSON"},
	{"runs", []smallCol{{"experiment", "experiment", "VARCHAR"}, {"run", "run", "VARCHAR"}, {"role", "role", "VARCHAR"},
		{"CAST(params AS STRING)", "params", "VARCHAR"}},
		"experiment, run, role, params::JSON"},
	{"files", []smallCol{{"file_id", "file_id", "INTEGER"}, {"path", "path", "VARCHAR"}, {"sha256", "sha256", "VARCHAR"},
		{"named_as", "named_as", "VARCHAR"}, {"format", "format", "VARCHAR"}, {"experiment", "experiment", "VARCHAR"},
		{"rows", "rows", "BIGINT"}, {"CAST(ingested_at AS STRING)", "ingested_at", "VARCHAR"}, {"bytes", "bytes", "BIGINT"},
		{"abs_path", "abs_path", "VARCHAR"}, {"compression", "compression", "VARCHAR"}, {"resolution_ms", "resolution_ms", "DOUBLE"},
		{"CAST(t_origin AS STRING)", "t_origin", "VARCHAR"}},
		"file_id, path, sha256, named_as, format, experiment, rows, ingested_at::TIMESTAMP, bytes, abs_path, compression, resolution_ms, t_origin::TIMESTAMP"},
}

// smallCol is a column of a small table: the engine's expression, the
// copy's name and DuckDB type.
type smallCol struct{ sel, name, typ string }

// sparkTypes are the engine's names of the small tables' DuckDB types.
var sparkTypes = map[string]string{"VARCHAR": "STRING", "INTEGER": "INT", "BIGINT": "BIGINT", "DOUBLE": "DOUBLE"}

// copySmallTables copies the small tables in one reduce step (three were
// three jobs, a fixed cost of every command on a cluster): a
// UNION ALL of one branch per table, column c of table k as t{k}_{c}, the
// other tables' columns NULL, and the branch's number as _t; each table is
// then inserted from its branch's rows.
func (r *Remote) copySmallTables() error {
	var cols []string
	for k, t := range smallTables {
		for c, col := range t.cols {
			cols = append(cols, fmt.Sprintf("t%d_%d %s", k, c, col.typ))
		}
	}
	branches := make([]string, len(smallTables))
	for k, t := range smallTables {
		sel := []string{fmt.Sprintf("%d AS _t", k)}
		for j, u := range smallTables {
			for c, col := range u.cols {
				e := "NULL"
				if j == k {
					e = col.sel
				}
				sel = append(sel, fmt.Sprintf("CAST(%s AS %s) AS t%d_%d", e, sparkTypes[col.typ], j, c))
			}
		}
		branches[k] = "SELECT " + strings.Join(sel, ", ") + " FROM " + t.table
	}
	if err := r.reduce("_remote_small_tables", "_t INTEGER, "+strings.Join(cols, ", "), strings.Join(branches, "\nUNION ALL\n")); err != nil {
		return err
	}
	for k, t := range smallTables {
		as := make([]string, len(t.cols))
		for c, col := range t.cols {
			as[c] = fmt.Sprintf("t%d_%d AS %s", k, c, col.name)
		}
		q := fmt.Sprintf("INSERT INTO %s SELECT %s FROM (SELECT %s FROM _remote_small_tables WHERE _t = %d)", t.table, t.ins, strings.Join(as, ", "), k)
		if _, err := r.db.ExecContext(r.ctx, q); err != nil {
			return fmt.Errorf("dataset %s: table %s: %w", r.dataset, t.table, err)
		}
	}
	return nil
}

// Close closes the in-memory database and the engine's session.
func (r *Remote) Close() error {
	for _, t := range r.memo {
		if t != nil {
			t.Release()
		}
	}
	r.memo, r.memoBytes = nil, 0
	err := r.db.Close()
	if e := r.eng.Close(); err == nil {
		err = e
	}
	return err
}

// Querier is the in-memory database the analyses finish in.
func (r *Remote) Querier() store.Querier { return store.WithContext(r.ctx, r.db) }

// reduce runs one reduce step on the engine and loads its result into the
// temporary table name with DuckDB's column definitions cols.
func (r *Remote) reduce(name, cols, step string) error {
	t, err := r.run(name, step)
	if err != nil {
		var tl *engine.TooLargeError
		if asTooLarge(err, &tl) {
			tl.Step = name
			return tl
		}
		return err
	}
	if t != nil {
		defer t.Release()
	}
	return engine.Load(r.ctx, r.db, name, cols, t)
}

// NotOnEngineError is an analysis, or an option of one, that has no reduce
// steps for an engine yet: it is refused rather than answered some other way.
type NotOnEngineError struct {
	Engine   string
	Analysis string
	Missing  string // what it would need
}

func (e *NotOnEngineError) Error() string { return e.Say(func(p string) string { return p }) }

// Say is the message with the parameters Analysis and Missing name as
// {name} written as name says (the CLI's flags), as a param.Error's.
func (e *NotOnEngineError) Say(name func(param string) string) string {
	msg := fmt.Sprintf("%s does not run on %s yet: %s; run it on a database or a dataset on this machine", e.Analysis, e.Engine, e.Missing)
	return param.Textf(strings.ReplaceAll(msg, "%", "%%")).Say(name)
}

// NotOnEngine is the refusal of analysis (or an option of it) on r's engine.
func (r *Remote) NotOnEngine(analysis, missing string) error {
	return &NotOnEngineError{Engine: r.eng.Name(), Analysis: analysis, Missing: missing}
}

func asTooLarge(err error, tl **engine.TooLargeError) bool { return errors.As(err, tl) }

// run runs one statement on the engine within the deadline of a step,
// name naming it past the deadline. A query (SELECT or WITH) the session
// ran before returns its result again (memo): the dataset does not change
// under a session, and the query's text is the whole of what it reads.
func (r *Remote) run(name, q string) (arrow.Table, error) {
	if t, ok := r.memo[q]; ok {
		if t != nil {
			t.Retain()
		}
		return t, nil
	}
	if os.Getenv("REWIND_SPARK_EXPLAIN") != "" && isQuery(q) {
		r.explain(name, q)
	}
	var t arrow.Table
	err := engine.WithDeadline(r.ctx, r.timeout, name, func(ctx context.Context) error {
		var err error
		t, err = r.eng.Reduce(ctx, q)
		return err
	})
	if err == nil && isQuery(q) {
		size := int64(0)
		if t != nil {
			size = engine.TableBytes(t)
		}
		if r.memoBytes+size <= memoLimit {
			if r.memo == nil {
				r.memo = map[string]arrow.Table{}
			}
			if t != nil {
				t.Retain()
			}
			r.memo[q], r.memoBytes = t, r.memoBytes+size
		}
	}
	return t, err
}

// explain writes to stderr how many times step q's physical plan on the
// engine reads the dataset, and how many of those reads repeat another
// (the same files, columns and pushed filters): Spark inlines a CTE into
// each of its references, so a CTE read twice is computed twice
// (REWIND_SPARK_EXPLAIN=1; =full writes the plan too). A diagnostic: it
// costs a planning of each step.
func (r *Remote) explain(name, q string) {
	t, err := r.eng.Reduce(r.ctx, "EXPLAIN FORMATTED "+q)
	if err != nil {
		fmt.Fprintf(os.Stderr, "spark: explain %s: %v\n", name, err)
		return
	}
	if t == nil {
		return
	}
	defer t.Release()
	plan := planText(t)
	scans, repeated := planScans(plan)
	fmt.Fprintf(os.Stderr, "spark: explain %s: %d scans, %d repeated\n", name, scans, repeated)
	if os.Getenv("REWIND_SPARK_EXPLAIN") == "full" {
		fmt.Fprintln(os.Stderr, plan)
	}
}

// planText is an EXPLAIN's result: its first column's strings, joined.
func planText(t arrow.Table) string {
	var b strings.Builder
	for _, c := range t.Column(0).Data().Chunks() {
		if s, ok := c.(*array.String); ok {
			for i := range s.Len() {
				b.WriteString(s.Value(i))
			}
		}
	}
	return b.String()
}

// planScans counts the scans of Spark's EXPLAIN FORMATTED plan (its
// numbered "Scan parquet" nodes) and those that repeat an earlier one's
// location, partition and pushed filters and read schema.
func planScans(plan string) (scans, repeated int) {
	seen := map[string]bool{}
	for _, node := range strings.Split(plan, "\n\n") {
		node = strings.TrimSpace(node)
		if !strings.HasPrefix(node, "(") || !strings.Contains(strings.SplitN(node, "\n", 2)[0], ") Scan ") {
			continue
		}
		var key []string
		for _, line := range strings.Split(node, "\n") {
			for _, f := range []string{"Location: ", "PartitionFilters: ", "PushedFilters: ", "ReadSchema: "} {
				if strings.HasPrefix(line, f) {
					key = append(key, stripIDs(line))
				}
			}
		}
		k := strings.Join(key, "\n")
		scans++
		if seen[k] {
			repeated++
		}
		seen[k] = true
	}
	return scans, repeated
}

// stripIDs drops Spark's expression ids (#123, #123L) from a plan line.
func stripIDs(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		if line[i] == '#' {
			for i+1 < len(line) && (line[i+1] >= '0' && line[i+1] <= '9' || line[i+1] == 'L') {
				i++
			}
			continue
		}
		b.WriteByte(line[i])
	}
	return b.String()
}

// isQuery reports whether q is a query (its first word SELECT or WITH),
// not a statement run for its effect.
func isQuery(q string) bool {
	q = strings.TrimLeft(q, " \t\r\n(")
	q = strings.ToUpper(q[:min(len(q), 6)])
	return strings.HasPrefix(q, "SELECT") || strings.HasPrefix(q, "WITH")
}

// timed reports whether experiment exp has a row with t_ms, in a step that
// stops at the first.
func (r *Remote) timed(exp string) (bool, error) {
	t, err := r.run("_remote_timed", `SELECT 1 AS one FROM requests WHERE experiment = `+engine.String(exp)+` AND t_ms IS NOT NULL LIMIT 1`)
	if err != nil {
		return false, err
	}
	if t == nil {
		return false, nil
	}
	defer t.Release()
	return t.NumRows() > 0, nil
}

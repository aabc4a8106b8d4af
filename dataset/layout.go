// Package dataset owns rewind's Parquet dataset: the one place that writes
// or reads its layout (docs/dataset.md). Export writes a database's tables
// as hive-partitioned Parquet parts with a manifest; Open reads a dataset
// in place, as views in an in-memory DuckDB the analyses query like a
// database file; Load copies one into a database; Convert turns log files
// into parts, one set per file, named by the file's content hash.
//
// The layout:
//
//	DIR/_rewind.json                                     manifest
//	DIR/requests/experiment=E/run=R/part-ID.parquet      requests but experiment, run
//	DIR/events/experiment=E/part-ID.parquet              events but experiment
//	DIR/runs/part-ID.parquet, DIR/files/part-ID.parquet,
//	DIR/run_gaps/part-ID.parquet, DIR/experiments/part-ID.parquet
//
// Paths whose name starts with "_" or "." below the tables are not read
// (temporary folders, Spark's _SUCCESS).
package dataset

import "strings"

// Version is the layout's version, written in the manifest.
const Version = 1

// Manifest is the manifest's file name.
const Manifest = "_rewind.json"

// column is one column of a table as the dataset holds it.
type column struct {
	name, typ string
	// optional: a part may lack it (schema.sql added it with ALTER): it
	// reads as NULL.
	optional bool
	// parquet is the type the column has in a part when it differs from
	// typ (HUGEINT has no Parquet type).
	parquet string
}

// table is one canonical table: its columns in schema.sql's order and the
// columns that are its hive partitions (not stored in the parts).
type table struct {
	name      string
	cols      []column
	partition []string
}

func (t table) partitioned(c string) bool {
	for _, p := range t.partition {
		if p == c {
			return true
		}
	}
	return false
}

// stored is the type a column has in a part.
func (c column) stored() string {
	if c.parquet != "" {
		return c.parquet
	}
	return c.typ
}

func cols(spec string) []column {
	var out []column
	for _, f := range strings.Split(spec, ",") {
		p := strings.Fields(f)
		c := column{name: p[0], typ: p[1]}
		for _, x := range p[2:] {
			if x == "optional" {
				c.optional = true
			} else {
				c.parquet = strings.ReplaceAll(x, ":", ",") // a comma would end the column
			}
		}
		out = append(out, c)
	}
	return out
}

// tables is the layout, in the order Export writes and Load loads them.
var tables = []table{
	{name: "files", cols: cols(`file_id INTEGER, path VARCHAR, sha256 VARCHAR, named_as VARCHAR, format VARCHAR,
		experiment VARCHAR, rows BIGINT, ingested_at TIMESTAMP, bytes BIGINT optional, abs_path VARCHAR optional,
		compression VARCHAR optional, resolution_ms DOUBLE optional, t_origin TIMESTAMP optional`)},
	{name: "experiments", cols: cols(`experiment VARCHAR, params JSON`)},
	{name: "runs", cols: cols(`experiment VARCHAR, run VARCHAR, role VARCHAR, params JSON`)},
	{name: "requests", partition: []string{"experiment", "run"}, cols: cols(`experiment VARCHAR, run VARCHAR,
		role VARCHAR, seq BIGINT, req BIGINT, req_text VARCHAR, attempt INTEGER, t_ms DOUBLE, ts TIMESTAMP,
		latency_ms DOUBLE, outcome VARCHAR, status INTEGER, tagged BOOLEAN, user_id VARCHAR, batch_id VARCHAR,
		client_id VARCHAR, retried BOOLEAN, drop_reason VARCHAR, count BIGINT, attrs JSON, file_id INTEGER,
		line BIGINT, run_pos BIGINT optional`)},
	{name: "events", partition: []string{"experiment"}, cols: cols(`experiment VARCHAR, run VARCHAR, seq BIGINT,
		type VARCHAR, t_ms DOUBLE, subject VARCHAR, state VARCHAR, attrs JSON, file_id INTEGER, line BIGINT,
		ts TIMESTAMP optional`)},
	{name: "run_gaps", cols: cols(`experiment VARCHAR, run VARCHAR, gap_us BIGINT, rows BIGINT,
		check_sum HUGEINT DECIMAL(38:0)`)},
}

// names is the tables' names.
func names() []string {
	out := make([]string, len(tables))
	for i, t := range tables {
		out[i] = t.name
	}
	return out
}

// quote is s as a SQL string literal; ident as an identifier.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
func ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

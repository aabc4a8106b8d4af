package dataset

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	isandbox "github.com/rewind-dev/rewind/internal/sandbox"
)

// parts are a dataset's part files by table, absolute paths in name order,
// and the optional columns some part of each table holds.
type parts struct {
	dir    string
	files  map[string][]string
	having map[string]map[string]bool
	// orphans are parts of a converted file without its files part: a
	// conversion is committed when that part is in place (write.go).
	orphans []string
}

// IsDataset reports whether dir is a dataset: a folder with the manifest,
// or with a requests folder partitioned by experiment.
func IsDataset(dir string) bool {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return false
	}
	if _, err := os.Stat(filepath.Join(dir, Manifest)); err == nil {
		return true
	}
	m, _ := filepath.Glob(filepath.Join(dir, "requests", "experiment=*"))
	return len(m) > 0
}

// list finds the part files. A part below a partitioned table must sit at
// the partitions' depth.
func list(dir string) (*parts, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if !IsDataset(abs) {
		return nil, fmt.Errorf("%s: not a rewind dataset (no %s, no requests/experiment=NAME folder)", dir, Manifest)
	}
	p := &parts{dir: abs, files: map[string][]string{}, having: map[string]map[string]bool{}}
	committed := map[string]bool{} // converted files' ids with a files part (tables lists files first)
	for _, t := range tables {
		root := filepath.Join(abs, t.name)
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && path == root {
					return nil
				}
				return err
			}
			if path != root && (strings.HasPrefix(d.Name(), "_") || strings.HasPrefix(d.Name(), ".")) {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() || !strings.HasSuffix(d.Name(), ".parquet") {
				return nil
			}
			rel, _ := filepath.Rel(root, path)
			if depth := strings.Count(rel, string(filepath.Separator)); depth != len(t.partition) {
				return fmt.Errorf("%s: a %s part belongs in %s", rel2(abs, path), t.name, partitionHint(t))
			}
			if m := convertedPart.FindStringSubmatch(d.Name()); m != nil {
				if t.name == "files" {
					committed[m[1]] = true
				} else if !committed[m[1]] {
					p.orphans = append(p.orphans, path)
					return nil
				}
			}
			p.files[t.name] = append(p.files[t.name], path)
			return nil
		})
		if err != nil {
			return nil, err
		}
		slices.Sort(p.files[t.name])
	}
	return p, nil
}

func partitionHint(t table) string {
	s := t.name + "/"
	for _, c := range t.partition {
		s += c + "=VALUE/"
	}
	return s + "part-ID.parquet"
}

func rel2(dir, path string) string {
	if r, err := filepath.Rel(dir, path); err == nil {
		return filepath.Join(filepath.Base(dir), r)
	}
	return path
}

// accepts reports whether a part's type got may stand for want: the same,
// or one a cast widens exactly (a JSON column written as text by a
// pipeline that has no JSON type, INTEGER for BIGINT).
func accepts(want, got string) bool {
	switch {
	case want == got:
		return true
	case want == "JSON":
		return got == "VARCHAR"
	case want == "BIGINT":
		return got == "INTEGER" || got == "SMALLINT"
	}
	return false
}

// check reads each part's schema: a part that does not read, lacks a
// column or holds one of another type is refused, naming both.
func (p *parts) check(ctx context.Context, db *sql.DB) error {
	for _, t := range tables {
		p.having[t.name] = map[string]bool{}
		for _, f := range p.files[t.name] {
			if err := p.checkPart(ctx, db, t, f); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *parts) checkPart(ctx context.Context, db *sql.DB, t table, f string) error {
	got, err := describe(ctx, db, f)
	name := rel2(p.dir, f)
	if err != nil {
		return fmt.Errorf("%s: does not read as Parquet: %s", name, firstLine(err))
	}
	for _, c := range t.cols {
		typ, ok := got[c.name]
		switch {
		case t.partitioned(c.name) && ok:
			return fmt.Errorf("%s: column %q: is the folder's partition (%s=VALUE), not a column of the part", name, c.name, c.name)
		case t.partitioned(c.name):
		case !ok && c.optional:
		case !ok:
			return fmt.Errorf("%s: column %q: missing (want %s)", name, c.name, c.stored())
		case !accepts(c.stored(), typ):
			return fmt.Errorf("%s: column %q: want %s, got %s", name, c.name, c.stored(), typ)
		default:
			p.having[t.name][c.name] = true
		}
	}
	return nil
}

func describe(ctx context.Context, db *sql.DB, f string) (map[string]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet("+quote(f)+", hive_partitioning = false))")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	got := map[string]string{}
	for rows.Next() {
		var n, t string
		if err := rows.Scan(&n, &t); err != nil {
			return nil, err
		}
		got[n] = t
	}
	return got, rows.Err()
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// selectSQL reads table t from its parts, every column in schema.sql's type
// and order.
func (p *parts) selectSQL(t table) string {
	files := p.files[t.name]
	exprs := make([]string, len(t.cols))
	for i, c := range t.cols {
		switch {
		case len(files) == 0 || (c.optional && !p.having[t.name][c.name]):
			exprs[i] = "NULL::" + c.typ + " AS " + ident(c.name)
		case t.partitioned(c.name):
			exprs[i] = ident(c.name)
		default:
			exprs[i] = ident(c.name) + "::" + c.typ + " AS " + ident(c.name)
		}
	}
	q := "SELECT " + strings.Join(exprs, ", ")
	if len(files) == 0 {
		return q + " WHERE false"
	}
	hive := "hive_partitioning = false"
	if len(t.partition) > 0 {
		types := make([]string, len(t.partition))
		for i, c := range t.partition {
			types[i] = quote(c) + ": VARCHAR"
		}
		hive = "hive_partitioning = true, hive_types = {" + strings.Join(types, ", ") + "}"
	}
	q += " FROM read_parquet(" + quoteList(files) + ", " + hive + ", union_by_name = true)"
	if t.name == "experiments" {
		// Several files may each have stored parameters of one experiment,
		// agreeing on the keys they share (a conversion checks): the
		// experiment's are their merge.
		q = `SELECT experiment, list_reduce(list(params) FILTER (WHERE params IS NOT NULL), (a, b) -> json_merge_patch(a, b))::JSON AS params
			FROM (` + q + `) GROUP BY experiment`
	}
	return q
}

// views are the statements that make every table a view over its parts.
func (p *parts) views() []string {
	out := []string{"SET VARIABLE " + isandbox.DatasetVariable + " = true", "SET parquet_metadata_cache = true"}
	for _, t := range tables {
		out = append(out, "CREATE VIEW "+t.name+" AS "+p.selectSQL(t))
	}
	return out
}

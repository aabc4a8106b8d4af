package dataset

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rewind-dev/rewind/store"
)

// Export writes db's tables (one experiment's rows, when experiment is
// given) as a dataset in dir, which must not exist or be empty. It is
// written in a folder beside dir and renamed into place whole, manifest
// included: a crash leaves no dataset, never half of one.
func Export(ctx context.Context, db *store.DB, dir, experiment string) (*Summary, error) {
	if err := emptyTarget(dir); err != nil {
		return nil, err
	}
	if experiment != "" {
		var n int64
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM experiments WHERE experiment = ?`, experiment).Scan(&n); err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, fmt.Errorf("no experiment %q in %s", experiment, db.Path())
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	tmp := fmt.Sprintf("%s.tmp-%d", abs, os.Getpid())
	os.RemoveAll(tmp)
	defer os.RemoveAll(tmp)
	for _, t := range tables {
		if err := copyTable(ctx, db.DB, t, tmp, experiment, "part-{uuid}"); err != nil {
			return nil, fmt.Errorf("export %s: %w", t.name, err)
		}
	}
	sum, err := summarize(ctx, db.DB, tmp, experiment)
	if err != nil {
		return nil, err
	}
	if err := writeManifest(tmp, sum); err != nil {
		return nil, err
	}
	os.Remove(abs) // the empty folder, if any: the rename needs the name free
	if err := os.Rename(tmp, abs); err != nil {
		return nil, err
	}
	return sum, syncDir(filepath.Dir(abs))
}

// emptyTarget refuses a dir that holds anything.
func emptyTarget(dir string) error {
	ents, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	case len(ents) > 0:
		return fmt.Errorf("%s: not empty: export writes a new dataset into a folder that does not exist or is empty", dir)
	}
	return nil
}

// filter is the WHERE clause that keeps one experiment's rows of t.
func filter(t table, experiment string) string {
	if experiment == "" {
		return ""
	}
	e := quote(experiment)
	if t.name == "files" {
		return " WHERE experiment = " + e + " OR file_id IN (SELECT file_id FROM requests WHERE experiment = " + e +
			" UNION SELECT file_id FROM events WHERE experiment = " + e + ")"
	}
	return " WHERE experiment = " + e
}

// copyTable writes t's rows into dir/t.name: partitioned by the hive
// columns, or one part. pattern names the parts ({uuid}, {i} as in
// DuckDB's FILENAME_PATTERN).
func copyTable(ctx context.Context, db *sql.DB, t table, dir, experiment, pattern string) error {
	return copyQuery(ctx, db, t, "SELECT "+exportCols(t)+" FROM "+t.name+filter(t, experiment), dir, pattern)
}

func copyQuery(ctx context.Context, db *sql.DB, t table, q, dir, pattern string) error {
	out := filepath.Join(dir, t.name)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var opts string
	if len(t.partition) > 0 {
		opts = ", PARTITION_BY (" + strings.Join(t.partition, ", ") + "), FILENAME_PATTERN " + quote(pattern) + ", OVERWRITE_OR_IGNORE"
	} else {
		out = filepath.Join(out, strings.NewReplacer("{uuid}", newID(), "{i}", "0").Replace(pattern)+".parquet")
	}
	_, err := db.ExecContext(ctx, "COPY ("+q+") TO "+quote(out)+" (FORMAT parquet"+opts+")")
	return err
}

// exportCols are t's columns as a part stores them.
func exportCols(t table) string {
	s := make([]string, len(t.cols))
	for i, c := range t.cols {
		s[i] = ident(c.name)
		if c.parquet != "" {
			s[i] += "::" + c.parquet + " AS " + ident(c.name)
		}
	}
	return strings.Join(s, ", ")
}

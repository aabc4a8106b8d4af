package dataset

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/rewind-dev/rewind/store"
)

// saveSeed keeps a copy of the seeded runs and experiments, and the
// seeded files' origins and row count, for checkSeed.
func (c *conversion) saveSeed(ctx context.Context) (seedState, error) {
	for _, q := range []string{
		`CREATE TABLE _seed_runs AS SELECT experiment, run, role, params::VARCHAR AS params FROM runs`,
		`CREATE TABLE _seed_experiments AS SELECT experiment, params::VARCHAR AS params FROM experiments`,
	} {
		if _, err := c.scratch.ExecContext(ctx, q); err != nil {
			return seedState{}, err
		}
	}
	return readSeedState(ctx, c.scratch.DB, c.snap.maxFile)
}

// checkSeed refuses a conversion that changed what the dataset holds: a
// part once written is not rewritten, so what a database's ingest would
// change in earlier files' rows (a moved time origin, another role, other
// parameters) cannot be done in a dataset.
func (c *conversion) checkSeed(ctx context.Context, before seedState) error {
	after, err := readSeedState(ctx, c.scratch.DB, c.snap.maxFile)
	if err != nil {
		return err
	}
	if after.origins != before.origins {
		return fmt.Errorf("the files' times start before those of files already in the dataset, of the same experiment: their t_ms would move (a database's ingest rewrites them; a dataset's parts are not rewritten): convert them into an experiment of their own, or in time order")
	}
	if after.rows != before.rows {
		return fmt.Errorf("the conversion would take rows of the dataset's files out: a dataset's parts are not rewritten")
	}
	changed, err := store.QueryStrings(store.WithContext(ctx, c.scratch.DB), `SELECT 'run ' || run || ' of experiment ' || experiment || ' has the role ' || s.role || ' in the dataset'
		FROM _seed_runs s JOIN runs r USING (experiment, run) WHERE s.role IS DISTINCT FROM r.role OR s.params IS DISTINCT FROM r.params::VARCHAR
		UNION ALL SELECT 'experiment ' || experiment || ' has stored ' || k || ' = ' || (s.params::JSON -> k)::VARCHAR || ' in the dataset'
		FROM (SELECT *, unnest(json_keys(params::JSON)) AS k FROM _seed_experiments WHERE params IS NOT NULL) s JOIN experiments e USING (experiment)
		WHERE (s.params::JSON -> k)::VARCHAR IS DISTINCT FROM (e.params -> k)::VARCHAR
		ORDER BY 1`)
	if err != nil || len(changed) == 0 {
		return err
	}
	return fmt.Errorf("%s: a dataset's parts are not rewritten (convert into an experiment of its own)", changed[0])
}

// shifts move a conversion's file ids and seqs past those of the files
// committed since its snapshot.
type shifts struct{ file, seq, eventSeq int64 }

// newFile is one converted file: its id in the scratch database and its
// part id.
type newFile struct {
	fileID int64
	id     string
}

func (c *conversion) newFiles(ctx context.Context) ([]newFile, error) {
	rows, err := c.scratch.QueryContext(ctx, `SELECT file_id, sha256, named_as FROM files WHERE file_id > ? ORDER BY file_id`, c.snap.maxFile)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []newFile
	for rows.Next() {
		var f newFile
		var sha, named string
		if err := rows.Scan(&f.fileID, &sha, &named); err != nil {
			return nil, err
		}
		f.id = partID(sha, named)
		out = append(out, f)
	}
	return out, rows.Err()
}

// write writes each converted file's parts into the work folder, then
// renames them into place, the files table's part last: the part that
// makes the others count (list skips a converted file's parts without it).
func (c *conversion) write(ctx context.Context, s shifts) error {
	files, err := c.newFiles(ctx)
	if err != nil {
		return err
	}
	for _, f := range files {
		out := filepath.Join(c.work, "out-"+f.id)
		for _, t := range tables {
			q := "SELECT " + shiftedCols(t, s) + " FROM " + t.name + " WHERE " + ownRows(t, f.fileID, c.snap.maxFile)
			var n int64
			if err := c.scratch.QueryRowContext(ctx, "SELECT count(*) FROM ("+q+")").Scan(&n); err != nil || n == 0 {
				if err != nil {
					return fmt.Errorf("write %s: %w", t.name, err)
				}
				continue
			}
			if err := copyQuery(ctx, c.scratch.DB, t, q, out, "part-"+f.id+"_{i}"); err != nil {
				return fmt.Errorf("write %s: %w", t.name, err)
			}
		}
		if err := placeParts(out, c.dir); err != nil {
			return err
		}
	}
	return syncDir(c.dir)
}

// ownRows is the condition that keeps file id's rows of t: its requests,
// events and files row, and the runs, experiments and run gaps that are
// new, each with the first converted file whose rows name it (run gaps only
// for runs wholly in that file).
func ownRows(t table, id, maxFile int64) string {
	first := func(key string) string {
		return fmt.Sprintf(`(%[1]s) IN (SELECT %[1]s FROM requests WHERE file_id > %[3]d GROUP BY ALL HAVING min(file_id) = %[2]d
			UNION SELECT %[1]s FROM events WHERE file_id > %[3]d GROUP BY ALL HAVING min(file_id) = %[2]d)`, key, id, maxFile)
	}
	switch t.name {
	case "requests", "events", "files":
		return fmt.Sprintf("file_id = %d", id)
	case "experiments":
		// new experiments, and those whose parameters the files added to
		// (readers merge an experiment's rows: read.go)
		return `(experiment NOT IN (SELECT experiment FROM _seed_experiments) OR experiment IN (SELECT experiment FROM _seed_experiments s
			JOIN experiments e USING (experiment) WHERE s.params IS DISTINCT FROM e.params::VARCHAR)) AND ` + first("experiment")
	case "runs":
		return "(experiment, run) NOT IN (SELECT experiment, run FROM _seed_runs) AND " + first("experiment, run")
	}
	return fmt.Sprintf(`(experiment, run) NOT IN (SELECT experiment, run FROM _seed_runs) AND (experiment, run) IN
		(SELECT experiment, run FROM requests GROUP BY ALL HAVING min(file_id) = %[1]d AND max(file_id) = %[1]d)`, id)
}

// shiftedCols are t's columns as a part stores them, file ids and seqs
// moved by s.
func shiftedCols(t table, s shifts) string {
	cols := strings.Split(exportCols(t), ", ")
	for i, c := range cols {
		switch {
		case c == `"file_id"`:
			cols[i] = fmt.Sprintf(`("file_id" + %d)::INTEGER AS "file_id"`, s.file)
		case c == `"seq"` && t.name == "requests":
			cols[i] = fmt.Sprintf(`"seq" + %d AS "seq"`, s.seq)
		case c == `"seq"` && t.name == "events":
			cols[i] = fmt.Sprintf(`"seq" + %d AS "seq"`, s.eventSeq)
		}
	}
	return strings.Join(cols, ", ")
}

// placeParts moves every part under out to the same place under dir,
// each fsynced first.
func placeParts(out, dir string) error {
	var last []string // the files table's parts: renamed after the others
	err := filepath.Walk(out, func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out, path)
		if strings.HasPrefix(rel, "files"+string(filepath.Separator)) {
			last = append(last, rel)
			return nil
		}
		return place(out, dir, rel)
	})
	if err != nil {
		return err
	}
	for _, rel := range last {
		if err := place(out, dir, rel); err != nil {
			return err
		}
	}
	return nil
}

func place(out, dir, rel string) error {
	if err := fsync(filepath.Join(out, rel)); err != nil {
		return err
	}
	target := filepath.Join(dir, strings.TrimSuffix(rel, "_0.parquet"))
	if target != filepath.Join(dir, rel) {
		target += ".parquet" // the one part of a partition: part-ID.parquet
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	if err := os.Rename(filepath.Join(out, rel), target); err != nil {
		return err
	}
	return syncDir(filepath.Dir(target))
}

func fsync(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// convertedPart matches the name of a converted file's part and gives its
// id.
var convertedPart = regexp.MustCompile(`^part-([0-9a-f]{64}(?:-[0-9a-f]{8})?)(?:_[0-9]+)?\.parquet$`)

// removeOrphans deletes parts of converted files whose files part is
// missing: what a conversion killed while renaming left (it held the lock,
// which the next conversion takes over).
func removeOrphans(p *parts) error {
	for _, f := range p.orphans {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

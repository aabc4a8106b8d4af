package ingest

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/rewind-dev/rewind/ingest/record"
	"github.com/rewind-dev/rewind/internal/param"
)

// No silent merges. A name rewind makes up (an experiment from a file's
// name, a run from a file's name under --experiment, "stdin-N" for a pipe)
// never joins rows another file loaded: it takes the next free name,
// NAME-2, NAME-3…, and the ingest warns. A name the rows give themselves
// that would join another file's run is refused. --append joins on
// purpose, as it adds a changed file to its earlier content. Files at one
// path are one file's versions: --replace/--append/refusal (samePath) rule
// them, not this.

// inputName is what an argument is called in results, messages and the
// files table: its path, or for standard input --name, else stdin-N,
// numbered per database.
func (l *loader) inputName(ctx context.Context, arg string) (string, error) {
	if arg != Stdin {
		return arg, nil
	}
	if l.opts.Name != "" {
		return l.opts.Name, nil
	}
	var n int64
	err := l.conn.QueryRowContext(ctx, `SELECT coalesce(max(TRY_CAST(regexp_extract(path, '^stdin-([0-9]+)$', 1) AS BIGINT)), 0) + 1
		FROM files WHERE abs_path IS NULL`).Scan(&n)
	return fmt.Sprintf("stdin-%d", n), err
}

// experimentFor is the experiment of the file's rows that name none:
// --experiment, else the file's stem, made distinct from another file's.
func (l *loader) experimentFor(ctx context.Context, in *input) (string, error) {
	if l.opts.Experiment != "" {
		return l.opts.Experiment, nil
	}
	return l.freeName(ctx, record.Stem(in.DetectName()), func(name string) (bool, error) {
		// The experiments table (a key lookup) holds every experiment with
		// rows: only a name in it needs the scan of the rows.
		if known, err := l.queryBool(ctx, `SELECT EXISTS (SELECT 1 FROM experiments WHERE experiment = $1)`, name); err != nil || !known {
			return false, err
		}
		return l.queryBool(ctx, `SELECT EXISTS (SELECT 1 FROM files f WHERE `+otherFile+` AND f.file_id IN
			(SELECT file_id FROM requests WHERE experiment = $name UNION ALL SELECT file_id FROM events WHERE experiment = $name))`,
			sql.Named("abs", absPath(in.path)), sql.Named("name", name))
	})
}

// fileRunFor is the run of the file's rows that name none under
// --experiment: the file's stem, made distinct from another file's run.
func (l *loader) fileRunFor(ctx context.Context, in *input, experiment string) (string, error) {
	run := record.RunName(in.DetectName())
	if !l.fileRuns || l.opts.Run != "" {
		return run, nil
	}
	return l.freeName(ctx, run, func(name string) (bool, error) {
		if known, err := l.queryBool(ctx, `SELECT EXISTS (SELECT 1 FROM runs WHERE experiment = $1 AND run = $2)`, experiment, name); err != nil || !known {
			return false, err
		}
		return l.queryBool(ctx, `SELECT EXISTS (SELECT 1 FROM files f WHERE `+otherFile+` AND f.file_id IN
			(SELECT file_id FROM requests WHERE experiment = $exp AND run = $name))`,
			sql.Named("abs", absPath(in.path)), sql.Named("exp", experiment), sql.Named("name", name))
	})
}

// otherFile is the SQL condition that file f is not an earlier version of
// the path $abs (NULL for standard input, which has none).
const otherFile = `($abs IS NULL OR f.abs_path IS DISTINCT FROM $abs)`

// freeName is name, or with --append always name, else the first of
// name-2, name-3… that taken says is free.
func (l *loader) freeName(ctx context.Context, name string, taken func(string) (bool, error)) (string, error) {
	if l.opts.Append {
		return name, nil
	}
	for i := 1; ; i++ {
		try := name
		if i > 1 {
			try = fmt.Sprintf("%s-%d", name, i)
		}
		t, err := taken(try)
		if err != nil || !t {
			return try, err
		}
		if err := ctx.Err(); err != nil {
			return "", err
		}
	}
}

// renamedWarnings says which made-up names took a suffix, where the file's
// rows use them.
func (l *loader) renamedWarnings(ctx context.Context, fileID int64, in *input, experiment, fileRun string, res *Result) error {
	if base := record.Stem(in.DetectName()); experiment != base && l.opts.Experiment == "" {
		used, err := l.queryBool(ctx, `SELECT EXISTS (SELECT 1 FROM requests WHERE file_id = $1 AND experiment = $2
			UNION ALL SELECT 1 FROM events WHERE file_id = $1 AND experiment = $2)`, fileID, experiment)
		if err != nil {
			return err
		}
		if used {
			res.Warnings = append(res.Warnings, param.Textf("experiment %s holds another file's rows: loaded as experiment %s ({append} joins %s instead)", base, experiment, base))
		}
	}
	if base := record.RunName(in.DetectName()); fileRun != base {
		used, err := l.queryBool(ctx, `SELECT EXISTS (SELECT 1 FROM requests WHERE file_id = $1 AND run = $2)`, fileID, fileRun)
		if err != nil {
			return err
		}
		if used {
			res.Warnings = append(res.Warnings, param.Textf("run %s of experiment %s holds another file's rows: loaded as run %s ({append} joins %s instead)", base, experiment, fileRun, base))
		}
	}
	return nil
}

// joinedRun refuses a file whose rows, by the run and experiment they name
// themselves, went into a run another file loaded, unless --append says to
// join it, --run named it, or --replace puts the file back where its
// earlier version was.
func (l *loader) joinedRun(ctx context.Context, fileID int64, in *input) error {
	if l.opts.Append {
		return nil
	}
	// The runs table holds the runs of the files before this one (this
	// file's are stored after this check): only those need the scan.
	rows, err := l.conn.QueryContext(ctx, `WITH mine AS MATERIALIZED (SELECT DISTINCT experiment, run FROM `+runsSummary+` WHERE run <> $run
			INTERSECT SELECT experiment, run FROM runs)
		SELECT q.experiment, q.run, any_value(f.path), count(*) FROM requests q JOIN mine USING (experiment, run) JOIN files f USING (file_id)
		WHERE q.file_id <> $file AND `+otherFile+`
		GROUP BY ALL ORDER BY 1, 2`,
		sql.Named("file", fileID), sql.Named("run", l.opts.Run), sql.Named("abs", absPath(in.path)))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k runKey
		var other string
		var n int64
		if err := rows.Scan(&k.experiment, &k.run, &other, &n); err != nil {
			return err
		}
		if !l.rejoin[k] {
			return hinted(param.Errorf("append", "its rows name run %s of experiment %s, which holds %d rows of %s: rows of two files join one run only when asked ({append})",
				k.run, k.experiment, n, other), "append", "")
		}
	}
	return rows.Err()
}

// sharedRole refuses a run that took the control or experiment role of an
// experiment where another file's run holds it already: the analyses
// would pool the two without a word. A role given with --role is asked
// for: the pooling is kept and the ingest warns.
func (l *loader) sharedRole(ctx context.Context, res *Result) error {
	rows, err := l.conn.QueryContext(ctx, `WITH mine AS (SELECT DISTINCT experiment, run, role FROM `+runsSummary+`
			WHERE role IN ('control', 'experiment'))
		SELECT m.experiment, m.role, m.run, string_agg(DISTINCT o.run, ', ' ORDER BY o.run) FROM mine m
		JOIN runs o ON o.experiment = m.experiment AND o.role = m.role AND o.run <> m.run
		WHERE NOT EXISTS (SELECT 1 FROM mine x WHERE x.experiment = o.experiment AND x.run = o.run)
		GROUP BY ALL ORDER BY 1, 2, 3`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var exp, role, run, others string
		if err := rows.Scan(&exp, &role, &run, &others); err != nil {
			return err
		}
		if l.opts.Roles[run] == role {
			res.Warnings = append(res.Warnings, param.Textf("experiment %s: runs %s and %s have the role %s: the analyses pool them", exp, others, run, role))
			continue
		}
		return hinted(param.Errorf("role", "run %s would be a second %s run of experiment %s beside %s (another file's): the analyses would pool them; "+
			"{role} %s=%s pools them on purpose, {experiment} NAME keeps the file apart",
			run, role, exp, others, run, role), "role", run+"="+role)
	}
	return rows.Err()
}

// checkName refuses --name without standard input to name.
func checkName(opts Options, srcs []source) error {
	if opts.Name == "" {
		return nil
	}
	for _, s := range srcs {
		if s.name == Stdin {
			return nil
		}
	}
	return param.Errorf("name", "{name} names standard input: give \"-\" among the files")
}

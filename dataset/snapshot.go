package dataset

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strings"
)

// snapshot is what a conversion knows of the dataset at one moment: its
// parts and the files they hold, with the largest file id and seqs.
type snapshot struct {
	parts               *parts
	files               map[string]bool // fileKey of every file
	maxFile             int64
	maxSeq, maxEventSeq int64 // -1 when none
}

// fileKey names a file of the files table: its content hash and the
// experiment it was named into ("" for none).
func fileKey(sha, namedAs string) string { return sha + "\x00" + namedAs }

// partID is a converted file's part id: its content hash, and when it was
// converted under an experiment name, 8 hex digits of that name's hash (the
// same content converted under two names is two files).
func partID(sha, namedAs string) string {
	if namedAs == "" {
		return sha
	}
	h := sha256.Sum256([]byte(namedAs))
	return sha + "-" + hex.EncodeToString(h[:4])
}

// take reads the dataset's state through db (a database that may read its
// folder).
func take(ctx context.Context, db *sql.DB, dir string) (*snapshot, error) {
	p, err := list(dir)
	if err != nil {
		return nil, err
	}
	if err := p.check(ctx, db); err != nil {
		return nil, err
	}
	s := &snapshot{parts: p, files: map[string]bool{}, maxFile: 0}
	rows, err := db.QueryContext(ctx, "SELECT sha256, named_as, file_id FROM ("+p.selectSQL(tableNamed("files"))+")")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var sha, named string
		var id int64
		if err := rows.Scan(&sha, &named, &id); err != nil {
			return nil, err
		}
		s.files[fileKey(sha, named)] = true
		s.maxFile = max(s.maxFile, id)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	q := "SELECT coalesce((SELECT max(seq) FROM (" + p.selectSQL(tableNamed("requests")) + ")), -1), coalesce((SELECT max(seq) FROM (" + p.selectSQL(tableNamed("events")) + ")), -1)"
	if err := db.QueryRowContext(ctx, q).Scan(&s.maxSeq, &s.maxEventSeq); err != nil {
		return nil, fmt.Errorf("%s: %s", dir, firstLine(err))
	}
	return s, nil
}

func tableNamed(name string) table {
	for _, t := range tables {
		if t.name == name {
			return t
		}
	}
	panic("no table " + name)
}

// newExperiments are the experiments of the files now holds that s did not.
func (s *snapshot) newExperiments(ctx context.Context, db *sql.DB, now *snapshot) (map[string]bool, error) {
	out := map[string]bool{}
	rows, err := db.QueryContext(ctx, "SELECT sha256, named_as, experiment FROM ("+now.parts.selectSQL(tableNamed("files"))+")")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var sha, named, exps string
		if err := rows.Scan(&sha, &named, &exps); err != nil {
			return nil, err
		}
		if s.files[fileKey(sha, named)] {
			continue
		}
		for _, e := range strings.Split(exps, ", ") {
			out[e] = true
		}
	}
	return out, rows.Err()
}

package dataset

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// Summary is the manifest: what a dataset holds, part by part.
type Summary struct {
	Format  string `json:"format"` // "rewind dataset"
	Version int    `json:"version"`
	// Experiment is the one experiment exported, "" for all.
	Experiment string                     `json:"experiment,omitempty"`
	Tables     map[string]*TableSummary   `json:"tables"`
	Params     map[string]json.RawMessage `json:"params"` // per experiment, the stored parameters
}

// TableSummary is one table's rows and parts.
type TableSummary struct {
	Rows  int64  `json:"rows"`
	Parts []Part `json:"parts"`
}

// Part is one part file: its path below the dataset, rows, size and SHA-256.
type Part struct {
	Path   string `json:"path"`
	Rows   int64  `json:"rows"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// summarize reads the parts written into dir (rows from their footers),
// hashes and fsyncs each, and reads the stored parameters.
func summarize(ctx context.Context, db *sql.DB, dir, experiment string) (*Summary, error) {
	p, err := list(dir)
	if err != nil {
		return nil, err
	}
	s := &Summary{Format: "rewind dataset", Version: Version, Experiment: experiment,
		Tables: map[string]*TableSummary{}, Params: map[string]json.RawMessage{}}
	for _, t := range tables {
		ts := &TableSummary{Parts: []Part{}}
		for _, f := range p.files[t.name] {
			part, err := describePart(ctx, db, dir, f)
			if err != nil {
				return nil, err
			}
			ts.Rows += part.Rows
			ts.Parts = append(ts.Parts, part)
		}
		s.Tables[t.name] = ts
	}
	rows, err := db.QueryContext(ctx, `SELECT experiment, coalesce(params, '{}')::VARCHAR FROM experiments`+filter(tables[1], experiment)+` ORDER BY 1`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var e, params string
		if err := rows.Scan(&e, &params); err != nil {
			return nil, err
		}
		s.Params[e] = json.RawMessage(params)
	}
	return s, rows.Err()
}

func describePart(ctx context.Context, db *sql.DB, dir, f string) (Part, error) {
	rel, _ := filepath.Rel(dir, f)
	part := Part{Path: filepath.ToSlash(rel)}
	if err := db.QueryRowContext(ctx, "SELECT coalesce(sum(num_rows), 0) FROM parquet_file_metadata("+quote(f)+")").Scan(&part.Rows); err != nil {
		return part, fmt.Errorf("%s: %w", rel, err)
	}
	h, n, err := hashSync(f)
	part.SHA256, part.Bytes = h, n
	return part, err
}

// hashSync is f's SHA-256 and size, after an fsync: a part renamed into
// place is on the disk.
func hashSync(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	if err := f.Sync(); err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// writeManifest writes the summary as dir's manifest, parts in path order.
func writeManifest(dir string, s *Summary) error {
	for _, t := range s.Tables {
		sort.Slice(t.Parts, func(i, j int) bool { return t.Parts[i].Path < t.Parts[j].Path })
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return writeFileSync(filepath.Join(dir, Manifest), append(b, '\n'))
}

// writeFileSync writes a file through a temporary name, fsynced, then
// renamed into place.
func writeFileSync(path string, b []byte) error {
	tmp := fmt.Sprintf("%s.tmp-%d", path, os.Getpid())
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// syncDir fsyncs a folder, so that renames in it are durable.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// newID is a random part id.
func newID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// PartCount is how many part files the dataset has.
func (s *Summary) PartCount() int {
	n := 0
	for _, t := range s.Tables {
		n += len(t.Parts)
	}
	return n
}

package dataset

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/rewind-dev/rewind/ingest"
	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/store"
)

// ConvertOptions steer a conversion.
type ConvertOptions struct {
	Ingest ingest.Options
	// Wait is how long to wait for another conversion's commit (default
	// DefaultWait).
	Wait time.Duration
	// Store opens the scratch database (memory limit, spill directory).
	Store store.Options
}

// DefaultWait is how long a conversion waits for another's commit.
const DefaultWait = 10 * time.Minute

// maxTries bounds the conversions done again because another process
// committed files of the same experiments meanwhile.
const maxTries = 3

// Convert ingests files into the dataset in dir (created when missing)
// with ingest's formats, flags and rules, as it would into a database that
// held the dataset: each file becomes its own parts, named by its content
// hash. The files are decoded into a scratch database without holding any
// lock, so several processes convert at once; their commits take turns
// (lock.go). A conversion whose experiments another process committed
// files into meanwhile is done again, holding the lock. On any error no
// part is written.
func Convert(ctx context.Context, dir string, paths []string, o ConvertOptions) ([]ingest.Result, error) {
	if o.Ingest.Replace {
		return nil, param.Errorf("replace", "{replace} with a dataset: its parts are not rewritten; convert the new content into a new dataset, or use a database")
	}
	if o.Wait == 0 {
		o.Wait = DefaultWait
	}
	if err := ensureDataset(dir); err != nil {
		return nil, err
	}
	abs, _ := filepath.Abs(dir)
	work, err := os.MkdirTemp(abs, workPrefix()+"*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	c := &conversion{dir: abs, work: work, paths: paths, o: o}
	defer c.close()
	if err := c.spoolStdin(); err != nil {
		return nil, err
	}
	var unlock func()
	defer func() {
		if unlock != nil {
			unlock()
		}
	}()
	for try := 1; ; try++ {
		results, err := c.run(ctx, try)
		if err != nil {
			return nil, err
		}
		if unlock == nil {
			if unlock, err = lock(ctx, abs, o.Wait); err != nil {
				return nil, err
			}
		}
		done, err := c.commit(ctx)
		if err != nil || done {
			return results, err
		}
		if try == maxTries {
			return nil, errors.New("another conversion keeps committing files of the same experiments: try again")
		}
		// Done again holding the lock: no one commits meanwhile.
	}
}

// ensureDataset creates dir and its manifest when missing. A converted
// dataset's manifest holds the version; the files table holds each file's
// hash and rows.
func ensureDataset(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, Manifest), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	_, werr := fmt.Fprintf(f, "{\n  \"format\": \"rewind dataset\",\n  \"version\": %d\n}\n", Version)
	return errors.Join(werr, f.Close())
}

// conversion is one Convert: its scratch database holds the dataset's
// stand-ins (seed.go) and the converted files' rows.
type conversion struct {
	dir, work string
	paths     []string
	o         ConvertOptions
	scratch   *store.DB
	snap      *snapshot
	mine      map[string]bool // the experiments the converted files' rows went to
	full      bool            // seed a stand-in per request, not per (experiment, run, file)
	stdin     string          // standard input, kept in the work folder: a conversion may be done again
}

// spoolStdin copies standard input, when a path reads it, into the work
// folder.
func (c *conversion) spoolStdin() error {
	if !slices.Contains(c.paths, ingest.Stdin) || c.o.Ingest.Stdin == nil {
		return nil
	}
	c.stdin = filepath.Join(c.work, "stdin")
	f, err := os.Create(c.stdin)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, c.o.Ingest.Stdin)
	return errors.Join(err, f.Close())
}

func (c *conversion) close() {
	if c.scratch != nil {
		c.scratch.Close()
		c.scratch = nil
	}
}

// run seeds a new scratch database from the dataset as it is now and
// ingests the files into it.
func (c *conversion) run(ctx context.Context, try int) ([]ingest.Result, error) {
	c.close()
	// In memory: what a database file would add is a checkpoint to disk of
	// rows that go to Parquet anyway. It spills into the work folder.
	so := c.o.Store
	so.Mode = store.Scratch
	if so.TempDir == "" {
		so.TempDir = filepath.Join(c.work, fmt.Sprintf("spill-%d", try))
	}
	db, err := store.Open(ctx, "", so)
	if err != nil {
		return nil, err
	}
	c.scratch = db
	if c.snap, err = take(ctx, db.DB, c.dir); err != nil {
		return nil, err
	}
	if err := seed(ctx, db.DB, c.snap.parts, c.full); err != nil {
		return nil, err
	}
	before, err := c.saveSeed(ctx)
	if err != nil {
		return nil, err
	}
	if c.stdin != "" {
		f, err := os.Open(c.stdin)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		c.o.Ingest.Stdin = f
	}
	results, err := ingest.Files(ctx, db, c.o.Ingest, c.paths)
	if !c.full {
		shared, serr := sharedRuns(ctx, db.DB, c.snap.maxFile)
		if err != nil || serr != nil || shared {
			// A refusal may count a run's rows, and rows that join a run
			// are positioned after its rows: both need the full seed.
			c.full = true
			return c.run(ctx, try)
		}
	}
	if err != nil {
		return nil, err
	}
	if err := c.checkSeed(ctx, before); err != nil {
		return nil, err
	}
	c.mine, err = c.experiments(ctx)
	return results, err
}

// experiments are the experiments of the converted files.
func (c *conversion) experiments(ctx context.Context) (map[string]bool, error) {
	rows, err := c.scratch.QueryContext(ctx, `SELECT DISTINCT experiment FROM requests WHERE file_id > $1
		UNION SELECT DISTINCT experiment FROM events WHERE file_id > $1`, c.snap.maxFile)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var e string
		if err := rows.Scan(&e); err != nil {
			return nil, err
		}
		out[e] = true
	}
	return out, rows.Err()
}

// commit writes the parts, holding the lock: false when files of the same
// experiments were committed since the snapshot (the conversion must be
// done again).
func (c *conversion) commit(ctx context.Context) (bool, error) {
	now, err := take(ctx, c.scratch.DB, c.dir)
	if err != nil {
		return false, err
	}
	added, err := c.snap.newExperiments(ctx, c.scratch.DB, now)
	if err != nil {
		return false, err
	}
	for e := range added {
		if c.mine[e] {
			return false, nil
		}
	}
	if err := removeOrphans(now.parts); err != nil {
		return false, err
	}
	removeStaleWork(c.dir)
	shift := shifts{file: now.maxFile - c.snap.maxFile, seq: now.maxSeq - c.snap.maxSeq, eventSeq: now.maxEventSeq - c.snap.maxEventSeq}
	return true, c.write(ctx, shift)
}

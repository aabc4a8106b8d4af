package analyze

import (
	"context"
	"errors"
	"fmt"

	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/store"
)

// Remote runs analyses on an engine over a dataset (docs/scale.md): the
// engine does the per-request work, one reduce step at a time, and returns
// aggregates; they are loaded into an in-memory DuckDB, which holds the
// dataset's small tables (experiments, runs) as well, and the analysis is
// finished there.
type Remote struct {
	ctx context.Context
	eng engine.Engine
	db  *store.DB
}

// OpenRemote registers the dataset with eng and copies its experiments and
// runs into a new in-memory database.
func OpenRemote(ctx context.Context, eng engine.Engine, dataset string) (*Remote, error) {
	if err := eng.Register(ctx, dataset); err != nil {
		return nil, err
	}
	db, err := store.Open(ctx, "", store.Options{Mode: store.Memory})
	if err != nil {
		return nil, err
	}
	r := &Remote{ctx: ctx, eng: eng, db: db}
	small := []struct{ step, cols, insert string }{
		{"SELECT experiment, CAST(params AS STRING) AS params FROM experiments",
			"experiment VARCHAR, params VARCHAR",
			"INSERT INTO experiments SELECT experiment, params::JSON FROM _remote_experiments"},
		{"SELECT experiment, run, role, CAST(params AS STRING) AS params FROM runs",
			"experiment VARCHAR, run VARCHAR, role VARCHAR, params VARCHAR",
			"INSERT INTO runs SELECT experiment, run, role, params::JSON FROM _remote_runs"},
	}
	for i, s := range small {
		name := []string{"_remote_experiments", "_remote_runs"}[i]
		if err := r.reduce(name, s.cols, s.step); err != nil {
			db.Close()
			return nil, err
		}
		if _, err := db.ExecContext(ctx, s.insert); err != nil {
			db.Close()
			return nil, fmt.Errorf("dataset %s: %w", dataset, err)
		}
	}
	return r, nil
}

// Close closes the in-memory database and the engine's session.
func (r *Remote) Close() error {
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
	t, err := r.eng.Reduce(r.ctx, step)
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

func (e *NotOnEngineError) Error() string {
	return fmt.Sprintf("%s does not run on %s yet: %s; run it on a database or a dataset on this machine", e.Analysis, e.Engine, e.Missing)
}

// NotOnEngine is the refusal of analysis (or an option of it) on r's engine.
func (r *Remote) NotOnEngine(analysis, missing string) error {
	return &NotOnEngineError{Engine: r.eng.Name(), Analysis: analysis, Missing: missing}
}

func asTooLarge(err error, tl **engine.TooLargeError) bool { return errors.As(err, tl) }

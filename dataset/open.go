package dataset

import (
	"context"

	"github.com/rewind-dev/rewind/store"
)

// Open reads the dataset in dir in place: an in-memory database whose
// tables are views over the parts, with the SQL library, sandboxed so
// that queries read the dataset's folder and nothing else. Every part is
// checked first (check): a bad one is refused, naming it and the column.
func Open(ctx context.Context, dir string, o store.Options) (*store.DB, error) {
	p, err := scan(ctx, dir)
	if err != nil {
		return nil, err
	}
	o.Mode, o.Views, o.Allowed = store.Memory, p.views(), []string{p.dir}
	if o.TempDir == "" {
		o.TempDir = store.DefaultTempDir(p.dir + "/_spill")
	}
	return store.Open(ctx, "", o)
}

// scan lists dir's parts and checks them, in a database of its own that
// may read dir alone.
func scan(ctx context.Context, dir string) (*parts, error) {
	p, err := list(dir)
	if err != nil {
		return nil, err
	}
	db, err := store.Open(ctx, "", store.Options{Mode: store.Memory, Views: []string{}, Allowed: []string{p.dir}})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if err := p.check(ctx, db.DB); err != nil {
		return nil, err
	}
	return p, nil
}

// Check lists dir's parts and reads each one's schema, as Open does, for a
// reader that reads them elsewhere (a Spark cluster): a bad part is named
// here, where the engine's own error may not reach the part.
func Check(ctx context.Context, dir string) error {
	_, err := scan(ctx, dir)
	return err
}

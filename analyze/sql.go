package analyze

import (
	isandbox "github.com/rewind-dev/rewind/internal/sandbox"
	"github.com/rewind-dev/rewind/store"
)

// SQL runs an ad-hoc query and returns its rows. On a sandboxed (read-only)
// database a query that calls a function outside the sandbox's allow-list is
// refused before it runs: some (enable_logging) act outside the database, and
// one the sandbox then stops aborts the process instead of failing.
func SQL(db store.Querier, q string) (*Result, error) {
	if err := isandbox.Check(db, q); err != nil {
		return nil, err
	}
	return Query(db, "sql", nil, q)
}

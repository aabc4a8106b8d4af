package store

import (
	"context"
	"database/sql/driver"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// LockedError means another process holds the database file's lock. DuckDB
// lets one process write a file, or any number read it, never both: a writer
// (rewind ingest, sql --write, report FILE...) locks out every other
// process, and a reader locks out writers.
type LockedError struct {
	Path   string
	Holder string // the program DuckDB names, e.g. /usr/local/bin/rewind
	PID    int    // 0 when DuckDB did not say
	Waited time.Duration
}

func (e *LockedError) Error() string {
	who := "another process"
	if e.Holder != "" && e.PID > 0 {
		who = fmt.Sprintf("another process (%s, PID %d)", e.Holder, e.PID)
	}
	msg := fmt.Sprintf("database %s is in use: %s has it open, and DuckDB lets one process write a file or several read it, never both", e.Path, who)
	if e.Waited > 0 {
		msg += fmt.Sprintf("; still locked after waiting %s", e.Waited)
	}
	return msg
}

// DuckDB says: Could not set lock on file "/x/rewind.duckdb": Conflicting
// lock is held in /usr/bin/rewind (PID 4242) by user ann. ...
var lockRE = regexp.MustCompile(`Conflicting lock is held in (.+?) \(PID (\d+)\)`)

// lockError turns DuckDB's lock refusal into a LockedError; other errors
// come back nil.
func lockError(path string, err error) *LockedError {
	msg := err.Error()
	if !strings.Contains(msg, "Could not set lock on file") {
		return nil
	}
	e := &LockedError{Path: path}
	if m := lockRE.FindStringSubmatch(msg); m != nil {
		e.Holder = m[1]
		e.PID, _ = strconv.Atoi(m[2])
	}
	return e
}

// driverPrefix is what the Go driver puts before DuckDB's own reason when a
// file does not open: an internal of the driver, not the user's business.
const driverPrefix = "database/sql/driver: could not connect to database: "

// lockPoll is how often a waiting open retries.
const lockPoll = 200 * time.Millisecond

// connect opens the DuckDB connector, retrying for up to wait while another
// process holds the file's lock.
func connect(ctx context.Context, path, dsn string, wait time.Duration, init func(driver.ExecerContext) error) (*duckdb.Connector, error) {
	dsn, err := withThreads(dsn)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		c, err := duckdb.NewConnector(dsn, init)
		if err == nil {
			return c, nil
		}
		le := lockError(path, err)
		if le == nil {
			return nil, fmt.Errorf("open %s: %s", path, strings.TrimPrefix(err.Error(), driverPrefix))
		}
		left := time.Until(deadline)
		if left <= 0 {
			le.Waited = wait
			return nil, le
		}
		if err := sleepCtx(ctx, min(lockPoll, left)); err != nil {
			return nil, le
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/internal/holddb"
	"github.com/rewind-dev/rewind/store"
)

// TestLockedDatabase: while another process writes the database, a second
// command says plainly that the file is in use and by whom (the program and
// PID DuckDB names), with a Try line that adds --wait; with --wait it
// succeeds once the first process closes the file.
func TestLockedDatabase(t *testing.T) {
	db := chaosDB(t, t.TempDir())
	holder, release := holddb.Start(t, db)

	code, _, stderr := rewindIn("sql", "--db", db, "SELECT count(*) FROM requests")
	want := fmt.Sprintf("Error: database %s is in use: another process (", db)
	if code != exitError || !strings.HasPrefix(stderr, want) || !strings.Contains(stderr, fmt.Sprintf(", PID %d) has it open", holder)) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and %q naming PID %d", code, stderr, want, holder)
	}
	if !strings.Contains(stderr, "\nTry: rewind sql --db "+db+" --wait 1m 'SELECT count(*) FROM requests'\n") {
		t.Errorf("no Try line with --wait:\n%s", stderr)
	}
	if strings.Contains(stderr, "rewind ingest") {
		t.Errorf("the error still suggests ingest:\n%s", stderr)
	}

	code, _, stderr = rewindIn("analyze", "falsification", "--db", db, "--wait", "300ms")
	if code != exitError || !strings.Contains(stderr, "still locked after waiting 300ms") {
		t.Errorf("--wait 300ms while held: exit %d, stderr:\n%s", code, stderr)
	}

	done := make(chan string, 1)
	go func() {
		code, stdout, stderr := rewindIn("sql", "--db", db, "--wait", "1m", "SELECT count(*) AS n FROM requests")
		done <- fmt.Sprintf("%d %s%s", code, stdout, stderr)
	}()
	time.Sleep(300 * time.Millisecond) // let it find the lock; the result does not depend on this
	release()
	if got := <-done; got != "0   n\n800\n" {
		t.Errorf("--wait 1m after the holder closed: got %q", got)
	}
}

// TestHoldDBHelper is the second process of holddb.Start: it holds the
// database open for writing until its stdin closes.
func TestHoldDBHelper(t *testing.T) {
	holddb.Serve(t, func(path string) (io.Closer, error) {
		return store.Open(context.Background(), path, store.Options{Mode: store.Write})
	})
}

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/analyze"
)

// TestLockedDatabase: while another process writes the database, a second
// command says plainly that the file is in use and by whom (the program and
// PID DuckDB names), with a Try line that adds --wait; with --wait it
// succeeds once the first process closes the file.
func TestLockedDatabase(t *testing.T) {
	db := chaosDB(t, t.TempDir())
	holder, release := holdDB(t, db)

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

// TestHoldDBHelper is holdDB's second process: it opens the database for
// writing, says so, and holds it until its stdin closes.
func TestHoldDBHelper(t *testing.T) {
	path := os.Getenv("REWIND_HOLD_DB")
	if path == "" {
		t.Skip("run by holdDB")
	}
	db, err := analyze.Open(context.Background(), path, true)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("holding")
	io.Copy(io.Discard, os.Stdin)
	db.Close()
}

// holdDB starts this test binary again as a process that holds path open
// for writing; it returns the process's PID and the function that ends it.
func holdDB(t *testing.T, path string) (int, func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHoldDBHelper$")
	cmd.Env = append(os.Environ(), "REWIND_HOLD_DB="+path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release := func() { once.Do(func() { stdin.Close(); cmd.Wait() }) }
	t.Cleanup(release)
	sc := bufio.NewScanner(stdout)
	var seen []string
	for sc.Scan() {
		if sc.Text() == "holding" {
			go io.Copy(io.Discard, stdout)
			return cmd.Process.Pid, release
		}
		seen = append(seen, sc.Text())
	}
	release()
	t.Fatalf("the helper process did not open the database:\n%s", strings.Join(seen, "\n"))
	return 0, nil
}

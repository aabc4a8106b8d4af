// Package holddb lets a test hold a database file open in a second process,
// the only way to meet DuckDB's file lock: within one process duckdb-go
// shares one instance per file, so two opens never conflict. The test
// binary runs itself again as the holder; tests only import it.
package holddb

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

const envPath = "REWIND_HOLD_DB"

// Start runs this test binary again as a process that holds path open
// (through the package's TestHoldDBHelper, which calls Serve), and returns
// its PID and the function that ends it (also run at cleanup).
func Start(t testing.TB, path string) (int, func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHoldDBHelper$")
	cmd.Env = append(os.Environ(), envPath+"="+path)
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

// Serve is the body of a package's TestHoldDBHelper: in the process Start
// runs, it opens the database with open and holds it until its stdin
// closes; in an ordinary test run it skips.
func Serve(t *testing.T, open func(path string) (io.Closer, error)) {
	path := os.Getenv(envPath)
	if path == "" {
		t.Skip("run by holddb.Start")
	}
	db, err := open(path)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("holding")
	io.Copy(io.Discard, os.Stdin)
	db.Close()
}

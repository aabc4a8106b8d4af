// Command rewind loads request logs of resilience experiments into DuckDB and
// recomputes their verdicts offline. See README.md for the manual.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() { os.Exit(mainCode(os.Args[1:])) }

// mainCode is main without the exit, so a test can run the real process
// (its signals included) as a child.
func mainCode(args []string) int {
	// A write past the file size limit (ulimit -f) then fails with EFBIG,
	// which the ingest reports and rolls back, instead of SIGXFSZ killing
	// the process without a word.
	signal.Ignore(syscall.SIGXFSZ)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return run(ctx, args, os.Stdin, os.Stdout, os.Stderr)
}

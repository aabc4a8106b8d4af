package store

import (
	"fmt"
	"os"
	"strconv"
)

// ThreadsEnv names the environment variable that sets DuckDB's worker
// threads (SET threads = N) for every open in the process, ingest and
// analyses alike; unset, DuckDB uses one per core. It is a measuring knob,
// not an analysis parameter, so it is no flag: bench/icount.sh counts each
// command's instructions with REWIND_THREADS=1, where one thread makes the
// counts repeat.
const ThreadsEnv = "REWIND_THREADS"

// threadsOption is the DSN option ThreadsEnv asks for, "" when it is unset
// or empty. It goes in the DSN, not in a SET on the first connection: the
// instance then starts with that many threads, and no statement runs with
// more (a SET leaves the first statements to the default's worker, and the
// connection polling for it counts a varying number of instructions).
func threadsOption() (string, error) {
	v := os.Getenv(ThreadsEnv)
	if v == "" {
		return "", nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 1024 {
		return "", fmt.Errorf("%s=%q: want a number of threads from 1 to 1024", ThreadsEnv, v)
	}
	return "threads=" + strconv.Itoa(n), nil
}

package store

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ThreadsEnv names the environment variable that sets DuckDB's worker
// threads (SET threads = N) for every open in the process, ingest and
// analyses alike; unset, DuckDB uses one per core. It is a measuring knob,
// not an analysis parameter, so it is no flag: bench/icount.sh counts each
// command's instructions with REWIND_THREADS=1, where one thread makes the
// counts repeat.
const ThreadsEnv = "REWIND_THREADS"

// withThreads adds ThreadsEnv's threads to a file open's DSN, so the
// instance starts with that many and no statement runs with more: set by a
// SET on the first connection, the first statements still had the
// default's worker, and the connection polling for it counted a varying
// number of instructions (1 % of start-up's).
func withThreads(dsn string) (string, error) {
	opt, err := threadsOption()
	if err != nil || opt == "" {
		return dsn, err
	}
	if strings.Contains(dsn, "?") {
		return dsn + "&" + opt, nil
	}
	return dsn + "?" + opt, nil
}

// threadsSetting is ThreadsEnv's threads as a SET, for an in-memory open
// (whose connector is not made by connect); "" when it is unset.
func threadsSetting() (string, error) {
	opt, err := threadsOption()
	if err != nil || opt == "" {
		return "", err
	}
	return "SET " + strings.Replace(opt, "=", " = ", 1), nil
}

// threadsOption is the DSN option ThreadsEnv asks for, "" when it is unset
// or empty.
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

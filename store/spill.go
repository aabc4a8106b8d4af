package store

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// sweepSpills removes the spill folders a killed process left beside path:
// DefaultTempDir names them <db>.tmp-PID, and DuckDB removes one only when
// its database closes, so an analysis killed mid-spill left gigabytes that
// no later run removed. A folder is removed only when its PID names no
// running process; one whose process runs, or whose name is not exactly
// that, is left alone. Errors are ignored: the sweep is housekeeping, the
// open goes on without it.
func sweepSpills(path string) {
	if runtime.GOOS == "windows" { // no signal 0 to ask whether a process runs
		return
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		digits, ok := strings.CutPrefix(e.Name(), base+".tmp-")
		pid, err := strconv.Atoi(digits)
		if !ok || err != nil || pid <= 0 || strconv.Itoa(pid) != digits || !e.IsDir() || e.Type()&os.ModeSymlink != 0 {
			continue
		}
		if pid != os.Getpid() && !running(pid) {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// running reports whether a process pid exists (signal 0: a permission
// error means it exists under another user).
func running(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

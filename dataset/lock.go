package dataset

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// lockName is the file whose exclusive creation (O_EXCL) lets one
// conversion at a time commit its parts: it holds "PID HOST".
const lockName = "_lock"

const lockPoll = 20 * time.Millisecond

// lock takes dir's commit lock, waiting for up to wait. A lock left by a
// process of this host that no longer runs is taken over.
func lock(ctx context.Context, dir string, wait time.Duration) (func(), error) {
	path := filepath.Join(dir, lockName)
	host, _ := os.Hostname()
	me := fmt.Sprintf("%d %s", os.Getpid(), host)
	deadline := time.Now().Add(wait)
	for {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, werr := f.WriteString(me)
			cerr := f.Close()
			if err := errors.Join(werr, cerr); err != nil {
				os.Remove(path)
				return nil, err
			}
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		if staleLock(path, host) {
			os.Remove(path)
			continue
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(path)
			return nil, fmt.Errorf("%s: another conversion holds the dataset's lock (%s); remove %s if no such process runs", dir, strings.TrimSpace(string(b)), path)
		}
		t := time.NewTimer(lockPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// workPrefix names a conversion's work folder in the dataset: its host
// and process, so that a later conversion can remove what a killed one
// left (removeStaleWork).
func workPrefix() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("_convert-%s-%d-", strings.ReplaceAll(host, "-", "_"), os.Getpid())
}

// removeStaleWork removes the work folders of this host's conversions
// whose process is gone.
func removeStaleWork(dir string) {
	host, _ := os.Hostname()
	prefix := "_convert-" + strings.ReplaceAll(host, "-", "_") + "-"
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		if pid, err := strconv.Atoi(pidText); err == nil && pid > 0 && errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// staleLock reports whether the lock's holder is a process of this host
// that is gone.
func staleLock(path, host string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	if len(f) != 2 || f[1] != host {
		return false
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil || pid <= 0 {
		return false
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

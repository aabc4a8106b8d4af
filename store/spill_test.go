package store

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// An open removes the spill folders beside the database whose process is
// gone (a killed analysis), and leaves those of running processes and
// folders of other names.
func TestSweepSpills(t *testing.T) {
	path := chaosFile(t, nil)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	gone := path + ".tmp-" + strconv.Itoa(dead.Process.Pid)
	keep := []string{path + ".tmp-" + strconv.Itoa(os.Getppid()), path + ".tmp-x1", path + ".tmp-01", filepath.Join(filepath.Dir(path), "other.duckdb.tmp-"+strconv.Itoa(dead.Process.Pid))}
	for _, d := range append([]string{gone}, keep...) {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "duckdb_temp_block-1.block"), make([]byte, 4096), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("%s: left (%v), want it removed", gone, err)
	}
	for _, d := range keep {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s: %v, want it kept", d, err)
		}
	}
}

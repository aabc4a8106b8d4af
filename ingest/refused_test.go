package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefused: each file under testdata/refused (real where one was found)
// holds no per-request records and is refused with its own message (its
// want file), leaving a database that held the chaos fixture unchanged;
// the Gatling 3.13+ binary log likewise.
func TestRefused(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/refused/*")
	cases := map[string]string{gatlingBinary: "not supported: Gatling 3.13+ writes a binary simulation.log"}
	seen := map[string]bool{}
	for _, dir := range dirs {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		want, err := os.ReadFile(filepath.Join(dir, "want"))
		if err != nil || len(files) != 2 {
			t.Fatalf("%s: want one input and a want file, got %v (%v)", dir, files, err)
		}
		for _, f := range files {
			if filepath.Base(f) != "want" {
				cases[f] = strings.TrimPrefix(strings.TrimSpace(string(want)), filepath.Base(f)+": ")
			}
		}
	}
	for path, want := range cases {
		t.Run(path, func(t *testing.T) {
			db, _ := openDB(t)
			mustIngest(t, db, Options{}, chaosFixture)
			before := snapshot(t, db)
			_, err := Files(context.Background(), db, Options{}, []string{path})
			if err == nil || !strings.HasPrefix(flagged(err), path+": "+want) {
				t.Fatalf("error %v\nwant %s: %s", err, path, want)
			}
			if seen[want] {
				t.Errorf("message shared with another kind of file: %s", want)
			}
			seen[want] = true
			if snapshot(t, db) != before {
				t.Error("a refused file changed the database")
			}
		})
	}
}

package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/ingest/format/clf"
	"github.com/rewind-dev/rewind/internal/golden"
)

// canonicalCSV renders a file's canonical rows, one per line, for goldens.
const canonicalCSV = `SELECT concat_ws(',', run, role, seq - min(seq) OVER (), coalesce(req::VARCHAR, ''), coalesce(req_text, ''), attempt,
	coalesce(t_ms::VARCHAR, ''), coalesce(strftime(ts, '%Y-%m-%dT%H:%M:%S.%fZ'), ''), coalesce(latency_ms::VARCHAR, ''),
	coalesce(outcome, ''), coalesce(status::VARCHAR, ''), tagged, count, coalesce(attrs::VARCHAR, ''), line)
	FROM requests ORDER BY seq`

const canonicalHeader = "run,role,seq,req,req_text,attempt,t_ms,ts,latency_ms,outcome,status,tagged,count,attrs,line"

const eventsCSV = `SELECT concat_ws(',', run, type, coalesce(t_ms::VARCHAR, ''), coalesce(strftime(ts, '%Y-%m-%dT%H:%M:%S.%fZ'), ''),
	coalesce(subject, ''), coalesce(state, ''), coalesce(attrs::VARCHAR, ''), line) FROM events ORDER BY seq`

const eventsHeader = "run,type,t_ms,ts,subject,state,attrs,line"

// TestRealFiles ingests every case under testdata/real/FORMAT/CASE/: one
// input file (input.*, real output of the tool, cut small; its source is
// recorded in testdata/real/FORMAT/README.md), detected as FORMAT from its
// content (or with log-format.txt's --log-format), whose canonical rows
// must equal want.csv (and its events events.csv, when it has any). A
// server's log read in its own format language gives the server's name in
// server.txt (--server) beside log-format.txt.
// go test -update rewrites the goldens.
func TestRealFiles(t *testing.T) {
	cases, _ := filepath.Glob("testdata/real/*/*")
	n := 0
	for _, dir := range cases {
		st, err := os.Stat(dir)
		if err != nil || !st.IsDir() {
			continue
		}
		n++
		format := filepath.Base(filepath.Dir(dir))
		t.Run(format+"/"+filepath.Base(dir), func(t *testing.T) {
			inputs, _ := filepath.Glob(filepath.Join(dir, "input*"))
			if len(inputs) != 1 {
				t.Fatalf("want one input* file in %s, got %v", dir, inputs)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "README.md")); err != nil {
				t.Errorf("no README.md beside %s recording where its files come from", dir)
			}
			db, _ := openDB(t)
			res, err := Files(context.Background(), db, realOptions(inputs[0]), inputs)
			if err != nil {
				t.Fatal(err)
			}
			if want := realFormat(dir, format); res[0].Format != want {
				t.Errorf("detected as %q, want %q", res[0].Format, want)
			}
			goldenRows(t, filepath.Join(dir, "want.csv"), canonicalHeader, queryStrings(t, db, canonicalCSV), true)
			goldenRows(t, filepath.Join(dir, "events.csv"), eventsHeader, queryStrings(t, db, eventsCSV), false)
		})
	}
	if n == 0 {
		t.Fatal("no cases under testdata/real")
	}
}

// realOptions are the options a real case is ingested with: a case of a
// layout rewind does not recognise by itself gives the server's own log
// format line (log-format.txt beside its input), as a user would.
func realOptions(input string) Options {
	var opts Options
	if lf, err := os.ReadFile(filepath.Join(filepath.Dir(input), "log-format.txt")); err == nil {
		opts.LogFormat = strings.TrimSpace(string(lf))
	}
	if server, err := os.ReadFile(filepath.Join(filepath.Dir(input), "server.txt")); err == nil {
		opts.Server = strings.TrimSpace(string(server))
	}
	return opts
}

// realFormat is the format a case's input loads as: its folder's, but for
// a server's log read with its format line (server.txt), which is clf.
func realFormat(dir, folder string) string {
	if _, err := os.Stat(filepath.Join(dir, "server.txt")); err == nil {
		return clf.Name
	}
	return folder
}

// goldenRows compares rows with a golden file; with -update it writes it. A
// golden that is optional (events) is only written when there are rows.
func goldenRows(t *testing.T, path, header string, rows []string, required bool) {
	t.Helper()
	got := header + "\n" + strings.Join(rows, "\n") + "\n"
	if golden.Updating() {
		if len(rows) == 0 && !required {
			os.Remove(path)
			return
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if os.IsNotExist(err) && !required && len(rows) == 0 {
		return
	}
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

package analyze

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/dataset"
	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/internal/sparktest"
	"github.com/rewind-dev/rewind/store"
)

// sparkURL is the test cluster (sparktest.URL).
func sparkURL(t *testing.T) string { return sparktest.URL(t) }

// sparkDataset exports db as a dataset (rewind export's own writer, the
// contract docs/dataset.md describes) and returns its folder.
func sparkDataset(t *testing.T, db *store.DB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ds")
	if _, err := dataset.Export(context.Background(), db, dir, ""); err != nil {
		t.Fatal(err)
	}
	return dir
}

// onSpark opens a Remote on the test cluster over dataset.
func onSpark(t *testing.T, dataset string) *Remote {
	t.Helper()
	ctx := context.Background()
	eng, err := engine.OpenSpark(ctx, sparkURL(t))
	if err != nil {
		t.Fatal(err)
	}
	r, err := OpenRemote(ctx, eng, dataset, 0)
	if err != nil {
		eng.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// asJSON is a result as --format json prints it.
func asJSON(t *testing.T, r *Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, r, "json"); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// sameStep fails unless two queries' rows are the same multiset (EXCEPT ALL
// both ways empty), the first over a, the second over b.
func sameStep(t *testing.T, step string, a store.Querier, qa string, b store.Querier, qb string) {
	t.Helper()
	ra, rb := rowStrings(t, a, qa), rowStrings(t, b, qb)
	if !slices.Equal(ra, rb) {
		t.Errorf("reduce step %s: rows differ\nDuckDB: %v\nSpark:  %v", step, ra, rb)
	}
}

func rowStrings(t *testing.T, db store.Querier, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		v, err := store.ScanAny(rows, len(must(rows.Columns())))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%#v", v))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// edgeLog is a log with the edges the reduce steps must keep: two runs of
// role experiment (one named with a quote and a backslash), count > 1, a
// NULL outcome, a NULL latency, negative t_ms, seqs across a block of 65536.
func edgeLog(n int) string {
	var b strings.Builder
	b.WriteString(`{"record":"experiment","experiment":"edge","params":{"start":3}}` + "\n")
	b.WriteString(`{"record":"run","experiment":"edge","run":"o'b\\rien","role":"experiment"}` + "\n")
	for i := range n {
		for _, run := range []string{"control", "experiment", `o'b\\rien`} {
			outcome := `"ok"`
			switch {
			case i%7 == 3:
				outcome = `"error"`
			case i%11 == 5:
				outcome = `null`
			}
			lat := fmt.Sprint(10 + i%13)
			if i%17 == 4 {
				lat = "null"
			}
			fmt.Fprintf(&b, `{"experiment":"edge","run":"%s","req":%d,"t_ms":%d,"latency_ms":%s,"outcome":%s,"tagged":%v,"count":%d}`+"\n",
				run, i, i*10-50, lat, outcome, i%3 == 0, 1+i%4)
		}
	}
	return b.String()
}

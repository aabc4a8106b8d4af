package ingest

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// errorCase is a bad input and the start of the error it must give after
// the file's path (":line: field ...").
type errorCase struct{ in, want string }

// checkErrors ingests each case as name with --from format into a database
// that holds the chaos fixture, and wants its error and an unchanged
// database.
func checkErrors(t *testing.T, format, name string, cases map[string]errorCase) {
	t.Helper()
	for cname, c := range cases {
		t.Run(cname, func(t *testing.T) {
			db, _ := openDB(t)
			mustIngest(t, db, Options{}, chaosFixture)
			before := snapshot(t, db)
			path := writeFile(t, name, c.in)
			_, err := Files(context.Background(), db, Options{From: format}, []string{path})
			if err == nil || !strings.HasPrefix(err.Error(), path+c.want) {
				t.Errorf("error %v, want %s%s", err, path, c.want)
			}
			if snapshot(t, db) != before {
				t.Error("a failed ingest changed the database")
			}
		})
	}
}

func TestFieldsQuoted(t *testing.T) {
	got, ok := tokens([]byte(`a "b c" "" "d \" e" f`))
	want := []token{{"a", false}, {"b c", true}, {"", true}, {`d \" e`, true}, {"f", false}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(token{})); !ok || diff != "" {
		t.Errorf("tokens (-want +got), ok %v:\n%s", ok, diff)
	}
	if _, ok := tokens([]byte(`a "b`)); ok {
		t.Error("an unclosed quote is ok")
	}
}

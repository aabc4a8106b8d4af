package sandbox

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCalls(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want []Call
	}{
		{"SELECT lower(x) FROM range(3)", []Call{{Name: "lower"}, {Name: "range"}}},
		{"CALL enable_logging(storage := 'file'); SELECT 1", []Call{{Name: "enable_logging"}}},
		{"PRAGMA enable_profiling; PRAGMA table_info('t')", []Call{{Name: "enable_profiling", Pragma: true}, {Name: "table_info", Pragma: true}}},
		{`SELECT * FROM system.main."READ_TEXT" /* c */ ('x')`, []Call{{Name: "read_text"}}},
		{"SELECT 'read_text(' AS s, $$glob($$ AS d, $t$query($t$ -- read_csv(\n", nil},
		{`SELECT e'\'' || 'x', read_blob('y')`, []Call{{Name: "read_blob"}}},
		{"SELECT 'a''b', read_csv ('z')", []Call{{Name: "read_csv"}}},
		{"SELECT $1, glob('*')", []Call{{Name: "glob"}}},
		{"/* a /* b */ read_text('x') */", []Call{{Name: "read_text"}}},
		{"SELECT x.read_text()", []Call{{Name: "read_text"}}},
	} {
		if diff := cmp.Diff(tc.want, Calls(tc.q)); diff != "" {
			t.Errorf("Calls(%q) (-want +got):\n%s", tc.q, diff)
		}
	}
}

func FuzzCalls(f *testing.F) {
	f.Add("CALL enable_logging(); SELECT $$x$$, e'\\'', \"q\"\"\"(1) -- c\n/* d */")
	f.Fuzz(func(t *testing.T, q string) { Calls(q) })
}

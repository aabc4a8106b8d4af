package record

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFieldsQuoted(t *testing.T) {
	got, ok := Tokens([]byte(`a "b c" "" "d \" e" f`))
	want := []Token{{S: "a"}, {S: "b c", Quoted: true}, {S: "", Quoted: true}, {S: `d \" e`, Quoted: true}, {S: "f"}}
	if diff := cmp.Diff(want, got); !ok || diff != "" {
		t.Errorf("tokens (-want +got), ok %v:\n%s", ok, diff)
	}
	if _, ok := Tokens([]byte(`a "b`)); ok {
		t.Error("an unclosed quote is ok")
	}
}

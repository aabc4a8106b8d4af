package sqllit

import (
	"testing"
	"time"
)

func TestLiterals(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{String("it's"), "'it''s'"},
		{String(""), "''"},
		{Ms(1500 * time.Microsecond), "1.5"},
		{Ms(time.Nanosecond), "0.000001"},
		{Ms(90 * time.Second), "90000"},
		{MsOrNull(0), "NULL"},
		{MsOrNull(-time.Second), "NULL"},
		{MsOrNull(time.Second), "1000"},
	} {
		if c.got != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
}

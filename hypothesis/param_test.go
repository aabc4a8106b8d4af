package hypothesis

import (
	"errors"
	"testing"

	"github.com/rewind-dev/rewind/internal/param"
)

// A bad threshold names its parameter in the library's words, and the
// other parameters it points to by name, for the CLI to spell as flags.
func TestParseBoundNamesParameter(t *testing.T) {
	for _, c := range []struct{ kind, text, metric, want string }{
		{"margin", "50ms", "p95", `margin "50ms": a margin is for shares (ok_share, error_rate); p95 takes tolerance (20%, 250ms, 1.5s) or max`},
		{"max", "99%", "ok_share", `max "99%": ok_share is judged with min (lower ok_share is worse)`},
		{"tolerance", "x", "p95", `tolerance "x": want a percentage (20%) or an amount in ms (250ms, 1.5s)`},
	} {
		_, err := ParseBound(c.kind, c.text, c.metric)
		var pe *param.Error
		if !errors.As(err, &pe) || pe.Param != c.kind {
			t.Errorf("ParseBound(%s, %s): %v is not a param.Error of %s", c.kind, c.text, err, c.kind)
			continue
		}
		if err.Error() != c.want {
			t.Errorf("ParseBound(%s, %s) = %q, want %q", c.kind, c.text, err, c.want)
		}
	}
}

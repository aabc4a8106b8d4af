package caddy_test

import (
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/caddy"
	"github.com/rewind-dev/rewind/ingest/formattest"
)

var suite = formattest.Suite{Format: caddy.Format{}, Dir: "testdata", Real: "../../testdata/real/caddy"}

func TestContract(t *testing.T) { formattest.Run(t, suite) }

func FuzzCaddyDecode(f *testing.F) { formattest.Fuzz(f, suite) }

package ab_test

import (
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/ab"
	"github.com/rewind-dev/rewind/ingest/formattest"
)

var suite = formattest.Suite{Format: ab.Format{}, Dir: "testdata", Real: "../../testdata/real/ab"}

func TestContract(t *testing.T) { formattest.Run(t, suite) }

func FuzzABDecode(f *testing.F) { formattest.Fuzz(f, suite) }

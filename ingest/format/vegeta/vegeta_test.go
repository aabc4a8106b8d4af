package vegeta_test

import (
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/vegeta"
	"github.com/rewind-dev/rewind/ingest/formattest"
)

var suite = formattest.Suite{Format: vegeta.Format{}, Dir: "testdata", Real: "../../testdata/real/vegeta"}

func TestContract(t *testing.T) { formattest.Run(t, suite) }

func FuzzVegetaDecode(f *testing.F) { formattest.Fuzz(f, suite) }

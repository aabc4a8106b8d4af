package gatling_test

import (
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/gatling"
	"github.com/rewind-dev/rewind/ingest/formattest"
)

var suite = formattest.Suite{Format: gatling.Format{}, Dir: "testdata", Real: "../../testdata/real/gatling"}

func TestContract(t *testing.T) { formattest.Run(t, suite) }

func FuzzGatlingDecode(f *testing.F) { formattest.Fuzz(f, suite) }

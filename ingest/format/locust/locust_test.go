package locust_test

import (
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/locust"
	"github.com/rewind-dev/rewind/ingest/formattest"
)

var suite = formattest.Suite{Format: locust.Format{}, Dir: "testdata", Real: "../../testdata/real/locust"}

func TestContract(t *testing.T) { formattest.Run(t, suite) }

func FuzzLocustDecode(f *testing.F) { formattest.Fuzz(f, suite) }

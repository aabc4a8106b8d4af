package har_test

import (
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/har"
	"github.com/rewind-dev/rewind/ingest/formattest"
)

var suite = formattest.Suite{Format: har.Format{}, Dir: "testdata", Real: "../../testdata/real/har"}

func TestContract(t *testing.T) { formattest.Run(t, suite) }

func FuzzHARDecode(f *testing.F) { formattest.Fuzz(f, suite) }

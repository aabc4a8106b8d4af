package gcplb_test

import (
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/gcplb"
	"github.com/rewind-dev/rewind/ingest/formattest"
)

var suite = formattest.Suite{Format: gcplb.Format{}, Dir: "testdata", Real: "../../testdata/real/gcp-lb"}

func TestContract(t *testing.T) { formattest.Run(t, suite) }

func FuzzGCPLBDecode(f *testing.F) { formattest.Fuzz(f, suite) }

package csv_test

import (
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/csv"
	"github.com/rewind-dev/rewind/ingest/formattest"
)

var suite = formattest.Suite{Format: csv.Format{}, Dir: "testdata"}

func TestContract(t *testing.T) { formattest.Run(t, suite) }

func FuzzCSVDecode(f *testing.F) { formattest.Fuzz(f, suite) }

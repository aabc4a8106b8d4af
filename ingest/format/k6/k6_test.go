package k6_test

import (
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/k6"
	"github.com/rewind-dev/rewind/ingest/formattest"
)

var (
	jsonSuite = formattest.Suite{Format: k6.Format{}, Dir: "testdata/k6", Real: "../../testdata/real/k6"}
	csvSuite  = formattest.Suite{Format: k6.CSV{}, Dir: "testdata/k6-csv", Real: "../../testdata/real/k6-csv"}
)

func TestContract(t *testing.T)    { formattest.Run(t, jsonSuite) }
func TestCSVContract(t *testing.T) { formattest.Run(t, csvSuite) }

func FuzzK6Decode(f *testing.F)    { formattest.Fuzz(f, jsonSuite) }
func FuzzK6CSVDecode(f *testing.F) { formattest.Fuzz(f, csvSuite) }

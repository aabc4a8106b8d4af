package typed_test

import (
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/typed"
	"github.com/rewind-dev/rewind/ingest/formattest"
)

var (
	parquetSuite = formattest.Suite{Format: typed.Parquet{}, Dir: "testdata/parquet"}
	arrowSuite   = formattest.Suite{Format: typed.Arrow{}, Dir: "testdata/arrow"}
)

func TestParquetContract(t *testing.T) { formattest.Run(t, parquetSuite) }
func TestArrowContract(t *testing.T)   { formattest.Run(t, arrowSuite) }

func FuzzParquetDecode(f *testing.F) { formattest.Fuzz(f, parquetSuite) }
func FuzzArrowDecode(f *testing.F)   { formattest.Fuzz(f, arrowSuite) }

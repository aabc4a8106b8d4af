package access_test

import (
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/access"
	"github.com/rewind-dev/rewind/ingest/formattest"
)

var suite = formattest.Suite{Format: access.Format{}, Dir: "testdata", Real: "../../testdata/real/access"}

func TestContract(t *testing.T) { formattest.Run(t, suite) }

func FuzzAccessDecode(f *testing.F) { formattest.Fuzz(f, suite) }

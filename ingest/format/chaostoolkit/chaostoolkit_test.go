package chaostoolkit_test

import (
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/chaostoolkit"
	"github.com/rewind-dev/rewind/ingest/formattest"
)

var suite = formattest.Suite{Format: chaostoolkit.Format{}, Dir: "testdata", Real: "../../testdata/real/chaostoolkit"}

func TestContract(t *testing.T) { formattest.Run(t, suite) }

func FuzzChaosToolkitDecode(f *testing.F) { formattest.Fuzz(f, suite) }

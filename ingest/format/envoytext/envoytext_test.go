package envoytext_test

import (
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/envoytext"
	"github.com/rewind-dev/rewind/ingest/formattest"
)

var suite = formattest.Suite{Format: envoytext.Format{}, Dir: "testdata", Real: "../../testdata/real/envoy-text"}

func TestContract(t *testing.T) { formattest.Run(t, suite) }

func FuzzEnvoyTextDecode(f *testing.F) { formattest.Fuzz(f, suite) }

package jmeter_test

import (
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/jmeter"
	"github.com/rewind-dev/rewind/ingest/formattest"
)

var suite = formattest.Suite{Format: jmeter.Format{}, Dir: "testdata", Real: "../../testdata/real/jmeter"}

func TestContract(t *testing.T) { formattest.Run(t, suite) }

func FuzzJMeterDecode(f *testing.F) { formattest.Fuzz(f, suite) }

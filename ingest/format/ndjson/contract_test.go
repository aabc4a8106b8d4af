package ndjson_test

import (
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/ndjson"
	"github.com/rewind-dev/rewind/ingest/formattest"
)

var (
	ndjsonSuite = formattest.Suite{Format: ndjson.Format{}, Dir: "testdata/ndjson"}
	jsonSuite   = formattest.Suite{Format: ndjson.JSON{}, Dir: "testdata/json"}
)

func TestNDJSONContract(t *testing.T) { formattest.Run(t, ndjsonSuite) }
func TestJSONContract(t *testing.T)   { formattest.Run(t, jsonSuite) }

func FuzzNDJSONDecode(f *testing.F) { formattest.Fuzz(f, ndjsonSuite) }
func FuzzJSONDecode(f *testing.F)   { formattest.Fuzz(f, jsonSuite) }

package traefik_test

import (
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/traefik"
	"github.com/rewind-dev/rewind/ingest/formattest"
)

var suite = formattest.Suite{Format: traefik.Format{}, Dir: "testdata", Real: "../../testdata/real/traefik"}

func TestContract(t *testing.T) { formattest.Run(t, suite) }

func FuzzTraefikDecode(f *testing.F) { formattest.Fuzz(f, suite) }

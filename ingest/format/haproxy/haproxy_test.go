package haproxy_test

import (
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/haproxy"
	"github.com/rewind-dev/rewind/ingest/formattest"
)

var suite = formattest.Suite{Format: haproxy.Format{}, Dir: "testdata", Real: "../../testdata/real/haproxy"}

func TestContract(t *testing.T) { formattest.Run(t, suite) }

func FuzzHAProxyDecode(f *testing.F) { formattest.Fuzz(f, suite) }

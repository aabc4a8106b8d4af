package traces_test

import (
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/traces"
	"github.com/rewind-dev/rewind/ingest/formattest"
)

var (
	otlpSuite   = formattest.Suite{Format: traces.OTLP{}, Dir: "testdata/otlp", Real: "../../testdata/real/otlp"}
	jaegerSuite = formattest.Suite{Format: traces.Jaeger{}, Dir: "testdata/jaeger", Real: "../../testdata/real/jaeger"}
	zipkinSuite = formattest.Suite{Format: traces.Zipkin{}, Dir: "testdata/zipkin", Real: "../../testdata/real/zipkin"}
)

func TestOTLPContract(t *testing.T)   { formattest.Run(t, otlpSuite) }
func TestJaegerContract(t *testing.T) { formattest.Run(t, jaegerSuite) }
func TestZipkinContract(t *testing.T) { formattest.Run(t, zipkinSuite) }

func FuzzOTLPDecode(f *testing.F)   { formattest.Fuzz(f, otlpSuite) }
func FuzzJaegerDecode(f *testing.F) { formattest.Fuzz(f, jaegerSuite) }
func FuzzZipkinDecode(f *testing.F) { formattest.Fuzz(f, zipkinSuite) }

package clf_test

import (
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/clf"
	"github.com/rewind-dev/rewind/ingest/formattest"
)

var (
	clfSuite           = formattest.Suite{Format: clf.CLF{}, Dir: "testdata/clf", Real: "../../testdata/real/clf"}
	squidSuite         = formattest.Suite{Format: clf.Squid{}, Dir: "testdata/squid", Real: "../../testdata/real/squid"}
	trafficServerSuite = formattest.Suite{Format: clf.TrafficServer{}, Dir: "testdata/trafficserver", Real: "../../testdata/real/trafficserver"}
)

func TestCLFContract(t *testing.T)           { formattest.Run(t, clfSuite) }
func TestSquidContract(t *testing.T)         { formattest.Run(t, squidSuite) }
func TestTrafficServerContract(t *testing.T) { formattest.Run(t, trafficServerSuite) }

func FuzzCLFDecode(f *testing.F)           { formattest.Fuzz(f, clfSuite) }
func FuzzSquidDecode(f *testing.F)         { formattest.Fuzz(f, squidSuite) }
func FuzzTrafficServerDecode(f *testing.F) { formattest.Fuzz(f, trafficServerSuite) }

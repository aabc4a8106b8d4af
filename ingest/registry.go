package ingest

import (
	"github.com/rewind-dev/rewind/ingest/format/ab"
	"github.com/rewind-dev/rewind/ingest/format/access"
	"github.com/rewind-dev/rewind/ingest/format/aws"
	"github.com/rewind-dev/rewind/ingest/format/caddy"
	"github.com/rewind-dev/rewind/ingest/format/chaostoolkit"
	"github.com/rewind-dev/rewind/ingest/format/clf"
	"github.com/rewind-dev/rewind/ingest/format/csv"
	"github.com/rewind-dev/rewind/ingest/format/envoytext"
	"github.com/rewind-dev/rewind/ingest/format/gatling"
	"github.com/rewind-dev/rewind/ingest/format/gcplb"
	"github.com/rewind-dev/rewind/ingest/format/gunluk"
	"github.com/rewind-dev/rewind/ingest/format/haproxy"
	"github.com/rewind-dev/rewind/ingest/format/har"
	"github.com/rewind-dev/rewind/ingest/format/jmeter"
	"github.com/rewind-dev/rewind/ingest/format/k6"
	"github.com/rewind-dev/rewind/ingest/format/locust"
	"github.com/rewind-dev/rewind/ingest/format/ndjson"
	"github.com/rewind-dev/rewind/ingest/format/traces"
	"github.com/rewind-dev/rewind/ingest/format/traefik"
	"github.com/rewind-dev/rewind/ingest/format/typed"
	"github.com/rewind-dev/rewind/ingest/format/vegeta"
	"github.com/rewind-dev/rewind/ingest/record"
)

// The registry: every format the ingest reads, and the only place the
// pipeline learns of one. A format's package implements record.Format;
// adding one is its package and one line here, at the place of its
// detection order.

// formats is in detection order: the first whose detect says yes is taken.
// Specific formats come before the generic ones that would also match.
var formats = []record.Format{
	typed.Parquet{},
	typed.Arrow{},
	traces.OTLP{},
	traces.Jaeger{},
	traces.Zipkin{},
	har.Format{},
	chaostoolkit.Format{},
	gunluk.Format{},
	k6.Format{},
	vegeta.Format{},
	caddy.Format{},
	envoytext.Format{},
	traefik.Format{},
	gcplb.Format{},
	access.Format{},
	clf.Squid{},
	clf.TrafficServer{},
	clf.CLF{},
	ndjson.JSON{},
	ndjson.Format{},
	k6.CSV{},
	jmeter.Format{},
	locust.Format{},
	gatling.Format{},
	ab.Format{},
	aws.ALB{},
	aws.ELB{},
	aws.CloudFront{},
	haproxy.Format{},
	csv.Format{},
}

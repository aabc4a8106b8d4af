package clf

import (
	"bytes"
	"regexp"

	"github.com/rewind-dev/rewind/ingest/record"
)

// SquidName names Squid's native access log (logformat squid:
// %ts.%03tu %6tr %>a %Ss/%03>Hs %<st %rm %ru %[un %Sh/%<a %mt) and
// TrafficServerName Traffic Server's squid format (%<cqtq> %<ttms>
// %<chi> %<crc>/%<pssc> %<psql> %<cqhm> %<cquc> %<caun> %<phr>/%<shn>
// %<psct>). The lines look alike, but their times do not mean the same:
// Squid writes the time the transaction ended (ts = it less %tr), Traffic
// Server the time the request arrived (ts as written). Squid pads the
// response time to six characters and names its hierarchy codes HIER_…;
// Traffic Server does neither. A line that shows neither is refused,
// naming both. One row per line; latency_ms = %tr or %<ttms>, status =
// the code after the slash, every other field in attrs.
const (
	SquidName         = "squid"
	TrafficServerName = "trafficserver"
)

// squidLine is the shape both write: time, response time, client,
// result/status, size, method, URL, user, hierarchy/host, type.
var squidLine = regexp.MustCompile(`^[0-9]{9,10}\.[0-9]{3}( +)([0-9]+) \S+ [A-Z_]+/[0-9]{3} [0-9]+ \S+ \S+ \S+ ([A-Z_]+)/\S+ \S+$`)

// squidKind tells which server wrote a squid-format line: "squid",
// "trafficserver", "both" when the line fits either, "" when it is none.
func squidKind(line []byte) string {
	m := squidLine.FindSubmatch(line)
	if m == nil {
		return ""
	}
	padded := len(m[1])+len(m[2]) >= 7 && len(m[1]) > 1 // %6tr: spaces up to six characters
	unpadded := len(m[1]) == 1 && len(m[2]) < 6
	hier := bytes.HasPrefix(m[3], []byte("HIER_"))
	switch {
	case (padded || len(m[2]) >= 6) && hier:
		return SquidName
	case unpadded && !hier:
		return TrafficServerName
	}
	return "both"
}

// detectSquid takes a first line of kind (the ambiguous ones are refused
// before: Squid.Refuses).
func detectSquid(kind string, head []byte) bool {
	line := record.FirstLine(head)
	return len(line) > 0 && squidKind(line) == kind
}

func isAmbiguousSquid(head []byte) bool {
	line := record.FirstLine(head)
	return len(line) > 0 && line[0] >= '0' && line[0] <= '9' && squidKind(line) == "both"
}

// squidLayouts are the two logs' layouts, read from their format lines.
var squidLayouts = map[string]*layout{
	SquidName:         mustLayout("squid", "squid"),
	TrafficServerName: mustLayout("trafficserver", `%<cqtq> %<ttms> %<chi> %<crc>/%<pssc> %<psql> %<cqhm> %<cquc> %<caun> %<phr>/%<shn> %<psct>`),
}

func mustLayout(server, text string) *layout {
	lo, err := parseServerLayout(server, text)
	if err != nil {
		panic(err)
	}
	return lo
}

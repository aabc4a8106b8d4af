package logformat

import (
	"fmt"
	"strings"
)

// h2oTimes are h2o's %{NAME}x times (lib/handler/access_log.c: written
// in seconds with µs, "%.6f"); duration is the whole request, from its
// first byte received to its last byte sent, and becomes the latency.
var h2oTimes = map[string]bool{
	"connect-time": true, "request-header-time": true, "request-body-time": true, "request-total-time": true,
	"process-time": true, "response-time": true, "duration": true, "total-time": true,
}

// parseH2O reads h2o's access-log format: Apache's directives, with %t
// the time the request was received (its start) and %{NAME}x h2o's
// extensions.
func parseH2O(text string) (*Layout, error) {
	lo := &Layout{}
	err := scanPercent(lo, text, func(d directive) error {
		switch d.letter {
		case 'x':
			name := strings.ToLower(d.arg)
			key := "h2o_" + strings.NewReplacer("-", "_", ".", "_").Replace(name)
			switch {
			case name == "duration":
				lo.field(Field{Name: key, Role: Latency, Shift: 3})
			case h2oTimes[name]:
				lo.field(Field{Name: key})
			case name == "":
				return fmt.Errorf("%%x needs a name, e.g. %%{duration}x")
			default:
				lo.field(Field{Name: key})
			}
			return nil
		case 'D':
			return fmt.Errorf("%%D is not an h2o directive: h2o writes durations with %%{duration}x (seconds)")
		case 'T':
			return fmt.Errorf("%%T is not an h2o directive: h2o writes durations with %%{duration}x (seconds)")
		}
		return lo.apacheField(d, "h2o access-log format")
	})
	if err != nil {
		return nil, err
	}
	return lo.mergeTimes()
}

package logformat

import "fmt"

// parseLighttpd reads lighttpd's accesslog.format (mod_accesslog). Its
// directives are Apache's, but a time without begin: is the request's end
// (mod_accesslog.c: the log handler formats the time it runs at unless
// the format says begin:), %D is µs, %T whole seconds, and %{ms}T,
// %{us}T, %{ns}T name their unit.
func parseLighttpd(text string) (*Layout, error) {
	lo := &Layout{}
	err := scanPercent(lo, text, func(d directive) error {
		switch d.letter {
		case 't':
			return lo.apacheTime(d.arg, true)
		case 'T':
			if d.arg == "ns" {
				lo.field(Field{Name: "request_time_ns", Role: Latency, Shift: -6, Whole: true})
				return nil
			}
		case 'n', 'R', 'P', 'L', 'S':
			return fmt.Errorf("%%%c is not a lighttpd accesslog.format directive", d.letter)
		}
		return lo.apacheField(d, "lighttpd accesslog.format")
	})
	if err != nil {
		return nil, err
	}
	return lo.mergeTimes()
}

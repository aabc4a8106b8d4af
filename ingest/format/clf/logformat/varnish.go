package logformat

import (
	"fmt"
	"strings"
)

// parseVarnish reads a varnishncsa -F format (varnishncsa(1)): Apache's
// directives, with %t the time the request was received (its start), %D
// µs, %T seconds, %{X}T in s, ms or us, and the extended variables
// %{Varnish:…}x, %{VCL_Log:…}x and %{VSL:…}x kept in attrs.
func parseVarnish(text string) (*Layout, error) {
	lo := &Layout{}
	err := scanPercent(lo, text, func(d directive) error {
		switch d.letter {
		case 'x':
			return lo.varnishExtended(d.arg)
		case 'T':
			if d.arg == "" {
				lo.field(Field{Name: "request_time_s", Role: Latency, Shift: 3})
				return nil
			}
		case 'n', 'L', 'R', 'P', 'e', 'C', 'k', 'X', 'f', 'S', 'A', 'a', 'p', 'v', 'V', 'B':
			return fmt.Errorf("%%%c is not a varnishncsa -F directive", d.letter)
		}
		return lo.apacheField(d, "varnishncsa -F")
	})
	if err != nil {
		return nil, err
	}
	return lo.mergeTimes()
}

func (lo *Layout) varnishExtended(arg string) error {
	kind, name, _ := strings.Cut(arg, ":")
	key := func(prefix string) string {
		return prefix + strings.ToLower(strings.NewReplacer(":", "_", "-", "_", "[", "_", "]", "").Replace(name))
	}
	switch kind {
	case "Varnish":
		switch name {
		case "time_firstbyte", "hitmiss", "handling", "side", "vxid":
			lo.field(Field{Name: "varnish_" + name})
			return nil
		}
		return fmt.Errorf("%%{Varnish:%s}x: want time_firstbyte, hitmiss, handling, side or vxid", name)
	case "VCL_Log":
		lo.field(Field{Name: key("vcl_log_")})
		return nil
	case "VSL":
		lo.field(Field{Name: key("vsl_")})
		return nil
	}
	return fmt.Errorf("%%{%s}x: want Varnish:…, VCL_Log:… or VSL:…", arg)
}

package logformat

import (
	"fmt"
	"regexp"
	"strings"
)

// envoyOp is one command of Envoy's access-log format: %NAME%,
// %NAME(arg)% or %NAME(arg):length%.
var envoyOp = regexp.MustCompile(`%([A-Z][A-Z0-9_]*)(?:\(([^)]*)\))?(?::([0-9]+))?%`)

// envoyFields are the commands with a meaning beyond "keep it in attrs"
// (Envoy's access-log documentation, "Command operators"): START_TIME is
// when the downstream request started, DURATION the total from its start
// to the last byte out, in ms.
var envoyFields = map[string]Field{
	"DURATION":      {Name: "duration", Role: Latency, Shift: 0, Whole: true},
	"RESPONSE_CODE": {Name: "response_code", Role: Status},
	"PROTOCOL":      {Name: "protocol"},
}

// parseEnvoy reads an Envoy text format string.
func parseEnvoy(text string) (*Layout, error) {
	lo := &Layout{}
	rest := text
	for len(rest) > 0 {
		loc := envoyOp.FindStringSubmatchIndex(rest)
		if loc == nil {
			lo.literal(rest)
			break
		}
		lo.literal(rest[:loc[0]])
		sub := func(k int) string {
			if loc[2*k] < 0 {
				return ""
			}
			return rest[loc[2*k]:loc[2*k+1]]
		}
		if err := lo.envoyField(sub(1), sub(2)); err != nil {
			return nil, err
		}
		rest = rest[loc[1]:]
	}
	return lo, nil
}

func (lo *Layout) envoyField(op, arg string) error {
	switch op {
	case "START_TIME":
		return lo.envoyStart(arg)
	case "REQ", "RESP", "TRAILER":
		header, _, _ := strings.Cut(arg, "?")
		switch strings.ToUpper(header) {
		case ":METHOD":
			lo.field(Field{Name: "method"})
			return nil
		case ":PATH", "X-ENVOY-ORIGINAL-PATH":
			lo.field(Field{Name: "path"})
			return nil
		case ":AUTHORITY":
			lo.field(Field{Name: "authority"})
			return nil
		}
		f := apacheNamed(map[string]string{"REQ": "i", "RESP": "o", "TRAILER": "o"}[op], header)
		lo.field(f)
		return nil
	}
	if f, ok := envoyFields[op]; ok {
		lo.field(f)
		return nil
	}
	lo.field(Field{Name: strings.ToLower(op)})
	return nil
}

// envoyStart is %START_TIME%: by default 2006-01-02T15:04:05.000Z (UTC),
// else the strftime format given, with Envoy's %s (epoch seconds), %f and
// %1f…%9f (fractions of a second) and %E3S-style seconds with a fraction.
func (lo *Layout) envoyStart(arg string) error {
	if arg == "" {
		lo.field(Field{Name: "start_time", Role: Time, GoLayout: "2006-01-02T15:04:05.000Z07:00", StepMs: 1})
		return nil
	}
	if arg == "%s" {
		lo.field(Field{Name: "start_time", Role: Time, EpochUnitUs: 1e6, WholeEpoch: true, StepMs: 1000})
		return nil
	}
	step := 1000.0
	var b strings.Builder
	for i := 0; i < len(arg); i++ {
		if arg[i] != '%' || i+1 == len(arg) {
			b.WriteByte(arg[i])
			continue
		}
		digits := 9
		j := i + 1
		if arg[j] >= '1' && arg[j] <= '9' && j+1 < len(arg) && arg[j+1] == 'f' {
			digits, j = int(arg[j]-'0'), j+1
		}
		switch {
		case arg[j] == 'f':
			b.WriteString(strings.Repeat("0", digits))
			step = min(step, 1000/pow10(digits))
		case arg[j] == 'E' && j+2 < len(arg) && arg[j+1] >= '1' && arg[j+1] <= '9' && arg[j+2] == 'S':
			b.WriteString("05." + strings.Repeat("0", int(arg[j+1]-'0')))
			step = min(step, 1000/pow10(int(arg[j+1]-'0')))
			j += 2
		default:
			g, err := strftimeLayout(arg[i : j+1])
			if err != nil {
				return fmt.Errorf("%%START_TIME(%s)%%: %w", arg, err)
			}
			b.WriteString(g)
		}
		i = j
	}
	lo.field(Field{Name: "start_time", Role: Time, GoLayout: b.String(), StepMs: step})
	return nil
}

func pow10(n int) float64 {
	p := 1.0
	for ; n > 0; n-- {
		p *= 10
	}
	return p
}

package logformat

import (
	"fmt"
	"strings"
)

// tomcatNamed are AccessLogValve's named patterns.
var tomcatNamed = map[string]string{
	"common":   `%h %l %u %t "%r" %s %b`,
	"combined": `%h %l %u %t "%r" %s %b "%{Referer}i" "%{User-Agent}i"`,
}

// parseTomcat reads an AccessLogValve pattern for Tomcat version (0: not
// said). Its %t is the request's end unless begin: says otherwise
// (AbstractAccessLogValve's DateAndTimeElement adds the elapsed time to
// the request's start by default); %D is µs from Tomcat 10 on and ms
// before, so without a version %D is refused; %T is seconds; %{ms}T and
// %{us}T name their unit; %{…}t takes a SimpleDateFormat.
func parseTomcat(version int) func(string) (*Layout, error) {
	return func(text string) (*Layout, error) {
		if named, ok := tomcatNamed[strings.TrimSpace(text)]; ok {
			text = named
		}
		lo := &Layout{}
		err := scanPercent(lo, text, func(d directive) error { return lo.tomcatField(d, version) })
		if err != nil {
			return nil, err
		}
		return lo.mergeTimes()
	}
}

func (lo *Layout) tomcatField(d directive, version int) error {
	switch d.letter {
	case 't':
		return lo.tomcatTime(d.arg)
	case 'D':
		switch {
		case version == 0:
			return errorf("%%D is µs in Tomcat 10 and later but ms in Tomcat 9 and earlier: name the version with {server} tomcat10 or {server} tomcat9")
		case version >= 10:
			lo.field(Field{Name: "request_time_us", Role: Latency, Shift: -3, Whole: true})
		default:
			lo.field(Field{Name: "request_time_ms", Role: Latency, Shift: 0, Whole: true})
		}
		return nil
	case 'T':
		switch d.arg {
		case "", "s":
			lo.field(Field{Name: "request_time_s", Role: Latency, Shift: 3})
			return nil
		case "ms", "us":
			return lo.apacheDuration(d.arg)
		}
		return fmt.Errorf("%%{%s}T: want ms or us", d.arg)
	case 'F':
		lo.field(Field{Name: "commit_time_ms"})
		return nil
	case 'I':
		lo.field(Field{Name: "thread_name"})
		return nil
	case 'S':
		lo.field(Field{Name: "session_id"})
		return nil
	case 'c':
		lo.field(apacheNamed("C", d.arg))
		return nil
	case 'r', 's':
		if d.arg != "" {
			lo.field(Field{Name: map[byte]string{'r': "request_attr_", 's': "session_attr_"}[d.letter] + strings.ToLower(d.arg)})
			return nil
		}
	case 'L', 'R', 'P', 'e', 'n', 'C', 'k', 'f', 'O', 'V':
		return fmt.Errorf("%%%c is not a Tomcat AccessLogValve directive", d.letter)
	}
	return lo.apacheField(d, "Tomcat AccessLogValve")
}

// tomcatTime is %t or %{FORMAT}t, FORMAT a SimpleDateFormat or sec, msec,
// msec_frac, each with an optional begin: or end: prefix.
func (lo *Layout) tomcatTime(arg string) error {
	prefix, rest := "", arg
	for _, p := range []string{"begin:", "end:"} {
		if strings.HasPrefix(rest, p) {
			prefix, rest = p, strings.TrimPrefix(rest, p)
		}
	}
	switch rest {
	case "", "sec", "msec", "msec_frac":
		return lo.apacheTime(prefix+rest, true)
	}
	goLayout, err := simpleDateLayout(rest)
	if err != nil {
		return fmt.Errorf("%%{%s}t: %w", arg, err)
	}
	lo.field(Field{Name: "time", Role: Time, GoLayout: goLayout, End: prefix != "begin:", StepMs: map[bool]float64{true: 1, false: 1000}[strings.Contains(rest, "S")]})
	return nil
}

// simpleDate maps Java's SimpleDateFormat letters, by run length, to Go.
var simpleDate = map[string]string{
	"yyyy": "2006", "yy": "06", "MMMM": "January", "MMM": "Jan", "MM": "01", "dd": "02", "d": "2",
	"HH": "15", "hh": "03", "mm": "04", "ss": "05", "SSS": "000", "a": "PM", "EEE": "Mon", "EEEE": "Monday",
	"Z": "-0700", "XXX": "-07:00", "X": "-07", "z": "MST",
}

func simpleDateLayout(f string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(f); {
		c := f[i]
		if c == '\'' {
			end := strings.IndexByte(f[i+1:], '\'')
			if end < 0 {
				return "", fmt.Errorf("a quote not closed")
			}
			b.WriteString(f[i+1 : i+1+end])
			i += end + 2
			continue
		}
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			if c >= '0' && c <= '9' {
				return "", fmt.Errorf("the text %q would read as part of the time", f[i:i+1])
			}
			b.WriteByte(c)
			i++
			continue
		}
		j := i
		for j < len(f) && f[j] == c {
			j++
		}
		g, ok := simpleDate[f[i:j]]
		if !ok {
			return "", fmt.Errorf("%q is not a SimpleDateFormat field rewind reads", f[i:j])
		}
		if f[i:j] == "SSS" && !strings.HasSuffix(b.String(), ".") && !strings.HasSuffix(b.String(), ",") {
			return "", fmt.Errorf("milliseconds (SSS) must follow a '.' or ','")
		}
		b.WriteString(g)
		i = j
	}
	return b.String(), nil
}

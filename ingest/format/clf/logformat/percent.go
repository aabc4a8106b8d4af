package logformat

import "strings"

// A directive is one %-directive of the Apache-like languages (Apache,
// lighttpd, Tomcat, varnishncsa, h2o): %h, %>s, %{Referer}i, %{%d/%b/%Y}t.
type directive struct {
	mod    string // < or >, before or after the argument
	arg    string // what stands in braces
	letter byte
}

// scanPercent cuts text into literal text and directives, in one pass: a
// % that starts no directive (a lone one at the end) is text, %% is a %.
// Apache's status condition (%400,501{X}i, %!200h) is skipped.
func scanPercent(lo *Layout, text string, add func(d directive) error) error {
	rest := text
	for len(rest) > 0 {
		i := strings.IndexByte(rest, '%')
		if i < 0 {
			lo.literal(rest)
			return nil
		}
		lo.literal(rest[:i])
		d, n := readDirective(rest[i+1:])
		if n == 0 {
			lo.literal("%")
			rest = rest[i+1:]
			continue
		}
		rest = rest[i+1+n:]
		if d.letter == '%' {
			lo.literal("%")
			continue
		}
		if err := add(d); err != nil {
			return err
		}
	}
	return nil
}

// readDirective reads a directive after its %, and how many bytes it takes
// (0 when none starts there).
func readDirective(s string) (directive, int) {
	var d directive
	i := 0
	if i < len(s) && s[i] == '!' {
		i++
	}
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == ',') {
		i++
	}
	if i < len(s) && (s[i] == '<' || s[i] == '>') {
		d.mod = s[i : i+1]
		i++
	}
	if i < len(s) && s[i] == '{' {
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return d, 0
		}
		d.arg = s[i+1 : i+end]
		i += end + 1
	}
	if i < len(s) && (s[i] == '<' || s[i] == '>') {
		d.mod += s[i : i+1]
		i++
	}
	if i == len(s) || !(s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] == '%') {
		return d, 0
	}
	d.letter = s[i]
	return d, i + 1
}

package logformat

import (
	"regexp"
	"strings"
)

// The configuration directives a format line may be pasted with, per
// server: the format string follows the match.
var wrappers = map[string]*regexp.Regexp{
	"nginx":         regexp.MustCompile(`^\s*log_format\s+\S+\s+(?:escape=\S+\s+)?`),
	"apache":        regexp.MustCompile(`^\s*(?:LogFormat|CustomLog\s+\S+)\s+`),
	"lighttpd":      regexp.MustCompile(`^\s*accesslog\.format\s*[+:]?=\s*`),
	"tomcat":        regexp.MustCompile(`^(?s).*?\bpattern\s*=\s*`),
	"varnishncsa":   regexp.MustCompile(`^(?s).*?(?:^|\s)-F\s*`),
	"squid":         regexp.MustCompile(`^\s*logformat\s+\S+\s+`),
	"trafficserver": regexp.MustCompile(`^(?s).*?\bformat\s*:\s*`),
	"h2o":           regexp.MustCompile(`^(?s).*?\bformat\s*:\s*`),
	"envoy":         regexp.MustCompile(`^(?s).*?\b(?:text_format|format|inline_string)"?\s*:\s*`),
	"haproxy":       regexp.MustCompile(`^\s*log-format\s+`),
}

// unwrap strips a pasted directive down to its format string, unquoted
// as the server's configuration language quotes it.
func unwrap(server, s string) string {
	t := strings.TrimSpace(s)
	base := strings.TrimRight(server, "0123456789")
	if re := wrappers[base]; re != nil && re.MatchString(t) {
		t = strings.TrimSpace(re.ReplaceAllString(t, ""))
	}
	switch base {
	case "nginx":
		return nginxStrings(t)
	case "tomcat":
		return xmlUnescape(unquote(t, false))
	case "trafficserver", "h2o", "envoy":
		return strings.TrimSuffix(unquote(t, true), "\n")
	case "haproxy":
		if t != "" && t[0] != '"' {
			return strings.ReplaceAll(t, `\ `, " ")
		}
	}
	return unquote(t, false)
}

// unquote takes the first quoted string of s, its escapes undone (a
// backslash, or YAML's ” in single quotes when yaml); s as it is when it
// does not start with a quote.
func unquote(s string, yaml bool) string {
	if len(s) == 0 || (s[0] != '"' && s[0] != '\'') {
		return s
	}
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch {
		case yaml && q == '\'' && s[i] == '\'' && i+1 < len(s) && s[i+1] == '\'':
			b.WriteByte('\'')
			i++
		case s[i] == '\\' && i+1 < len(s) && !(yaml && q == '\''):
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(s[i])
			}
		case s[i] == q:
			return b.String()
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

var xmlEntities = strings.NewReplacer("&quot;", `"`, "&apos;", "'", "&lt;", "<", "&gt;", ">", "&amp;", "&")

func xmlUnescape(s string) string { return xmlEntities.Replace(s) }

// nginxStrings joins the quoted pieces of a log_format's value ('a' 'b';).
func nginxStrings(s string) string {
	s = strings.TrimSuffix(strings.TrimSpace(s), ";")
	var b strings.Builder
	for len(s) > 0 {
		s = strings.TrimSpace(s)
		if s == "" || (s[0] != '\'' && s[0] != '"') {
			b.WriteString(s)
			break
		}
		end := strings.IndexByte(s[1:], s[0])
		if end < 0 {
			b.WriteString(s[1:])
			break
		}
		b.WriteString(s[1 : end+1])
		s = s[end+2:]
	}
	return b.String()
}

// guessServer tells nginx from Apache where no server is named: by the
// directive pasted with the line, else by $variables or %directives. A
// line in another server's language is named as such, with the flag that
// reads it.
func guessServer(s string) (string, error) {
	t := strings.TrimSpace(s)
	for _, server := range []string{"nginx", "apache"} {
		if wrappers[server].MatchString(t) {
			return server, nil
		}
	}
	for _, server := range []string{"lighttpd", "squid", "haproxy"} {
		if wrappers[server].MatchString(t) {
			return server, nil
		}
	}
	switch {
	case strings.Contains(t, "pattern="):
		return "", errorf("log format %q: a Tomcat AccessLogValve pattern: give the server's version, {server} tomcat10 (Tomcat 10 and later: %%D in µs) or {server} tomcat9 (Tomcat 9 and earlier: %%D in ms)", s)
	case strings.Contains(t, "%<"):
		return "trafficserver", nil
	case envoyOp.MatchString(t):
		return "envoy", nil
	}
	hasVar, hasDirective := nginxVar.MatchString(t), strings.Contains(t, "%")
	switch {
	case hasVar && !hasDirective:
		return "nginx", nil
	case hasDirective && !hasVar:
		return "apache", nil
	}
	return "", errorf("log format %q: want an nginx log_format ($remote_addr …) or an Apache LogFormat (%%h …); for another server's format line, name the server with {server} (%s)", s, ServerNames)
}

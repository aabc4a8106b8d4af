package analyze

import "strings"

// Header is a column heading for people: the name, and the unit in
// parentheses unless the name already states it (p95_ms, not p95_ms (ms);
// requests, not requests (requests); ok_share, not ok_share (%)). The
// analyze table and the report's tables both head their columns with it.
func Header(name, unit string) string {
	if unit == "" || NameStatesUnit(name, unit) {
		return name
	}
	return name + " (" + unit + ")"
}

// unitWords are the name endings that state a unit, beyond the unit itself.
var unitWords = map[string][]string{
	"ms":    {"ms"},
	"s":     {"s"},
	"share": {"share", "pct", "percent"},
	"%":     {"share", "pct", "percent"},
	"req/s": {"rps", "per_s"},
}

// NameStatesUnit reports whether name is the unit or ends in "_" and a word
// for it (a rate calls/tick as calls_per_tick): the column's name already
// tells a reader its unit.
func NameStatesUnit(name, unit string) bool {
	words := append([]string{unit, strings.ReplaceAll(unit, "/", "_per_")}, unitWords[unit]...)
	for _, w := range words {
		if name == w || strings.HasSuffix(name, "_"+w) {
			return true
		}
	}
	return false
}

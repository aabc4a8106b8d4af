// Package textsafe escapes text from the data for a terminal or a text
// file.
package textsafe

import (
	"fmt"
	"strings"
	"unicode"
)

// Clean escapes control characters (ESC, BEL, CR, tabs, newlines inside a
// cell) as \xNN, so that text from the data stays on its line and cannot move
// the cursor or retitle the terminal. Every text output uses it: report
// text, rewind sql and analyze tables, notebook markdown.
func Clean(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			fmt.Fprintf(&b, `\x%02x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Package textsafe escapes text from the data for a terminal or a text
// file.
package textsafe

import (
	"fmt"
	"strings"
	"unicode"
)

// Clean escapes control characters (ESC, BEL, CR, tabs, newlines inside a
// cell) as \xNN, and the bidirectional controls (U+202E RIGHT-TO-LEFT
// OVERRIDE and its kin) as \uNNNN, so that text from the data stays on its
// line, cannot move the cursor or retitle the terminal, and cannot show its
// characters in another order than they are. Every text output uses it:
// report text, rewind sql and analyze tables, notebook markdown.
func Clean(s string) string {
	if strings.IndexFunc(s, unsafe) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsControl(r) && r <= 0xff:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafe(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// unsafe is a control character or a bidirectional formatting character
// (Unicode's Bidi_Control: U+061C, U+200E, U+200F, U+202A–U+202E,
// U+2066–U+2069).
func unsafe(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
}

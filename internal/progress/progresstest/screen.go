// Package progresstest reads progress output as a person sees it, for the
// tests of the bars and of the commands that draw them.
package progresstest

import "strings"

// Screen is what a terminal shows after out: a carriage return goes back
// to the line's start and later characters overwrite it; trailing blanks
// are dropped, as a person does not see them.
func Screen(out string) []string {
	lines := [][]rune{nil}
	col := 0
	for _, r := range out {
		cur := &lines[len(lines)-1]
		switch r {
		case '\r':
			col = 0
		case '\n':
			lines, col = append(lines, nil), 0
		default:
			if col < len(*cur) {
				(*cur)[col] = r
			} else {
				*cur = append(*cur, r)
			}
			col++
		}
	}
	shown := make([]string, len(lines))
	for i, l := range lines {
		shown[i] = strings.TrimRight(string(l), " ")
	}
	return shown
}

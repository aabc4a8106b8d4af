package textsafe

import "testing"

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"plain é 日本":          "plain é 日本",
		"a\x1b[2Jb\n":         `a\x1b[2Jb\x0a`,
		"\u0085next":          `\x85next`,
		"user\u202Egnp.exe":   `user\u202egnp.exe`,
		"\u2066x\u2069\u200f": `\u2066x\u2069\u200f`,
		"\u061c":              `\u061c`,
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

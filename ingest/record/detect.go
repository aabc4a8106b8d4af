package record

import (
	"bytes"
	"path/filepath"
	"strings"

	json "github.com/goccy/go-json"
)

// Stdin is the name standard input goes by among the inputs.
const Stdin = "-"

// HeadBytes is how much of a (decompressed) input detection looks at: a
// Detect's head is shorter only when the whole input is.
const HeadBytes = 64 << 10

// JSONText is head without a byte-order mark and leading white space.
func JSONText(head []byte) []byte {
	return bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
}

func Magic(prefix string) func(string, []byte) bool {
	return func(_ string, head []byte) bool { return bytes.HasPrefix(head, []byte(prefix)) }
}

func HasExt(name string, exts ...string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	for _, e := range exts {
		if ext == e {
			return true
		}
	}
	return false
}

// FirstLine is the first line of head, without its line end.
func FirstLine(head []byte) []byte {
	line, _, _ := bytes.Cut(JSONText(head), []byte("\n"))
	return bytes.TrimRight(line, "\r")
}

// FirstObject is the first line of head as a JSON object's members, or nil
// when that line is not one (the shape the JSON line formats detect by).
func FirstObject(head []byte) map[string]json.RawMessage {
	line := FirstLine(head)
	if len(line) == 0 || line[0] != '{' {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return nil
	}
	return m
}

// RunName is the run a file stands for when --experiment gathers files:
// its name without folder and extensions.
func RunName(path string) string { return Stem(path) }

func Stem(path string) string {
	if path == Stdin {
		return "stdin"
	}
	base := filepath.Base(path)
	for {
		ext := filepath.Ext(base)
		if ext == "" || ext == base {
			return base
		}
		base = strings.TrimSuffix(base, ext)
	}
}

package notebook

import (
	"fmt"
	"regexp"
	"strings"
)

// part is a piece of the notebook: markdown prose kept byte for byte, or an
// SQL cell.
type part struct {
	prose string
	cell  *Cell
}

// Cell is one fenced ```sql block and, after Run, its result.
type Cell struct {
	Line  int    // 1-based line of the opening fence, for error messages
	Fence string // the opening fence line as written, with its newline
	SQL   string
	Close string // the closing fence line as written, with its newline
	Name  string // from name=: later cells can query the result by this name
	Chart string // from chart=: "line", "bar" or "step"; empty for a table
	X     string // from x=: the chart's X column
	Y     []string
	// Result is set by Run.
	Result *Result
}

// fenceOpen matches a CommonMark fence opener: up to three spaces, three or
// more backticks or tildes, then the info string.
var fenceOpen = regexp.MustCompile("^( {0,3})(`{3,}|~{3,})(.*)$")

// parse splits src into prose and SQL cells. Fenced blocks in other
// languages stay prose, so SQL shown as an example is never run.
func parse(name, src string) ([]part, error) {
	var parts []part
	var prose strings.Builder
	lines := strings.SplitAfter(src, "\n")
	for i := 0; i < len(lines); i++ {
		m := fenceOpen.FindStringSubmatch(strings.TrimRight(lines[i], "\r\n"))
		if m == nil || (m[2][0] == '`' && strings.Contains(m[3], "`")) {
			prose.WriteString(lines[i])
			continue
		}
		end := closingFence(lines, i+1, m[2])
		info := strings.Fields(m[3])
		if len(info) == 0 || !strings.EqualFold(info[0], "sql") {
			for ; i < end && i < len(lines); i++ {
				prose.WriteString(lines[i])
			}
			if i < len(lines) {
				prose.WriteString(lines[i])
			}
			continue
		}
		if end == len(lines) {
			return nil, fmt.Errorf("%s:%d: sql cell: no closing %s", name, i+1, m[2])
		}
		c, err := newCell(lines, i, end, info[1:])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: sql cell: %w", name, i+1, err)
		}
		parts = append(parts, part{prose: prose.String()}, part{cell: c})
		prose.Reset()
		i = end
	}
	return append(parts, part{prose: prose.String()}), nil
}

// closingFence returns the index of the line that closes a fence opened with
// marker, or len(lines) when none does.
func closingFence(lines []string, from int, marker string) int {
	for j := from; j < len(lines); j++ {
		s := strings.TrimRight(lines[j], " \t\r\n")
		t := strings.TrimLeft(s, " ")
		if len(s)-len(t) > 3 || len(t) < len(marker) {
			continue
		}
		if strings.Trim(t, marker[:1]) == "" {
			return j
		}
	}
	return len(lines)
}

func newCell(lines []string, open, end int, opts []string) (*Cell, error) {
	c := &Cell{
		Line:  open + 1,
		Fence: lines[open],
		SQL:   strings.Join(lines[open+1:end], ""),
		Close: lines[end],
	}
	if strings.TrimSpace(c.SQL) == "" {
		return nil, fmt.Errorf("empty cell")
	}
	return c, c.setOptions(opts)
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// setOptions reads key=value options. Unknown keys are errors: a typo such
// as chrt=line would otherwise silently give a table.
func (c *Cell) setOptions(opts []string) error {
	for _, o := range opts {
		k, v, ok := strings.Cut(o, "=")
		if !ok || v == "" {
			return fmt.Errorf("option %q: want key=value", o)
		}
		switch k {
		case "name":
			if !identifier.MatchString(v) {
				return fmt.Errorf("name=%s: want a plain SQL identifier (letters, digits, _)", v)
			}
			c.Name = v
		case "chart":
			if v != "line" && v != "bar" && v != "step" {
				return fmt.Errorf("chart=%s: want line, bar or step", v)
			}
			c.Chart = v
		case "x":
			c.X = v
		case "y":
			c.Y = strings.Split(v, ",")
		default:
			return fmt.Errorf("unknown option %q (known: name, chart, x, y)", k)
		}
	}
	return c.checkChart()
}

func (c *Cell) checkChart() error {
	switch {
	case c.Chart == "" && (c.X != "" || len(c.Y) > 0):
		return fmt.Errorf("x= and y= need chart=line, bar or step")
	case c.Chart != "" && (c.X == "" || len(c.Y) == 0):
		return fmt.Errorf("chart=%s needs x=COLUMN and y=COLUMN[,COLUMN]", c.Chart)
	}
	return nil
}

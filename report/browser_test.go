package report

import (
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/report/pagetest"
)

func TestBrowserDrawsCharts(t *testing.T) {
	browser := pagetest.Chromium(t)
	d := sampleDocument()
	p := pagetest.Load(t, browser, renderHTML(t, d))
	pagetest.CheckDrawn(t, p, seriesNames(d))
	if _, ok := p.Attrs["data-test-alerted"]; ok {
		t.Error("the hostile run name ran as script")
	}
	if strings.Contains(p.DOM, hostile) {
		t.Error("the hostile run name is markup in the DOM")
	}
	const asText = "&lt;script&gt;alert(1)&lt;/script&gt;"
	for _, where := range []string{"<td>" + asText + "</td>", "run " + asText} {
		if !strings.Contains(p.DOM, where) {
			t.Errorf("DOM lacks the hostile name as text: %q", where)
		}
	}
}

// TestBrowserCatchesOverflow proves the width check can fail: a table whose
// cells cannot wrap is wider than the window.
func TestBrowserCatchesOverflow(t *testing.T) {
	browser := pagetest.Chromium(t)
	row := []Value{}
	var cols []Column
	for range 40 {
		cols = append(cols, Column{Name: "a_very_long_column_name"})
		row = append(row, 123456789.5)
	}
	d := Document{Sections: []Section{{Tables: []Table{{Columns: cols, Rows: [][]Value{row}}}}}}
	p := pagetest.Load(t, browser, renderHTML(t, d))
	if len(p.Wide()) == 0 {
		t.Error("a 40-column table was not reported wider than the window")
	}
}

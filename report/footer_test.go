package report

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestFooter: the version and the date the caller gives (UTC, RFC 3339)
// close the report in both renderings; without them there is no footer.
func TestFooter(t *testing.T) {
	at := time.Date(2026, 12, 2, 21, 40, 0, 0, time.FixedZone("CET", 3600))
	cases := []struct {
		o    Options
		want string
	}{
		{Options{Version: "v1.2.0", Date: at}, "Made by rewind v1.2.0 on 2026-12-02T20:40:00Z"},
		{Options{Version: "devel"}, "Made by rewind devel"},
		{Options{Date: at}, "Made by rewind on 2026-12-02T20:40:00Z"},
		{Options{}, ""},
	}
	for _, c := range cases {
		if got := footer(c.o); got != c.want {
			t.Errorf("footer(%+v) = %q, want %q", c.o, got, c.want)
		}
	}
	d := Document{Title: "t", Footer: "Made by rewind <v1>"}
	var text, page bytes.Buffer
	if err := RenderText(&text, d); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(text.String(), "\n--\nMade by rewind <v1>\n") {
		t.Errorf("text does not end with the footer:\n%s", text.String())
	}
	if err := RenderHTML(&page, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "<footer>Made by rewind &lt;v1&gt;</footer>") {
		t.Errorf("page has no escaped footer")
	}
	page.Reset()
	if err := RenderHTML(&page, Document{Title: "t"}); err != nil || strings.Contains(page.String(), "<footer>") {
		t.Errorf("a page without a footer has one (err %v)", err)
	}
}

// Package pagetest loads an HTML page of report in headless Chromium
// and reports what a reader would see: whether every chart drew and has
// ink, what each chart's legend says, which tables overflow the window,
// and any script error. Tests of the report package and of the report
// builder use it; nothing else should.
package pagetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Width is the browser window's width in CSS pixels: a laptop screen.
const Width = 1400

// probe is injected at the top of <head> of the page under test only. It
// records script errors, console.error calls and alert() into attributes of
// <html>, and after the page has drawn it counts the chart canvases that hold
// colored pixels (series, not just grey axes and grid), reads each legend as
// shown, and lists the tables wider than their box or the window.
const probe = `<script>
(function () {
  var root = document.documentElement, errors = [];
  function record(msg) { errors.push(String(msg)); root.setAttribute("data-test-errors", JSON.stringify(errors)); }
  window.addEventListener("error", function (e) { record(e.message); });
  var consoleError = console.error;
  console.error = function () { record([].join.call(arguments, " ")); consoleError.apply(console, arguments); };
  window.alert = function () { root.setAttribute("data-test-alerted", "yes"); };
  window.addEventListener("load", function () { setTimeout(function () {
    var figures = document.querySelectorAll("figure.chart"), inked = 0, legends = [], wide = [], banded = [];
    figures.forEach(function (f) {
      var shown = [];
      f.querySelectorAll(".u-legend .u-series").forEach(function (s) {
        if (s.offsetParent !== null) { shown.push(s.innerText.replace(/\s+/g, " ").trim()); }
      });
      legends.push(shown);
      var c = f.querySelector("canvas");
      if (!c) { return; }
      var px = c.getContext("2d").getImageData(0, 0, c.width, c.height).data, n = 0, band = 0;
      for (var i = 0; i < px.length; i += 4) {
        var hi = Math.max(px[i], px[i+1], px[i+2]), lo = Math.min(px[i], px[i+1], px[i+2]);
        if (px[i+3] > 0 && hi - lo > 60) { n++; }
        // The fault band: report.js's faint orange, alone on the canvas.
        if (px[i+3] > 25 && px[i+3] < 60 && px[i] > 240 && px[i+1] > 100 && px[i+1] < 150 && px[i+2] < 40) { band++; }
      }
      if (n > 200) { inked++; }
      if (band > 200) { banded.push(legends.length - 1); }
    });
    var page = root.clientWidth;
    document.querySelectorAll(".table-wrap").forEach(function (w, i) {
      var t = w.querySelector("table"), right = t.getBoundingClientRect().right;
      if (t.offsetWidth > w.clientWidth || right > page) { wide.push("table " + (i + 1) + ": " + t.offsetWidth + " px in " + w.clientWidth + " px"); }
    });
    if (root.scrollWidth > page) { wide.push("page: " + root.scrollWidth + " px in " + page + " px"); }
    root.setAttribute("data-test-inked", inked + "/" + figures.length);
    root.setAttribute("data-test-legends", JSON.stringify(legends));
    root.setAttribute("data-test-wide", JSON.stringify(wide));
    root.setAttribute("data-test-banded", JSON.stringify(banded));
  }, 50); });
})();
</script>`

// Page is what Chromium showed.
type Page struct {
	DOM   string            // the DOM after scripts ran
	Log   string            // Chromium's log, console messages included
	Attrs map[string]string // attributes of <html>, set by the page and the probe
}

// Legends is, per chart in page order, the legend's entries as shown
// (hidden ones left out), e.g. "control run".
func (p Page) Legends() [][]string {
	var out [][]string
	_ = json.Unmarshal([]byte(p.Attrs["data-test-legends"]), &out)
	return out
}

// Banded lists the charts (0-based, in page order) whose canvas shows a
// shaded band, such as the fault window.
func (p Page) Banded() []int {
	out := []int{}
	_ = json.Unmarshal([]byte(p.Attrs["data-test-banded"]), &out)
	return out
}

// Wide lists the tables (and the page) wider than the window.
func (p Page) Wide() []string {
	var out []string
	_ = json.Unmarshal([]byte(p.Attrs["data-test-wide"]), &out)
	return out
}

// Chromium finds the browser, or skips the test unless REWIND_BROWSER_TEST=1
// says the browser test must run (CI).
func Chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "/usr/bin/chromium", "chromium-browser"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("REWIND_BROWSER_TEST") == "1" {
		t.Fatal("REWIND_BROWSER_TEST=1 but chromium is not installed (apt-get install -y chromium)")
	}
	t.Skip("chromium not installed; set REWIND_BROWSER_TEST=1 to make this a failure")
	return ""
}

// Load opens the page, probe injected, from disk in headless Chromium at
// Width pixels and returns what it showed.
func Load(t *testing.T, browser, page string) Page {
	t.Helper()
	page = strings.Replace(page, "<head>", "<head>\n"+probe, 1)
	dir, err := os.MkdirTemp("", "rewind-browser-")
	if err != nil {
		t.Fatal(err)
	}
	// Chromium's helpers may still write the profile as it exits, so removal
	// is best effort rather than t.TempDir's strict cleanup.
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-quic", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--enable-logging=stderr", "--v=0", fmt.Sprintf("--window-size=%d,2000", Width),
		"--virtual-time-budget=5000", "--dump-dom", "file://"+file)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	return Page{DOM: stdout.String(), Log: stderr.String(), Attrs: htmlAttributes(t, stdout.String())}
}

// CheckDrawn fails the test unless all charts (want of them) drew with ink,
// no script failed, no console message was logged, every legend names its
// series without uPlot's "--" placeholder, and no table is wider than the
// window. names holds each chart's series names, in page order.
func CheckDrawn(t *testing.T, p Page, names [][]string) {
	t.Helper()
	want := fmt.Sprintf("%d/%d", len(names), len(names))
	if got := p.Attrs["data-charts-drawn"]; got != want {
		t.Errorf("data-charts-drawn = %q, want %s", got, want)
	}
	if got := p.Attrs["data-test-inked"]; got != want {
		t.Errorf("canvases with drawn series = %q, want %s", got, want)
	}
	if got, ok := p.Attrs["data-test-errors"]; ok {
		t.Errorf("script errors: %s", got)
	}
	for _, line := range strings.Split(p.Log, "\n") {
		if strings.Contains(line, ":CONSOLE") {
			t.Errorf("console message: %s", line)
		}
	}
	legends := p.Legends()
	if len(legends) != len(names) {
		t.Errorf("%d legends, want %d", len(legends), len(names))
	}
	for i := 0; i < len(legends) && i < len(names); i++ {
		if got, want := strings.Join(legends[i], " | "), strings.Join(names[i], " | "); got != want {
			t.Errorf("chart %d: legend %q, want the series names %q", i+1, got, want)
		}
	}
	for _, w := range p.Wide() {
		t.Errorf("wider than the %d px window: %s", Width, w)
	}
}

var htmlTag = regexp.MustCompile(`<html([^>]*)>`)
var attr = regexp.MustCompile(`([a-z-]+)="([^"]*)"`)

// htmlAttributes parses the attributes of the dumped DOM's <html> element.
func htmlAttributes(t *testing.T, dom string) map[string]string {
	t.Helper()
	m := htmlTag.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("no <html> element in chromium's DOM dump:\n%.500s", dom)
	}
	out := map[string]string{}
	for _, a := range attr.FindAllStringSubmatch(m[1], -1) {
		out[a[1]] = html.UnescapeString(a[2])
	}
	return out
}

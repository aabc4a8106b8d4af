package report

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// probe is injected at the top of <head> of the page under test only. It
// records script errors, console.error calls and alert() into attributes of
// <html>, and after the page has drawn it counts the chart canvases that hold
// colored pixels (series, not just grey axes and grid).
const probe = `<script>
(function () {
  var root = document.documentElement, errors = [];
  function record(msg) { errors.push(String(msg)); root.setAttribute("data-test-errors", JSON.stringify(errors)); }
  window.addEventListener("error", function (e) { record(e.message); });
  var consoleError = console.error;
  console.error = function () { record([].join.call(arguments, " ")); consoleError.apply(console, arguments); };
  window.alert = function () { root.setAttribute("data-test-alerted", "yes"); };
  window.addEventListener("load", function () { setTimeout(function () {
    var figures = document.querySelectorAll("figure.chart"), inked = 0;
    figures.forEach(function (f) {
      var c = f.querySelector("canvas");
      if (!c) { return; }
      var px = c.getContext("2d").getImageData(0, 0, c.width, c.height).data, n = 0;
      for (var i = 0; i < px.length; i += 4) {
        var hi = Math.max(px[i], px[i+1], px[i+2]), lo = Math.min(px[i], px[i+1], px[i+2]);
        if (px[i+3] > 0 && hi - lo > 60) { n++; }
      }
      if (n > 200) { inked++; }
    });
    root.setAttribute("data-test-inked", inked + "/" + figures.length);
  }, 50); });
})();
</script>`

// chromium finds the browser, or skips the test unless REWIND_BROWSER_TEST=1
// says the browser test must run (CI).
func chromium(t *testing.T) string {
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

// loadInBrowser opens the page from disk in headless Chromium and returns the
// DOM after scripts ran, and Chromium's log (console messages included).
func loadInBrowser(t *testing.T, browser, page string) (dom, log string) {
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
		"--enable-logging=stderr", "--v=0", "--window-size=1200,2000",
		"--virtual-time-budget=5000", "--dump-dom", "file://"+file)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	return stdout.String(), stderr.String()
}

func TestBrowserDrawsCharts(t *testing.T) {
	browser := chromium(t)
	page := renderHTML(t, sampleDocument())
	page = strings.Replace(page, "<head>", "<head>\n"+probe, 1)
	dom, log := loadInBrowser(t, browser, page)

	attrs := htmlAttributes(t, dom)
	if got := attrs["data-charts-drawn"]; got != "3/3" {
		t.Errorf("data-charts-drawn = %q, want 3/3", got)
	}
	if got := attrs["data-test-inked"]; got != "3/3" {
		t.Errorf("canvases with drawn series = %q, want 3/3", got)
	}
	if got, ok := attrs["data-test-errors"]; ok {
		t.Errorf("script errors: %s", got)
	}
	if _, ok := attrs["data-test-alerted"]; ok {
		t.Error("the hostile run name ran as script")
	}
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, ":CONSOLE") {
			t.Errorf("console message: %s", line)
		}
	}
	if strings.Contains(dom, hostile) {
		t.Error("the hostile run name is markup in the DOM")
	}
	const asText = "&lt;script&gt;alert(1)&lt;/script&gt;"
	for _, where := range []string{"<td>" + asText + "</td>", "run " + asText} {
		if !strings.Contains(dom, where) {
			t.Errorf("DOM lacks the hostile name as text: %q", where)
		}
	}
}

var htmlTag = regexp.MustCompile(`<html([^>]*)>`)
var attr = regexp.MustCompile(`([a-z-]+)="([^"]*)"`)

// htmlAttributes parses the attributes of the dumped DOM's <html> element.
func htmlAttributes(t *testing.T, dom string) map[string]string {
	m := htmlTag.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("no <html> element in chromium's DOM dump:\n%.500s", dom)
	}
	out := map[string]string{}
	for _, a := range attr.FindAllStringSubmatch(m[1], -1) {
		out[a[1]] = strings.ReplaceAll(a[2], "&quot;", `"`)
	}
	return out
}

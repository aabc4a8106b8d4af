package analyze

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rewind-dev/rewind/hypothesis"
	"github.com/rewind-dev/rewind/internal/param"
)

// hypothesisCase is one data-driven case of testdata/thresholds,
// testdata/threshold-windows or testdata/burn-rate: a tiny log, the
// options, and the CSV the analysis must print, with its notes.
//
//	# comment (also after a directive: " # ...")
//	req RUN T_MS LATENCY_MS OUTCOME [key=value ...]   a request (status=504, count=3, other keys go to attrs)
//	point RUN METRIC T_MS VALUE [key=value ...]       a k6 point (RUN - for none: every run of the file)
//	metric NAME TYPE                                  a k6 metric definition
//	threshold METRIC: EXPRESSION                      thresholds (repeatable)
//	every 2s | window 4s | sliding | duration 10s     thresholds options
//	slo 99% | rules 1s/4s>5 | good SQL | step 1s | period 1h | partial
//	expect                                            then the CSV, then "note: ..." lines
type hypothesisCase struct {
	log  []string
	th   ThresholdsOptions
	br   BurnRateOptions
	hy   hypothesisCaseOptions
	want string
}

// hypothesisCaseOptions are a testdata/hypotheses case's:
//
//	falsification | stop-damage                     the analysis
//	role RUN ROLE                                   a run record
//	event TYPE T_MS [SUBJECT]                       an event (e.g. action_start)
//	windows 2 | windows 1s                          the window
//	judge METRIC                                    --metric
//	bound KIND TEXT                                 --margin(s), --tolerance, --max, --min (repeatable: swept)
//	control RUN | treatment RUN | baseline-until X  the sides
//	k 1,2                                           stop-damage's k
type hypothesisCaseOptions struct {
	analysis string
	window   hypothesis.Window
	hyp      hypothesis.Hypothesis
	bounds   []hypothesis.Bound
	ks       []int64
	err      error
}

func readHypothesisCase(t *testing.T, path string) hypothesisCase {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := hypothesisCase{log: []string{`{"record":"experiment","experiment":"case"}`}}
	lines := strings.Split(string(raw), "\n")
	for i, line := range lines {
		line = strings.TrimSpace(line)
		if line == "expect" {
			c.want = strings.TrimSpace(strings.Join(lines[i+1:], "\n")) + "\n"
			break
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if before, _, ok := strings.Cut(line, " # "); ok {
			line = strings.TrimSpace(before)
		}
		if err := c.directive(line); err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
	}
	return c
}

func (c *hypothesisCase) directive(line string) error {
	word, rest, _ := strings.Cut(line, " ")
	f := strings.Fields(rest)
	var err error
	switch word {
	case "req":
		return c.request(f)
	case "point":
		return c.point(f)
	case "metric":
		c.log = append(c.log, fmt.Sprintf(`{"record":"event","experiment":"case","run":"","type":"k6_metric","subject":%q,"state":%q}`, f[0], f[1]))
	case "threshold":
		var th Threshold
		th, err = ParseThreshold(rest)
		c.th.Thresholds = append(c.th.Thresholds, th)
	case "every":
		c.th.Every, err = hypothesis.ParseLongDuration(rest)
	case "window":
		c.th.Window, err = hypothesis.ParseLongDuration(rest)
	case "sliding":
		c.th.Sliding = true
	case "duration":
		c.th.Duration, err = hypothesis.ParseLongDuration(rest)
	case "slo":
		c.br.SLO, err = hypothesis.ParseSLO(rest)
	case "rules":
		c.br.Rules, err = hypothesis.ParseBurnRules(rest)
	case "good":
		c.br.Good = rest
	case "step":
		c.br.Step, err = hypothesis.ParseLongDuration(rest)
	case "period":
		c.br.Period, err = hypothesis.ParseLongDuration(rest)
	case "partial":
		c.br.Partial = true
	case "falsification", "stop-damage":
		c.hy.analysis = word
	case "role":
		c.log = append(c.log, fmt.Sprintf(`{"record":"run","experiment":"case","run":%q,"role":%q}`, f[0], f[1]))
	case "event":
		subject := ""
		if len(f) > 2 {
			subject = f[2]
		}
		c.log = append(c.log, fmt.Sprintf(`{"record":"event","experiment":"case","run":"","type":%q,"t_ms":%s,"subject":%q}`, f[0], f[1], subject))
	case "windows":
		c.hy.window, err = hypothesis.ParseWindow(rest)
	case "judge":
		c.hy.hyp.Metric = rest
	case "bound":
		var b hypothesis.Bound
		if len(f) != 2 {
			return fmt.Errorf("want bound KIND TEXT")
		}
		metric := c.hy.hyp.Metric
		if metric == "" {
			metric = "ok_share"
		}
		b, err = hypothesis.ParseBound(f[0], f[1], metric)
		c.hy.bounds = append(c.hy.bounds, b)
	case "control":
		c.hy.hyp.Control = rest
	case "treatment":
		c.hy.hyp.Treatment = rest
	case "baseline-until":
		c.hy.hyp.BaselineUntil = rest
	case "k":
		for _, p := range strings.Split(rest, ",") {
			k, err := strconv.ParseInt(p, 10, 64)
			if err != nil {
				return err
			}
			c.hy.ks = append(c.hy.ks, k)
		}
	default:
		return fmt.Errorf("cannot read %q", line)
	}
	return err
}

func (c *hypothesisCase) request(f []string) error {
	if len(f) < 4 {
		return fmt.Errorf("want req RUN T_MS LATENCY_MS OUTCOME")
	}
	rec := map[string]any{"experiment": "case", "run": f[0], "outcome": f[3]}
	for i, k := range []string{"t_ms", "latency_ms"} {
		if f[1+i] == "-" {
			continue
		}
		n, err := strconv.ParseFloat(f[1+i], 64)
		if err != nil {
			return err
		}
		rec[k] = n
	}
	if f[3] == "-" {
		delete(rec, "outcome")
	}
	return c.add(rec, f[4:], rec)
}

func (c *hypothesisCase) point(f []string) error {
	if len(f) < 4 {
		return fmt.Errorf("want point RUN METRIC T_MS VALUE")
	}
	run := f[0]
	if run == "-" {
		run = ""
	}
	t, err := strconv.ParseFloat(f[2], 64)
	if err != nil {
		return err
	}
	attrs := map[string]any{}
	rec := map[string]any{"record": "event", "experiment": "case", "run": run, "type": "k6_point",
		"t_ms": t, "subject": f[1], "state": f[3], "attrs": attrs}
	return c.add(rec, f[4:], attrs)
}

// add sets key=value pairs (numbers stay numbers, _ is a space) on into and
// writes rec.
func (c *hypothesisCase) add(rec map[string]any, kvs []string, into map[string]any) error {
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("want key=value, got %q", kv)
		}
		v = strings.ReplaceAll(v, "_", " ")
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			into[k] = n
		} else if b, err := strconv.ParseBool(v); err == nil && (v == "true" || v == "false") {
			into[k] = b
		} else {
			into[k] = v
		}
	}
	b, err := json.Marshal(rec)
	c.log = append(c.log, string(b))
	return err
}

// asFlag names a parameter as the CLI's flag: the goldens read as the CLI
// prints.
func asFlag(p string) string { return "--" + p }

// csvWithNotes is what a case expects: the CSV, then the notes.
func csvWithNotes(t *testing.T, r *Result) string {
	t.Helper()
	var b strings.Builder
	if err := Write(&b, r, "csv"); err != nil {
		t.Fatal(err)
	}
	for _, n := range r.SayNotes(asFlag) {
		b.WriteString("note: " + n + "\n")
	}
	return b.String()
}

func runHypothesisCases(t *testing.T, dir string, run func(*testing.T, hypothesisCase) (*Result, error)) {
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases in testdata/%s: %v", dir, err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			c := readHypothesisCase(t, f)
			r, err := run(t, c)
			got := ""
			if err != nil {
				got = "error: " + param.Say(err, asFlag) + "\n"
			} else {
				got = csvWithNotes(t, r)
			}
			if *updateCases && dir == "hypotheses" {
				// The cases of that folder are approved by reading them: -update
				// writes what the analysis says after "expect".
				raw, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				head, _, _ := strings.Cut(string(raw), "\nexpect\n")
				if err := os.WriteFile(f, []byte(head+"\nexpect\n"+got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", f, diff)
			}
		})
	}
}

func TestThresholdCases(t *testing.T) {
	run := func(t *testing.T, c hypothesisCase) (*Result, error) {
		return Thresholds(logsDB(t, strings.Join(c.log, "\n")+"\n"), c.th)
	}
	runHypothesisCases(t, "thresholds", run)
	runHypothesisCases(t, "threshold-windows", run)
}

func TestBurnRateCases(t *testing.T) {
	runHypothesisCases(t, "burn-rate", func(t *testing.T, c hypothesisCase) (*Result, error) {
		return BurnRate(logsDB(t, strings.Join(c.log, "\n")+"\n"), c.br)
	})
}

// TestHypothesisCases runs the data-driven cases of testdata/hypotheses:
// every metric and threshold form, with ties, through falsification and
// stop-damage.
func TestHypothesisCases(t *testing.T) {
	runHypothesisCases(t, "hypotheses", func(t *testing.T, c hypothesisCase) (*Result, error) {
		db := logsDB(t, strings.Join(c.log, "\n")+"\n")
		switch c.hy.analysis {
		case "falsification":
			return Falsification(db, FalsificationOptions{Window: c.hy.window, Hypothesis: c.hy.hyp, Bounds: c.hy.bounds})
		case "stop-damage":
			o := StopDamageOptions{Window: c.hy.window, Hypothesis: c.hy.hyp, Ks: c.hy.ks}
			if len(c.hy.bounds) > 0 {
				o.Bound = &c.hy.bounds[0]
			}
			return StopDamage(db, o)
		}
		t.Fatal("the case names no analysis: falsification or stop-damage")
		return nil, nil
	})
}

var updateCases = flag.Bool("update-cases", false, "write testdata/hypotheses expectations from the analyses (approve them by reading)")

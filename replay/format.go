package replay

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/rewind-dev/rewind/hypothesis"
)

// Printer writes verdicts as they are decided, one line each, so a paced
// replay or a watch shows every window the moment it closes.
//
// The table has the columns window (1-based), requests, ok (requests),
// ok_share and threshold (shares, shown as %), falsified (yes/no), streak
// (windows), damage_so_far (tagged requests not ok, cumulative) and stop
// ("STOP" on the stopping window). As data (json, csv), a verdict is
// RowColumns and RowValues.
type Printer struct {
	w      io.Writer
	buf    *bufio.Writer // with Buffer: lines wait here until Flush
	headed bool
	metric string // "" and ok_share: the seed's columns
	line   []byte // the table line being written, reused

	// the threshold's text, kept while the verdicts carry the same one
	thr     *big.Rat
	thrText string
}

// Buffer makes the printer collect lines and write them in blocks, for a
// replay that does not wait between windows (a line a write cost a second
// over 1.25 M windows); Flush writes what is left.
func (p *Printer) Buffer() {
	if p.buf == nil {
		p.buf = bufio.NewWriterSize(p.w, 64<<10)
	}
}

// Flush writes the lines Buffer kept back.
func (p *Printer) Flush() error {
	if p.buf == nil {
		return nil
	}
	return p.buf.Flush()
}

func (p *Printer) out() io.Writer {
	if p.buf != nil {
		return p.buf
	}
	return p.w
}

// SetMetric names the metric the verdicts judge: for any but ok_share the
// fourth column is that metric's value.
func (p *Printer) SetMetric(metric string) {
	if metric != "ok_share" {
		p.metric = metric
	}
}

// NewPrinter returns a Printer of the table; "table" is the one format
// it writes (json and csv are rows: RowColumns and RowValues).
func NewPrinter(w io.Writer, format string) (*Printer, error) {
	if format != "" && format != "table" {
		return nil, fmt.Errorf("format %q: the printer writes the table", format)
	}
	return &Printer{w: w}, nil
}

var columns = []string{"window", "requests", "ok", "ok_share", "threshold", "falsified", "streak", "damage_so_far", "stop"}

// widths fit the headers and the values a window can have (a share is at
// most "100.00 %").
var widths = []int{6, 8, 6, 8, 9, 9, 6, 13, 4}

// RowColumns are a verdict's fields as data (--format json and csv), in
// RowValues's order: window, requests, ok, ok_share (0-1), threshold, then
// falsified, streak, damage_so_far and stop (true on the stopping window
// only). For a metric other than ok_share, metric and value (in the
// metric's unit, as is threshold) come after ok_share.
func RowColumns(metric string) []string {
	if metric == "" || metric == "ok_share" {
		return columns
	}
	return slices.Concat(columns[:4], []string{"metric", "value"}, columns[4:])
}

// RowValues is v as data, in RowColumns's order: shares 0-1, latency in
// ms, nil where there is no value.
func RowValues(v Verdict, metric string) []any {
	row := []any{v.Window, v.Requests, v.OK, ratFloat(v.OKShare)}
	if metric != "" && metric != "ok_share" {
		row = append(row, metric, ratFloat(inUnit(v.Value, metric)))
	}
	return append(row, ratFloat(inUnit(v.Threshold, metric)), v.Falsified, int64(v.Streak), v.DamageSoFar, v.Stop)
}

// ratFloat is r as the nearest float64, nil for none.
func ratFloat(r *big.Rat) any {
	if r == nil {
		return nil
	}
	f, _ := r.Float64()
	return f
}

// Verdict writes one window.
func (p *Printer) Verdict(v Verdict) error {
	if !p.headed {
		p.headed = true
		head := slices.Clone(columns)
		if p.metric != "" {
			head[3] = p.metric
		}
		if err := p.row(head); err != nil {
			return err
		}
	}
	value := v.OKShare
	if p.metric != "" {
		value = v.Value
	}
	if v.Threshold != p.thr || p.thrText == "" {
		p.thr, p.thrText = v.Threshold, Show(v.Threshold, p.metric)
	}
	return p.row([]string{itoa(v.Window), itoa(v.Requests), itoa(v.OK), Show(value, p.metric), p.thrText,
		yesNo(v.Falsified), strconv.Itoa(v.Streak), itoa(v.DamageSoFar), stopMark(v.Stop)})
}

// inUnit is an exact window value in the metric's unit: latency is exact
// in microseconds and shown in milliseconds.
func inUnit(r *big.Rat, metric string) *big.Rat {
	if r == nil || hypothesis.MetricUnit(metric) != "ms" {
		return r
	}
	return new(big.Rat).Quo(r, big.NewRat(1000, 1))
}

// Show writes a value of the metric: a share as Percent, latency in ms to
// the microsecond, throughput in req/s ("-" for none).
func Show(r *big.Rat, metric string) string {
	switch {
	case r == nil:
		return "-"
	case metric == "" || hypothesis.MetricUnit(metric) == "share":
		return Percent(r)
	case hypothesis.MetricUnit(metric) == "ms":
		return inUnit(r, metric).FloatString(3) + " ms"
	}
	return r.FloatString(2) + "/s"
}

// row writes cells right-aligned in their columns, without trailing
// blanks.
func (p *Printer) row(cells []string) error {
	b := p.line[:0]
	for i, c := range cells {
		if i > 0 {
			b = append(b, "  "...)
		}
		width := widths[i]
		if (i == 3 || i == 4) && p.metric != "" && hypothesis.MetricUnit(p.metric) != "share" {
			width = 12 // "12345.678 ms", "1234.50/s"
		}
		for range width - len(c) {
			b = append(b, ' ')
		}
		b = append(b, c...)
	}
	b = append(bytes.TrimRight(b, " \n"), '\n')
	p.line = b
	_, err := p.out().Write(b)
	return err
}

// Percent shows a share as a percentage with two decimals ("-" for none),
// the last rounded half away from zero (as big.Rat's FloatString does).
func Percent(r *big.Rat) string {
	if r == nil {
		return "-"
	}
	if s, ok := percent64(r); ok {
		return s
	}
	return new(big.Rat).Mul(r, big.NewRat(100, 1)).FloatString(2) + " %"
}

// percent64 is Percent in int64 arithmetic, for a share whose numerator
// and denominator fit (a replay prints one per window); ok is false when
// they do not.
func percent64(r *big.Rat) (string, bool) {
	num, den := r.Num(), r.Denom()
	const lim = 1 << 49 // num * 10000 stays within int64
	if !num.IsInt64() || !den.IsInt64() || num.Int64() >= lim || num.Int64() <= -lim || den.Int64() >= lim {
		return "", false
	}
	n, d := num.Int64(), den.Int64()
	neg := n < 0
	if neg {
		n = -n
	}
	q, rem := n*10000/d, n*10000%d
	if 2*rem >= d {
		q++
	}
	b := make([]byte, 0, 16)
	if neg {
		b = append(b, '-')
	}
	b = strconv.AppendInt(b, q/100, 10)
	b = append(b, '.', byte('0'+q%100/10), byte('0'+q%10), ' ', '%')
	return string(b), true
}

// Decimal shows an exact share as a decimal with at least two places and
// no trailing zeros beyond them (0.10, 0.125, 0.333333 for 1/3).
func Decimal(r *big.Rat) string {
	s := r.FloatString(6)
	s = strings.TrimRight(s, "0")
	if i := strings.IndexByte(s, '.'); len(s)-i-1 < 2 {
		s += strings.Repeat("0", 2-(len(s)-i-1))
	}
	return s
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func stopMark(b bool) string {
	if b {
		return "STOP"
	}
	return ""
}

// Describe is the line a replay opens with: what is replayed, and the rule.
func Describe(rec *Recording) string {
	size := rec.Window.String()
	if rec.Window.N > 0 {
		size = hypothesis.Plural(rec.Window.N, "request")
	}
	r := rec.Rule
	if r.Bound == nil && r.metric() == "ok_share" && rec.Sides.Control.Role == "control" && rec.Sides.Control.Run == "" && r.BurnText == "" {
		return fmt.Sprintf("replay %s: %s of %s; baseline %s (control), margin %s, threshold %s, stop after %s",
			rec.Experiment, hypothesis.Plural(int64(len(rec.Windows)), "window"), size, Percent(r.Baseline), Decimal(r.Margin),
			Percent(r.Threshold()), hypothesis.Plural(int64(r.StopAfter), "falsified window"))
	}
	base := "none"
	if r.Baseline != nil {
		base = Show(r.Baseline, r.Metric) + " (" + rec.Sides.Control.String() + ")"
	}
	var rule string
	if r.Bound != nil {
		rule = r.Bound.Text + ": " + r.Bound.Describe(r.metric())
	} else {
		rule = "margin " + Decimal(r.Margin)
	}
	stop := "stop after " + hypothesis.Plural(int64(r.StopAfter), "falsified window")
	if r.BurnText != "" {
		stop = "stop on " + r.BurnText
	}
	if r.Unjudged {
		return fmt.Sprintf("replay %s: %s of %s of %s; metric %s; no baseline, windows not judged; %s",
			rec.Experiment, hypothesis.Plural(int64(len(rec.Windows)), "window"), size, rec.Sides.Treatment, r.metric(), stop)
	}
	return fmt.Sprintf("replay %s: %s of %s of %s; metric %s; baseline %s; threshold %s (%s); %s",
		rec.Experiment, hypothesis.Plural(int64(len(rec.Windows)), "window"), size, rec.Sides.Treatment, r.metric(), base,
		Show(r.Threshold(), r.Metric), rule, stop)
}

// damageWhat says what the damage counts.
func damageWhat(r Rule, s Summary) string {
	if r.Damage == DamageFailed || (r.Damage == DamageAuto && !s.TagsSeen) {
		return "not ok; the log has no tagged requests"
	}
	return "tagged, not ok"
}

// WriteSummary writes how a walk ended: the stop window, the damage until
// the stop and the damage the stop prevented.
func WriteSummary(w io.Writer, s Summary, r Rule) error {
	var err error
	if r.BurnText != "" {
		if err := writeBurn(w, r); err != nil {
			return err
		}
	}
	if s.StopWindow == 0 && r.BurnText != "" {
		_, err = fmt.Fprintf(w, "stop: never (no rule of %s fired)\ndamage: %s (%s); nothing prevented\n",
			r.BurnText, hypothesis.Plural(s.TotalDamage, "request"), damageWhat(r, s))
		return err
	}
	if s.StopWindow == 0 {
		_, err = fmt.Fprintf(w, "stop: never (no %d consecutive falsified windows in %d)\ndamage: %s (%s); nothing prevented\n",
			r.StopAfter, s.Windows, hypothesis.Plural(s.TotalDamage, "request"), damageWhat(r, s))
		return err
	}
	after := "after " + hypothesis.Plural(int64(r.StopAfter), "falsified window")
	if r.BurnText != "" {
		after = "the alert fired in it"
	}
	_, err = fmt.Fprintf(w, "stop: window %d (%s)\ndamage until the stop: %s (%s)\ndamage the stop would have prevented: %s\n",
		s.StopWindow, after, hypothesis.Plural(s.DamageUntilStop, "request"), damageWhat(r, s), hypothesis.Plural(s.DamageAfter, "request"))
	return err
}

// writeBurn says when the first alert fired, as analyze burn-rate counts
// it: requests that had ended by then, and the bad ones.
func writeBurn(w io.Writer, r Rule) error {
	if r.Burn == nil {
		return nil
	}
	_, err := fmt.Fprintf(w, "alert: %s fired at %s ms of test time; %s of %s ended by then had failed\n",
		r.Burn.Rule, strconv.FormatFloat(r.Burn.AtMs, 'f', -1, 64), hypothesis.Plural(r.Burn.FailedBefore, "request"), itoa(r.Burn.Requests))
	return err
}

// StopMessage is the one-line account of a stop that fired while watching.
func StopMessage(s Summary, r Rule) string {
	if b := s.Burn; b != nil {
		return fmt.Sprintf("stop: window %d: %s fired at %s ms of test time (%s of %s failed by then); damage until the stop: %s",
			s.StopWindow, b.Rule, strconv.FormatFloat(b.AtMs, 'f', -1, 64), hypothesis.Plural(b.FailedBefore, "request"),
			itoa(b.Requests), hypothesis.Plural(s.DamageUntilStop, "request"))
	}
	where := "below"
	if !hypothesis.LowerBad(r.metric()) {
		where = "above"
	}
	return fmt.Sprintf("stop: window %d completes %s in a row (%s %s); damage until the stop: %s",
		s.StopWindow, hypothesis.Plural(int64(r.StopAfter), "falsified window"), where, Show(r.Threshold(), r.Metric), hypothesis.Plural(s.DamageUntilStop, "request"))
}

package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"
)

// Printer writes verdicts as they are decided, one line each, so a paced
// replay or a watch shows every window the moment it closes.
//
// The table has the columns window (1-based), requests, ok (requests),
// ok_share and threshold (shares, shown as %), falsified (yes/no), streak
// (windows), damage_so_far (tagged requests not ok, cumulative) and stop
// ("STOP" on the stopping window). The json format writes one object per
// line with the keys window, requests, ok_share, threshold (shares 0-1),
// falsified, streak, damage_so_far and stop (true on the stopping window
// only).
type Printer struct {
	w      io.Writer
	json   bool
	headed bool
}

// Formats are the formats NewPrinter accepts.
var Formats = []string{"table", "json"}

// NewPrinter returns a Printer for format "table" or "json".
func NewPrinter(w io.Writer, format string) (*Printer, error) {
	switch format {
	case "", "table":
		return &Printer{w: w}, nil
	case "json":
		return &Printer{w: w, json: true}, nil
	}
	return nil, fmt.Errorf("format %q: want table or json", format)
}

// JSON reports whether the printer writes JSON lines.
func (p *Printer) JSON() bool { return p.json }

var columns = []string{"window", "requests", "ok", "ok_share", "threshold", "falsified", "streak", "damage_so_far", "stop"}

// widths fit the headers and the values a window can have (a share is at
// most "100.00 %").
var widths = []int{6, 8, 6, 8, 9, 9, 6, 13, 4}

type jsonVerdict struct {
	Window      int64    `json:"window"`
	Requests    int64    `json:"requests"`
	OKShare     *float64 `json:"ok_share"`
	Threshold   float64  `json:"threshold"`
	Falsified   bool     `json:"falsified"`
	Streak      int      `json:"streak"`
	DamageSoFar int64    `json:"damage_so_far"`
	Stop        bool     `json:"stop"`
}

// Verdict writes one window.
func (p *Printer) Verdict(v Verdict) error {
	if p.json {
		j := jsonVerdict{Window: v.Window, Requests: v.Requests, Falsified: v.Falsified,
			Streak: v.Streak, DamageSoFar: v.DamageSoFar, Stop: v.Stop}
		j.Threshold, _ = v.Threshold.Float64()
		if v.OKShare != nil {
			f, _ := v.OKShare.Float64()
			j.OKShare = &f
		}
		b, err := json.Marshal(j)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(p.w, "%s\n", b)
		return err
	}
	if !p.headed {
		p.headed = true
		if err := p.row(columns); err != nil {
			return err
		}
	}
	return p.row([]string{itoa(v.Window), itoa(v.Requests), itoa(v.OK), Percent(v.OKShare), Percent(v.Threshold),
		yesNo(v.Falsified), strconv.Itoa(v.Streak), itoa(v.DamageSoFar), stopMark(v.Stop)})
}

func (p *Printer) row(cells []string) error {
	var b strings.Builder
	for i, c := range cells {
		if i > 0 {
			b.WriteString("  ")
		}
		b.WriteString(strings.Repeat(" ", max(widths[i]-len(c), 0)) + c)
	}
	b.WriteString("\n")
	_, err := io.WriteString(p.w, strings.TrimRight(b.String(), " \n")+"\n")
	return err
}

// Percent shows a share as a percentage with two decimals ("-" for none).
func Percent(r *big.Rat) string {
	if r == nil {
		return "-"
	}
	return new(big.Rat).Mul(r, big.NewRat(100, 1)).FloatString(2) + " %"
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
		size = plural(rec.Window.N, "request")
	}
	return fmt.Sprintf("replay %s: %d windows of %s; baseline %s (control), margin %s, threshold %s, stop after %s",
		rec.Experiment, len(rec.Windows), size, Percent(rec.Rule.Baseline), Decimal(rec.Rule.Margin),
		Percent(rec.Rule.Threshold()), plural(int64(rec.Rule.StopAfter), "falsified window"))
}

// WriteSummary writes how a walk ended: the stop window, the damage until
// the stop and the damage the stop prevented.
func WriteSummary(w io.Writer, s Summary, r Rule) error {
	var err error
	if s.StopWindow == 0 {
		_, err = fmt.Fprintf(w, "stop: never (no %d consecutive falsified windows in %d)\ndamage: %s (tagged, not ok); nothing prevented\n",
			r.StopAfter, s.Windows, plural(s.TotalDamage, "request"))
		return err
	}
	_, err = fmt.Fprintf(w, "stop: window %d (after %s)\ndamage until the stop: %s (tagged, not ok)\ndamage the stop would have prevented: %s\n",
		s.StopWindow, plural(int64(r.StopAfter), "falsified window"), plural(s.DamageUntilStop, "request"), plural(s.DamageAfter, "request"))
	return err
}

// StopMessage is the one-line account of a stop that fired while watching.
func StopMessage(s Summary, r Rule) string {
	return fmt.Sprintf("stop: window %d completes %s in a row (below %s); damage until the stop: %s",
		s.StopWindow, plural(int64(r.StopAfter), "falsified window"), Percent(r.Threshold()), plural(s.DamageUntilStop, "request"))
}

func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return itoa(n) + " " + what + "s"
}

// Package chaos simulates the chaos experiment of seed 003 ("Kaos Deneyleri")
// against a real service: a net/http catalog service on 127.0.0.1 injects a
// delay into batches that carry the experiment tag, and a batching client with
// a real timeout records, per request, whether its batch came back in time.
// It owns the experiment's tagging hash (TagHash) and the gunluk.json format.
//
// # The gunluk.json format
//
// One JSON object on a single line, followed by a newline. The keys are the
// seed's and are kept as they are, because `rewind ingest` and the seed's own
// analysis scripts read this file unchanged:
//
//	{"N":400,"PENCERE":40,"DENEY_BASI":200,"kontrol":[...],"deney":[...]}
//
//	key         type    meaning
//	N           int     requests per run
//	PENCERE     int     window size in requests (used by the analyses, not by the run)
//	DENEY_BASI  int     first request of the experiment; earlier batches are never tagged
//	kontrol     array   the control run (experiment off), one record per request
//	deney       array   the experiment run, one record per request
//
// Each record is {"istek":0,"etiketli":false,"sonuc":"tam"}, sorted by istek:
//
//	istek     int     request number, 0 .. N-1 (also the user it belongs to)
//	etiketli  bool    the request's batch carried the experiment tag
//	sonuc     string  "tam" (the batch answered in time) or "bozulmus"
//	                  (error, non-200 status, or client timeout)
//
// # Why the outcomes are deterministic
//
// A batch's outcome depends only on the hashes: tagged batches wait the
// injected delay (240 ms) and paused batches the noise pause (150 ms), both
// longer than the client timeout (100 ms), so they always break; every other
// batch is answered at once and comes back in time. Only wall time varies.
//
// The client judges "in time" by its own clock as well as by the timeout, so
// a delayed batch can never come back "tam", however loaded the machine. The
// remaining risk is the other way round: an immediate answer (a few ms on
// loopback) that the process only gets to see after the whole 100 ms because
// the machine is starved. RunStats.SlowestInTime shows how much of that margin
// a run used, and RunStats.Flips names any batch whose outcome disagrees with
// what the service did, so such a run is reported, never silently different.
package chaos

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rewind-dev/rewind/internal/jsfmt"
)

// Log is the content of gunluk.json; see the package doc for the format.
// Field order is the file's key order.
type Log struct {
	N          int      `json:"N"`
	Window     int      `json:"PENCERE"`
	Start      int      `json:"DENEY_BASI"`
	Control    []Record `json:"kontrol"`
	Experiment []Record `json:"deney"`
}

// Record is one request of one run.
type Record struct {
	Req     int    `json:"istek"`
	Tagged  bool   `json:"etiketli"`
	Outcome string `json:"sonuc"` // OutcomeOK or OutcomeBroken
}

// Encode returns the log as the seed writes it: one line of compact JSON and
// a newline, so a run with the defaults is byte for byte the seed's file.
func (l Log) Encode() ([]byte, error) {
	b, err := json.Marshal(l)
	if err != nil {
		return nil, fmt.Errorf("encode gunluk.json: %w", err)
	}
	return append(b, '\n'), nil
}

// Summary carries the numbers the seed's experiment script prints.
type Summary struct {
	Requests  int // N
	BatchSize int
	Start     int // first request of the experiment window
	// Over the experiment run's window (requests from Start on):
	WindowRequests int
	Planned        int // requests whose user the plan tags
	Measured       int // requests whose batch carried the tag
	Damaged        int // requests broken
	// Over the whole control run:
	ControlDamaged int
}

// Summarize counts the blast radius of l. The plan comes from cfg's tag seed
// and share, so a log can be re-summarized against another plan.
func Summarize(cfg Config, l Log) Summary {
	s := Summary{Requests: l.N, BatchSize: cfg.BatchSize, Start: l.Start}
	for _, r := range l.Experiment {
		if r.Req < l.Start {
			continue
		}
		s.WindowRequests++
		s.Planned += b2i(cfg.TaggedUser(r.Req))
		s.Measured += b2i(r.Tagged)
		s.Damaged += b2i(r.Outcome == OutcomeBroken)
	}
	for _, r := range l.Control {
		s.ControlDamaged += b2i(r.Outcome == OutcomeBroken)
	}
	return s
}

// Multiplier is measured over planned blast radius; its upper bound is the
// batch size, reached when every tagged user lands in a batch of its own.
func (s Summary) Multiplier() float64 {
	return float64(s.Measured) / float64(s.Planned)
}

// String renders the summary as the CLI prints it.
func (s Summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d requests in batches of %d, experiment on from request %d\n",
		s.Requests, s.BatchSize, s.Start)
	fmt.Fprintf(&b, "planned blast radius         : %s tagged users\n", share(s.Planned, s.WindowRequests))
	fmt.Fprintf(&b, "measured blast radius        : %s members of tagged batches\n", share(s.Measured, s.WindowRequests))
	fmt.Fprintf(&b, "blast-radius multiplier      : %s\n", s.multiplierText())
	fmt.Fprintf(&b, "damaged in experiment window : %s\n", share(s.Damaged, s.WindowRequests))
	fmt.Fprintf(&b, "damaged in control run       : %s\n", share(s.ControlDamaged, s.Requests))
	return b.String()
}

func (s Summary) multiplierText() string {
	if s.Planned == 0 {
		return "n/a (no planned users)"
	}
	return fixed2(s.Multiplier()) + "×"
}

// share renders "a/b (p%)".
func share(a, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d/0", a)
	}
	return fmt.Sprintf("%d/%d (%s%%)", a, n, fixed2(100*float64(a)/float64(n)))
}

// fixed2 formats like the seed's JavaScript toFixed(2) (exact halves up).
func fixed2(x float64) string { return jsfmt.Fixed(x, 2) }

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

package chaos

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Result is a finished simulation: the log and what the service saw.
type Result struct {
	Log        Log
	Control    RunStats
	Experiment RunStats
}

// RunStats describes one run from the service's side.
type RunStats struct {
	Counts
	// Flips lists batches whose outcome disagrees with the service's wait
	// compared with the client timeout (a wait at or past the timeout must
	// break the batch, a shorter one must not). With the defaults it is empty
	// unless the process was starved for about the whole timeout; a
	// non-empty list means the log is not the deterministic one.
	Flips []int
	// SlowestInTime is the longest answer among batches that came back in
	// time: how much of the timeout the immediate answers used, i.e. how
	// close this machine came to flipping one.
	SlowestInTime time.Duration
	Wall          time.Duration
}

// Run performs the control run (experiment off) and then the experiment run,
// each against a fresh catalog service, and returns the combined log.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	control, cs, err := runOnce(ctx, progressFrom(cfg, 0), false)
	if err != nil {
		return Result{}, err
	}
	experiment, es, err := runOnce(ctx, progressFrom(cfg, cfg.batches()), true)
	if err != nil {
		return Result{}, err
	}
	log := Log{N: cfg.Requests, Window: cfg.Window, Start: cfg.Start,
		Control: control, Experiment: experiment}
	return Result{Log: log, Control: cs, Experiment: es}, nil
}

// progressFrom makes cfg.Progress count one run's batches after offset
// batches of earlier runs, against the total of both runs.
func progressFrom(cfg Config, offset int) Config {
	if report := cfg.Progress; report != nil {
		cfg.Progress = func(done, _ int) { report(offset+done, 2*cfg.batches()) }
	}
	return cfg
}

// runOnce sends every batch of one run and returns one record per request,
// indexed (and so sorted) by request number.
func runOnce(ctx context.Context, cfg Config, experimentOn bool) ([]Record, RunStats, error) {
	svc, err := startService(cfg)
	if err != nil {
		return nil, RunStats{}, err
	}
	snd := newSender(svc.url, cfg.Timeout, cfg.Concurrency)
	began := time.Now()
	records, slowest := sendAll(ctx, cfg, snd, experimentOn)
	wall := time.Since(began)
	snd.close()
	counts, waits, err := svc.stop()
	if err == nil {
		err = ctx.Err() // an interrupted run has no meaningful log
	}
	stats := RunStats{Counts: counts, Flips: flips(cfg, records, waits),
		SlowestInTime: slowest, Wall: wall}
	return records, stats, err
}

// sendAll runs cfg.Concurrency workers; each takes the next unsent batch, so a
// worker stuck on a delayed batch does not hold back the others. It returns
// the records and the slowest in-time answer.
func sendAll(ctx context.Context, cfg Config, snd *sender, experimentOn bool) ([]Record, time.Duration) {
	records := make([]Record, cfg.Requests)
	took := make([]time.Duration, cfg.batches())
	var next, sent atomic.Int64
	var wg sync.WaitGroup
	for range cfg.Concurrency {
		wg.Go(func() {
			for b := int(next.Add(1) - 1); b < len(took); b = int(next.Add(1) - 1) {
				tagged := cfg.batchTagged(experimentOn, b)
				var outcome string
				outcome, took[b] = snd.send(ctx, b, tagged)
				first, end := cfg.members(b)
				for u := first; u < end; u++ {
					records[u] = Record{Req: u, Tagged: tagged, Outcome: outcome}
				}
				if cfg.Progress != nil {
					cfg.Progress(int(sent.Add(1)), len(took))
				}
			}
		})
	}
	wg.Wait()
	return records, slowestInTime(cfg, records, took)
}

func slowestInTime(cfg Config, records []Record, took []time.Duration) time.Duration {
	var slowest time.Duration
	for b, d := range took {
		if first, _ := cfg.members(b); records[first].Outcome == OutcomeOK {
			slowest = max(slowest, d)
		}
	}
	return slowest
}

// flips compares each batch's outcome with the wait the service chose. A
// batch that never reached the service counts as a zero wait.
func flips(cfg Config, records []Record, waits map[int]time.Duration) []int {
	var out []int
	for b := range cfg.batches() {
		first, _ := cfg.members(b)
		broken := records[first].Outcome == OutcomeBroken
		if broken != (waits[b] >= cfg.Timeout) {
			out = append(out, b)
		}
	}
	return out
}

// Outcomes of a request as written to gunluk.json (the seed's words).
const (
	OutcomeOK     = "tam"      // the batch answered in time
	OutcomeBroken = "bozulmus" // error, non-200 status or timeout
)

// sender is the batching client: one GET per batch, with a hard timeout.
type sender struct {
	client  *http.Client
	base    string
	timeout time.Duration
}

// newSender keeps one idle connection per worker, so immediate batches reuse
// a warm connection instead of dialling inside their timeout.
func newSender(base string, timeout time.Duration, workers int) *sender {
	tr := &http.Transport{
		MaxIdleConns:        workers,
		MaxIdleConnsPerHost: workers,
		DisableCompression:  true,
	}
	// Client.Timeout covers dial, headers and body, like the seed's abort signal.
	client := &http.Client{Transport: tr, Timeout: timeout}
	return &sender{client: client, base: base, timeout: timeout}
}

// send asks the catalog for batch b and returns the batch's outcome and how
// long the answer (or the failure) took.
func (s *sender) send(ctx context.Context, b int, tagged bool) (string, time.Duration) {
	began := time.Now()
	err := s.get(ctx, b, tagged)
	took := time.Since(began)
	// When the process is descheduled past the deadline, the expired timer
	// and the arrived response are both ready and Go picks one at random, so
	// a delayed batch could come back "in time". Node, which the seed runs
	// on, fires expired timers before reading sockets; judging by the elapsed
	// time gives the same verdict: an answer at or past the timeout is late.
	if err != nil || took >= s.timeout {
		return OutcomeBroken, took
	}
	return OutcomeOK, took
}

func (s *sender) get(ctx context.Context, b int, tagged bool) error {
	q := url.Values{"batch": {strconv.Itoa(b)}, "experiment": {onOff(tagged)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"?"+q.Encode(), nil)
	if err != nil {
		return err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	// Reading the body inside the timeout is part of "answered in time", and
	// draining it lets the connection be reused.
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("catalog: status %d", resp.StatusCode)
	}
	return nil
}

func (s *sender) close() { s.client.CloseIdleConnections() }

func onOff(on bool) string {
	if on {
		return "1"
	}
	return "0"
}

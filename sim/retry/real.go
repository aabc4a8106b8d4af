package retry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// realClock maps the wall clock to the seed's timeline: a run at scale X
// lasts 1/X of the seed's time, and every time it reports is on the seed's
// scale, rounded to whole microseconds like the virtual mode's times.
type realClock struct {
	start time.Time
	scale float64
}

// now is the time since the start of the run, on the seed's scale.
func (c realClock) now() time.Duration {
	d := time.Duration(float64(time.Since(c.start)) * c.scale)
	return d.Round(time.Microsecond)
}

// wall converts a duration on the seed's scale to wall time.
func (c realClock) wall(d time.Duration) time.Duration {
	return time.Duration(float64(d) / c.scale)
}

// until is the wall time left until t on the seed's scale.
func (c realClock) until(t time.Duration) time.Duration {
	return time.Until(c.start.Add(c.wall(t)))
}

// RunReal runs each strategy, one after another, against a real HTTP
// dependency on 127.0.0.1 with real HTTP clients, scale times faster than
// the seed's timeline. The retry rules are the virtual mode's (see policy);
// the timing is the machine's, so two runs never give the same log. cfg.RTT
// is not used: the network is the loopback.
func RunReal(ctx context.Context, cfg Config, strategies []Strategy, scale float64) ([]Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !(scale > 0) {
		return nil, errors.New("time scale must be positive")
	}
	out := make([]Result, 0, len(strategies))
	for _, st := range strategies {
		r, err := runLive(ctx, cfg, st, scale)
		if err != nil {
			return nil, fmt.Errorf("strategy %s: %w", st.Name, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// liveRun is one strategy's real run: the records and the policy are shared
// by every client goroutine, under mu.
type liveRun struct {
	cfg    Config
	clk    realClock
	client *http.Client
	url    string

	mu       sync.Mutex
	pol      *policy
	attempts []Attempt
	ops      []Op
}

func runLive(ctx context.Context, cfg Config, st Strategy, scale float64) (Result, error) {
	clk := realClock{start: time.Now(), scale: scale}
	srv, err := startLiveServer(newLiveDep(cfg, clk))
	if err != nil {
		return Result{}, err
	}
	tr := &http.Transport{MaxIdleConns: cfg.Clients, MaxIdleConnsPerHost: cfg.Clients, DisableCompression: true}
	r := &liveRun{
		cfg: cfg, clk: clk, url: srv.url, pol: newPolicy(cfg, st),
		// Client.Timeout is the attempt timeout; the operation's deadline
		// is each request's context.
		client: &http.Client{Transport: tr, Timeout: clk.wall(cfg.AttemptTimeout)},
	}
	runErr := r.clients(ctx)
	tr.CloseIdleConnections()
	maxQueue, stopErr := srv.stop()
	tr.CloseIdleConnections()
	if err := errors.Join(runErr, stopErr); err != nil {
		return Result{}, err
	}
	return Result{Strategy: st, Attempts: r.attempts, Ops: r.ops, MaxQueue: maxQueue}, nil
}

// clients runs every client to the end of its last operation and returns
// the first error; an error or ctx's end stops the others.
func (r *liveRun) clients(ctx context.Context) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for c := range r.cfg.Clients {
		wg.Go(func() {
			if err := r.loop(ctx, c); err != nil {
				cancel(err)
			}
		})
	}
	wg.Wait()
	return context.Cause(ctx)
}

// WriteRealLog writes a real run's log: the virtual mode's format, with
// clock "real" and the time scale added to the experiment's params and
// rtt_ms left out (the network was the loopback).
func WriteRealLog(w io.Writer, cfg Config, scale float64, results []Result) error {
	p := experimentParams(cfg)
	delete(p, "rtt_ms")
	p["clock"], p["time_scale"] = "real", scale
	return writeLog(w, p, cfg, results)
}

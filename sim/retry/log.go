package retry

import (
	"io"

	"github.com/rewind-dev/rewind/sim/simlog"
)

// ExperimentName is the experiment column of the log.
const ExperimentName = "retry"

// WriteLog writes cfg and results as canonical NDJSON (see the package doc).
func WriteLog(w io.Writer, cfg Config, results []Result) error {
	return writeLog(w, experimentParams(cfg), cfg, results)
}

// writeLog writes results under an experiment line with params.
func writeLog(w io.Writer, params map[string]any, cfg Config, results []Result) error {
	lw := simlog.NewWriter(w)
	if err := lw.Experiment(simlog.Experiment{Experiment: ExperimentName, Params: params}); err != nil {
		return err
	}
	for _, r := range results {
		if err := writeRun(lw, cfg, r); err != nil {
			return err
		}
	}
	return lw.Flush()
}

func writeRun(lw *simlog.Writer, cfg Config, r Result) error {
	run := simlog.Run{Experiment: ExperimentName, Run: r.Strategy.Name, Params: runParams(cfg, r.Strategy)}
	if err := lw.Run(run); err != nil {
		return err
	}
	for _, a := range r.Attempts {
		if err := lw.Request(row(r.Strategy.Name, a)); err != nil {
			return err
		}
	}
	return nil
}

func row(run string, a Attempt) simlog.Request {
	req := simlog.Request{
		Experiment: ExperimentName, Run: run, Req: a.Op,
		Attempt: simlog.Int(a.N), TMs: simlog.Float(ms(a.Sent)), LatencyMs: simlog.Float(ms(a.Latency)),
		Outcome: a.Outcome, ClientID: simlog.Int64(int64(a.Client)),
		Retried: simlog.Bool(a.Retried), DropReason: a.Drop,
	}
	if a.Status != 0 {
		req.Status = simlog.Int(a.Status)
	}
	return req
}

func experimentParams(cfg Config) map[string]any {
	return map[string]any{
		"seed": cfg.Seed, "clients": cfg.Clients,
		"think_min_ms": ms(cfg.ThinkMin), "think_max_ms": ms(cfg.ThinkMax),
		"duration_ms": ms(cfg.Duration), "rtt_ms": ms(cfg.RTT),
		"workers": cfg.Workers, "service_ms": ms(cfg.Service), "queue": cfg.Queue,
		"freeze_from_ms": ms(cfg.FreezeFrom), "freeze_to_ms": ms(cfg.FreezeTo),
		"degraded_rps": cfg.DegradedRPS, "degraded_to_ms": ms(cfg.DegradedTo),
		"max_attempts": cfg.MaxAttempts, "attempt_timeout_ms": ms(cfg.AttemptTimeout),
		"op_timeout_ms":    ms(cfg.OpTimeout),
		"affected_from_ms": ms(cfg.AffectedFrom), "affected_to_ms": ms(cfg.AffectedTo),
	}
}

func runParams(cfg Config, st Strategy) map[string]any {
	p := map[string]any{"strategy": st.Label, "backoff": "none", "jitter": "none", "budget": false}
	if st.Backoff {
		p["backoff"] = "exponential"
		p["base_ms"], p["cap_ms"] = ms(cfg.Base), ms(cfg.Cap)
	}
	if st.Jitter {
		p["jitter"] = "full"
	}
	if st.Budget {
		p["budget"] = true
		p["budget_ratio"], p["budget_window_ms"] = cfg.BudgetRatio, ms(cfg.BudgetWindow)
	}
	return p
}

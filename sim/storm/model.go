// Package storm owns the retry-storm simulator: a tick model of a call chain
// whose layers each retry a failing dependency, so that the attempts a single
// external request may cause multiply from layer to layer.
//
// It is a Go port of the seed model behind `rewind sim storm` (seed 000,
// firtina/kosum.mjs). The port keeps the seed's arithmetic and the order of
// its random draws, so that the tables it prints carry the seed's numbers.
//
// Model, per tick of 10 ms:
//   - new requests arrive from a Poisson process (97.22 requests/s);
//   - every call scheduled for the tick is served in order; the first
//     `capacity` calls succeed (6 normally, less inside the fault window),
//     the rest fail; on the fault-free day a sparse share of 0.025 of the
//     served calls fails too;
//   - a failed call is retried after exponential backoff with full jitter,
//     unless the attempts allowed (the product of the per-layer attempts) are
//     used up or the retry budget (extra calls per primary call) is spent.
//
// The per-call log is rewind's canonical NDJSON (package sim/simlog):
//
//	experiment  "storm"
//	run         "<config>|<scenario>", the seed's names, e.g. "uc katman (3x3x3)|kesinti (1 s)"
//	req         external request id, counted from 0 in arrival order within a run
//	attempt     0 for the first call of a request, 1 for its first retry, ...
//	t_ms        tick × 10
//	outcome     "ok" or "error"
//	retried     true when this failed call was followed by another attempt
//
// A retry that would land past the end of the run is never made, yet its call
// is marked retried, as the seed neither serves nor drops it (Result.Pending
// counts them; with the seed's parameters there are none).
//
// The log starts with an "experiment" line (seed, ticks, tick_ms, rate_per_s,
// normal_rate, capacity, sparse_failure, backoff_base_ticks,
// backoff_cap_ticks). Each run starts with a "run" line whose params are:
// allowed, budget (absent when there is none), fault_from_ms, fault_to_ms and
// fault_capacity (absent on the fault-free day), tick_ms, normal_rate (calls
// per tick), capacity and layers.
package storm

// Params are the model's fixed inputs, shared by every run of an experiment.
type Params struct {
	Seed          int64
	Ticks         int     // length of a run
	TickMs        int     // milliseconds per tick
	RatePerSecond float64 // external requests per second
	Capacity      int     // calls the dependency serves per tick when healthy
	FaultStart    int     // tick at which a scenario's fault window opens
	SparseFailure float64 // share of served calls that fail on the fault-free day
	Backoff       Backoff
}

// ticksPerSecond is a float so that the arrival rate per tick is computed with
// the same division as the seed (97.22 / 100), which the tables depend on.
func ticksPerSecond(tickMs int) float64 { return 1000 / float64(tickMs) }

// NormalRate returns the mean arrivals per tick.
func (p Params) NormalRate() float64 { return p.RatePerSecond / ticksPerSecond(p.TickMs) }

// Scenario is a fault profile: for Window ticks from Params.FaultStart the
// dependency serves only Capacity calls per tick.
type Scenario struct {
	Key      string // short name used on the command line
	Name     string // the seed's name, used in run names
	Window   int    // ticks; 0 is the fault-free day
	Capacity int    // calls per tick inside the window
}

// faultFree reports whether this is the fault-free day. The seed applies the
// sparse failure share only then, and draws no random number for it otherwise.
func (s Scenario) faultFree() bool { return s.Window == 0 }

// Policy is a retry configuration of the chain.
type Policy struct {
	Name   string   // the seed's name, used in run names
	Layers []int    // attempts per layer, gateway first
	Budget *float64 // cap on extra calls per primary call; nil means none
}

// Allowed returns the attempts a request may use: the product over layers.
func (p Policy) Allowed() int { return UpperBound(p.Layers) }

// Result counts one run.
type Result struct {
	Allowed     int
	Requests    int // external requests (first attempts)
	Calls       int // all attempts
	Primary     int // first attempts served
	Extra       int // retries served
	Succeeded   int
	Dropped     int // failed and not retried
	Peak        int // most calls in one tick
	WindowCalls int // calls in the fault window
	WindowTicks int
	// Pending counts retries scheduled past the end of the run; they are
	// neither served nor dropped.
	Pending int
}

// Multiplier returns calls per external request.
func (r Result) Multiplier() float64 { return float64(r.Calls) / float64(r.Requests) }

// WindowRate returns calls per tick in the fault window, 0 without a window.
func (r Result) WindowRate() float64 {
	if r.WindowTicks == 0 {
		return 0
	}
	return float64(r.WindowCalls) / float64(r.WindowTicks)
}

// Call is one attempt as the model served it.
type Call struct {
	Req     int64
	Attempt int
	Tick    int
	OK      bool
	Retried bool
}

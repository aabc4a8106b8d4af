// Package probes simulates health probes over a replica set, round by round:
// which replicas liveness, readiness and startup probes restart or take out
// of the pool, and what that costs in failed requests and lost capacity. It
// owns the model, its scenario file format and the log it writes.
//
// # Model
//
// Each round every replica is in one true state: starting, stuck,
// no-dependency or healthy. In each round, in this order: planned restarts
// happen; faults that begin this round hit (a stuck replica stays stuck until
// restarted; a lost dependency comes back by itself after its duration); each
// replica in index order is probed (startup probe alone while it has not
// passed; otherwise liveness, then readiness, both judging the state taken
// before either acted); then requests_per_round requests go round-robin over
// the replicas the readiness probe believes in. A request fails if that
// replica is not healthy, or if the pool is empty.
//
// # Log
//
// Simulate writes one canonical NDJSON file (package simlog), all lines with
// experiment "probes". First the header:
//
//	experiment  params: rounds, requests_per_round, replicas, round_ms
//	run         one per setting; run = setting name; params: liveness_period,
//	            liveness_threshold, liveness_scope, readiness_period,
//	            readiness_threshold, startup_period, startup_threshold
//	            (keys of an absent probe are left out)
//
// Then, run by run and round by round, in the order the model acts, with
// t_ms = round × round_ms and subject = the replica index as a string:
//
//	event fault    state stuck|no-dependency; attrs: round, replica,
//	               fault (stuck|dependency_lost), duration (dependency_lost only)
//	event restart  state = true state just before the restart; attrs: round,
//	               replica, reason (liveness|startup|planned), restart_no (1-based
//	               count of this replica's restarts in the run, planned included),
//	               stuck_since_round (only when state is stuck)
//	event state    one per replica per round, after the round's probes: the
//	               true state the round's requests meet; attrs: round, replica,
//	               in_pool (the readiness probe's belief)
//	request        req = round × requests_per_round + n (n from 0 within the
//	               round); outcome ok|error; attrs: round, replica (null when
//	               the pool was empty), replica_state (null likewise)
//
// The seed's counters follow from these lines alone: restarts are restart
// events with reason liveness or startup; unnecessary ones are those whose
// state is not stuck; killed during startup, those whose state is starting;
// a replica is in a restart loop with 3 or more of them; early errors are
// requests whose replica_state is starting; errors are requests with outcome
// error; in service is the count of healthy state events divided by rounds;
// detection rounds are round − stuck_since_round of liveness restarts whose
// state is stuck, ordered by round and then replica.
package probes

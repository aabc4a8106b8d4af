// Package retry models experiment E03-B: 200 clients calling one dependency
// that freezes for a moment, comparing four retry strategies (immediate
// retry, exponential backoff, backoff with full jitter, and jittered backoff
// with a retry budget). It owns the model, its discrete-event engine on a
// virtual clock, the per-strategy summary, and aligned-bucket peaks.
//
// The model runs on a virtual clock driven by a priority queue of events, so a
// run of the default 30 s takes milliseconds and is identical for a given seed.
//
// # Real mode
//
// RunReal runs the same experiment on the wall clock: the dependency is a
// net/http server on 127.0.0.1 (the same workers, queue, freeze and thaw) and
// each client a goroutine with an http.Client whose timeout is the attempt
// timeout and whose request context carries the operation's deadline. Retry
// decisions, think times and the start stagger come from the same code and
// seeded streams as the virtual mode; only timing differs. A time scale of X
// runs X times faster and reports every time on the seed's scale. Real timing
// depends on the machine and its load, so real runs are not reproducible:
// same seed, similar numbers, never the same bytes.
//
// # Log
//
// WriteLog writes rewind's canonical NDJSON (package simlog), experiment
// "retry": one experiment line, then per strategy one run line and one line
// per attempt, in send order. The attempt columns are:
//
//	run          strategy letter: A, B, C or D
//	client_id    simulated client, 0..clients-1
//	req          logical operation id, unique within the run
//	attempt      0 for the first attempt, then 1, 2, ... (at most max_attempts-1)
//	t_ms         send time, ms since the start of the run
//	latency_ms   ms from send to the answer, or to the client giving up (timeout)
//	status       HTTP status of the answer: 200 or 503; absent on a timeout
//	outcome      ok (200), error (503) or timeout (no answer within the attempt timeout)
//	retried      true when this failed attempt was followed by another attempt
//	drop_reason  why a failed attempt was not retried: attempts (the limit was
//	             reached), deadline (the backoff would end past the operation's
//	             deadline) or budget (the retry budget said no); empty otherwise
//
// The experiment line's params hold every model parameter in ms or counts,
// including affected_from_ms and affected_to_ms, the interval whose operations
// the success share is computed over; each run line's params name the
// strategy's backoff, jitter and budget. A real run's experiment line also
// has clock "real" and time_scale, and no rtt_ms (its network is the loopback).
package retry

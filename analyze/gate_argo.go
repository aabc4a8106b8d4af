package analyze

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// Argo's analysis phases, best to worst (utils/analysis/helpers.go,
// analysisStatusOrder).
var argoOrder = []string{"Successful", "Running", "Pending", "Inconclusive", "Error", "Failed"}

// argoErrorRetry is Argo's DefaultErrorRetryInterval: a measurement that
// errs is retried after 10 s, whatever the metric's interval.
const argoErrorRetry = 10 * time.Second

// argoMaxReconciles bounds a replay's loop, past checkSpan's bound on the
// measurements a schedule makes.
const argoMaxReconciles = 4 * gateMaxMeasurements

// argoState is one metric's MetricResult.
type argoState struct {
	m                                        argoMetric
	phase                                    string
	taken, count, failed, inconclusive, errs int
	consecErr, consecSucc                    int
	lastAt                                   float64
	lastErr                                  bool
}

func (s *argoState) completed() bool {
	switch s.phase {
	case "Successful", "Failed", "Inconclusive", "Error":
		return true
	}
	return false
}

// effectiveCount is Argo's Metric.EffectiveCount: count, or 1 without count
// and interval, or none (-1: measure until the run ends).
func (m argoMetric) effectiveCount() int {
	if m.Count == 0 {
		if !m.HasInterval {
			return 1
		}
		return -1
	}
	return m.Count
}

// next is when the metric measures next (ms), false when it is done.
func (s *argoState) next(start float64) (float64, bool) {
	switch {
	case s.completed():
		return 0, false
	case s.taken == 0:
		return start + msOf(s.m.InitialDelay), true
	case s.m.effectiveCount() >= 0 && s.count >= s.m.effectiveCount():
		return 0, false
	case s.lastErr:
		return s.lastAt + msOf(argoErrorRetry), true
	case s.m.HasInterval:
		return s.lastAt + msOf(s.m.Interval), true
	}
	return 0, false
}

// record counts a measurement as runMeasurements does.
func (s *argoState) record(phase string, at float64) {
	s.taken++
	s.lastAt, s.lastErr = at, phase == "Error"
	switch phase {
	case "Successful":
		s.count++
		s.consecErr = 0
		s.consecSucc++
	case "Failed":
		s.failed++
		s.count++
		s.consecErr, s.consecSucc = 0, 0
	case "Inconclusive":
		s.inconclusive++
		s.count++
		s.consecErr, s.consecSucc = 0, 0
	case "Error":
		s.errs++
		s.consecErr++
		s.consecSucc = 0
	}
}

// limits is assessMetricFailureInconclusiveOrError: later checks win.
func (s *argoState) limits() (string, string) {
	var phase, msg string
	if s.m.FailureLimit >= 0 && s.failed > s.m.FailureLimit {
		phase, msg = "Failed", fmt.Sprintf("failed (%d) > failureLimit (%d)", s.failed, s.m.FailureLimit)
	}
	if s.inconclusive > s.m.InconclusiveLimit {
		phase, msg = "Inconclusive", fmt.Sprintf("inconclusive (%d) > inconclusiveLimit (%d)", s.inconclusive, s.m.InconclusiveLimit)
	}
	if s.consecErr > s.m.ConsecutiveErrorLimit {
		phase, msg = "Error", fmt.Sprintf("consecutiveErrors (%d) > consecutiveErrorLimit (%d)", s.consecErr, s.m.ConsecutiveErrorLimit)
	}
	return phase, msg
}

// assess is assessMetricStatus.
func (s *argoState) assess(terminating bool) string {
	if s.completed() {
		return s.phase
	}
	if s.taken == 0 {
		if terminating {
			return "Successful"
		}
		return "Pending"
	}
	if p, _ := s.limits(); p != "" {
		return p
	}
	csl := s.m.ConsecutiveSuccessLimit
	if csl > 0 && s.consecSucc >= csl {
		return "Successful"
	}
	if ec := s.m.effectiveCount(); ec >= 0 && s.count >= ec {
		switch failure, success := s.m.FailureLimit >= 0, csl > 0; {
		case failure && success:
			return "Inconclusive"
		case success:
			return "Failed"
		}
		return "Successful"
	}
	if terminating {
		return "Successful"
	}
	return "Running"
}

func argoWorse(cur, p string) bool { return argoIndex(p) > argoIndex(cur) }

func argoIndex(p string) int {
	for i, c := range argoOrder {
		if c == p {
			return i
		}
	}
	return 0
}

// assessRun is assessRunStatus: Running until every metric completes, then
// the worst phase; once a metric has failed (terminating) the worst so far.
func assessRun(states []*argoState, terminating bool) (string, string) {
	worst, msg, all := "", "", true
	for _, s := range states {
		if s.taken == 0 && !terminating {
			all = false
			continue
		}
		s.phase = s.assess(terminating)
		if !s.completed() {
			all = false
			continue
		}
		if worst == "" || argoWorse(worst, s.phase) {
			worst = s.phase
			if _, m := s.limits(); m != "" {
				msg = fmt.Sprintf("Metric %q assessed %s due to %s", s.m.Name, s.phase, m)
			}
		}
	}
	if terminating {
		if worst == "" {
			worst = "Successful"
		}
		return worst, msg
	}
	if !all || worst == "" {
		return "Running", ""
	}
	return worst, msg
}

func terminatingRun(states []*argoState) bool {
	for _, s := range states {
		switch s.phase {
		case "Failed", "Error", "Inconclusive":
			return true
		}
	}
	return false
}

// replayArgo runs the AnalysisRun's reconcile loop over test time. The
// schedule depends on which measurements err (retried after 10 s), so the
// windows are fetched as the schedule settles: a pass predicts a window not
// yet read as measured, the missing windows are read, and the pass is run
// again until it needs none.
func replayArgo(src *gateSource, o GateOptions, end float64, out *Result) (gateDecision, error) {
	metrics, err := readArgo(o)
	if err != nil {
		return gateDecision{}, err
	}
	if step, what, ok := argoStep(metrics); ok {
		if err := src.checkSpan(o, step, end, "%s: %s", o.File, what); err != nil {
			return gateDecision{}, err
		}
	}
	for range 1000 {
		rows, d, missing := simulateArgo(metrics, src.cache, msOf(o.Start), end)
		if math.IsNaN(d.at) && d.evals >= argoMaxReconciles {
			return gateDecision{}, fmt.Errorf("%s: the replay passed %d reconciles before the log ended", o.File, argoMaxReconciles)
		}
		if len(missing) == 0 {
			out.Rows = rows
			return d, nil
		}
		if err := src.fetch(missing); err != nil {
			return gateDecision{}, err
		}
	}
	return gateDecision{}, fmt.Errorf("argo replay: the measurement schedule did not settle")
}

func simulateArgo(metrics []argoMetric, cache map[gateWindow]gateValues, start, end float64) ([][]any, gateDecision, []gateWindow) {
	states := make([]*argoState, len(metrics))
	for i, m := range metrics {
		states[i] = &argoState{m: m}
	}
	var rows [][]any
	var missing []gateWindow
	k := 1
	for t := start; t <= end && k <= argoMaxReconciles; k++ {
		terminating := terminatingRun(states)
		for _, s := range states {
			if at, ok := s.next(start); ok && at <= t && !terminating {
				w := gateWindow{from: start, until: t}
				if s.m.Window > 0 {
					w.from = t - msOf(s.m.Window)
				}
				v, known := cache[w]
				if !known {
					missing = append(missing, w)
				}
				value, defined := v.value(s.m.Bound, w)
				phase, msg := "Successful", ""
				if known {
					phase, msg = argoMeasure(s.m, value, defined)
				}
				s.record(phase, t)
				rows = append(rows, gateRow(k, t, s.m.Name, w, v, value, phaseText(phase, msg), s.stateText()))
			}
		}
		phase, msg := assessRun(states, terminating)
		if !terminating && terminatingRun(states) {
			phase, msg = assessRun(states, true) // the status update requeues the run at once
		}
		if phase != "Running" {
			return rows, gateDecision{decision: phase, at: t, evals: k, reason: msg}, missing
		}
		next := math.Inf(1)
		for _, s := range states {
			if at, ok := s.next(start); ok {
				next = math.Min(next, math.Max(at, t+1e-9))
			}
		}
		if math.IsInf(next, 1) {
			break
		}
		t = next
	}
	return rows, gateDecision{decision: "Running", at: math.NaN(), evals: k - 1, reason: "the log ended before the run completed"}, missing
}

func phaseText(phase, msg string) string {
	if msg == "" {
		return phase
	}
	return phase + ": " + msg
}

func (s *argoState) stateText() string {
	return fmt.Sprintf("count=%d failed=%d inconclusive=%d error=%d consecutiveError=%d", s.count, s.failed, s.inconclusive, s.errs, s.consecErr)
}

// argoMeasure evaluates the conditions as Argo's evaluate.EvaluateResult:
// result is the measured value (a one-element vector for a Prometheus
// query, empty when the window has no data; NaN for a scalar).
func argoMeasure(m argoMetric, value any, defined bool) (string, string) {
	var result any
	f := math.NaN()
	if defined {
		f, _ = value.(interface{ Float64() (float64, bool) }).Float64()
	}
	switch {
	case m.Vector && defined:
		result = []float64{f}
	case m.Vector:
		result = []float64{}
	default:
		result = f
	}
	succ, fail := false, false
	var err error
	if m.SuccessCondition != "" {
		if succ, err = argoCondition(result, m.SuccessCondition); err != nil {
			return "Error", fmt.Sprintf("could not evaluate successCondition %q: %v", m.SuccessCondition, err)
		}
	}
	if m.FailureCondition != "" {
		if fail, err = argoCondition(result, m.FailureCondition); err != nil {
			return "Error", fmt.Sprintf("could not evaluate failureCondition %q: %v", m.FailureCondition, err)
		}
	}
	switch {
	case m.SuccessCondition == "" && m.FailureCondition == "":
		return "Successful", ""
	case m.FailureCondition == "":
		fail = !succ
	case m.SuccessCondition == "":
		succ = !fail
	}
	switch {
	case fail:
		return "Failed", ""
	case !succ:
		return "Inconclusive", ""
	}
	return "Successful", ""
}

func argoAsInt(in any) int64 {
	switch i := in.(type) {
	case float64:
		return int64(i)
	case int:
		return int64(i)
	case int64:
		return i
	case string:
		n, err := strconv.ParseInt(i, 10, 64)
		if err != nil {
			panic(err)
		}
		return n
	}
	panic(fmt.Sprintf("asInt() not supported on %T %v", in, in))
}

func argoAsFloat(in any) float64 {
	switch i := in.(type) {
	case float64:
		return i
	case int:
		return float64(i)
	case int64:
		return float64(i)
	case string:
		f, err := strconv.ParseFloat(i, 64)
		if err != nil {
			panic(err)
		}
		return f
	}
	panic(fmt.Sprintf("asFloat() not supported on %T %v", in, in))
}

package analyze

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/hypothesis"
)

// Threshold is one k6 threshold: a metric (with submetric tags) and an
// expression such as p(95)<200, read as k6 reads them (grafana/k6
// metrics/thresholds_parser.go, metrics/metric.go).
type Threshold struct {
	Metric string // as written: http_req_duration{status:200}
	Base   string // without the tags: http_req_duration
	Tags   []Tag  // submetric tags, in the order written (a repeated key keeps its last value)
	Source string // the expression as written: p(95)<200
	Agg    string // avg, min, max, med, p, rate, count or value
	P      float64
	Op     string  // < <= > >= == === !=
	Value  float64 // right-hand side
	// AbortOnFail stops the test at the first evaluation that fails, once
	// more than Delay of test time has passed (HasDelay; k6's delayAbortEval).
	AbortOnFail bool
	Delay       time.Duration
	HasDelay    bool
	Object      bool // written in k6's object form, which sets abortOnFail itself
}

// Tag is one submetric tag.
type Tag struct{ K, V string }

// k6's operators, longest first where they share a prefix: the scan takes
// the first that splits the expression with something on its right.
var thresholdOps = []string{"<=", "<", ">=", ">", "===", "==", "!="}

// ParseThreshold reads "METRIC: EXPRESSION", the expression either k6's
// text (p(95)<200) or its object form ({"threshold": "rate<0.01",
// "abortOnFail": true, "delayAbortEval": "10s"}).
func ParseThreshold(s string) (Threshold, error) {
	metric, expr, err := splitThreshold(s)
	if err != nil {
		return Threshold{}, err
	}
	t := Threshold{Metric: metric}
	if t.Base, t.Tags, err = parseMetricName(metric); err != nil {
		return t, fmt.Errorf("threshold %q: %w", s, err)
	}
	if strings.HasPrefix(expr, "{") {
		if err := t.readObject(expr); err != nil {
			return t, fmt.Errorf("threshold %q: %w", s, err)
		}
	} else {
		t.Source = expr
	}
	if err := t.parseExpression(); err != nil {
		return t, fmt.Errorf("threshold %q: %w", s, err)
	}
	return t, nil
}

// splitThreshold splits at the colon after the metric: after the closing
// brace when the metric has tags (a tag value may hold a colon: a URL).
func splitThreshold(s string) (string, string, error) {
	bad := fmt.Errorf("threshold %q: want METRIC: EXPRESSION, e.g. 'http_req_duration: p(95)<200'", s)
	colon, brace := strings.IndexByte(s, ':'), strings.IndexByte(s, '{')
	end := colon
	if brace >= 0 && (colon < 0 || brace < colon) {
		close := strings.IndexByte(s[brace:], '}')
		if close < 0 {
			return "", "", fmt.Errorf("threshold %q: metric has unmatched opening/close curly brace", s)
		}
		end = brace + close + 1
		rest := strings.TrimLeft(s[end:], " ")
		if !strings.HasPrefix(rest, ":") {
			return "", "", bad
		}
		end += len(s[end:]) - len(rest)
	}
	if end < 0 || strings.TrimSpace(s[end+1:]) == "" {
		return "", "", bad
	}
	return strings.TrimSpace(s[:end]), strings.TrimSpace(s[end+1:]), nil
}

// parseMetricName checks the name as k6's ParseMetricName does and reads
// the tags as Metric.AddSubmetric does (spaces and quotes trimmed).
func parseMetricName(name string) (string, []Tag, error) {
	open, close := strings.IndexByte(name, '{'), strings.LastIndexByte(name, '}')
	switch {
	case name == "":
		return "", nil, fmt.Errorf("no metric name")
	case open < 0 && close < 0:
		return name, nil, nil
	case open < 0 || close < 0:
		return "", nil, fmt.Errorf("metric %q has unmatched opening/close curly brace", name)
	case close < open:
		return "", nil, fmt.Errorf("metric %q closing curly brace appears before opening one", name)
	case close != len(name)-1:
		return "", nil, fmt.Errorf("metric %q lacks a closing curly brace in its last position", name)
	}
	inner := strings.TrimSpace(name[open+1 : close])
	if inner == "" {
		return "", nil, fmt.Errorf("submetric criteria for metric %q cannot be empty", name[:open])
	}
	var tags []Tag
	for _, kv := range strings.Split(name[open+1:close], ",") {
		k, v, _ := strings.Cut(kv, ":")
		if v == "" {
			return "", nil, fmt.Errorf("metric %q: tag expression %q is malformed (want key:value)", name, kv)
		}
		k, v = strings.Trim(strings.TrimSpace(k), `"'`), strings.Trim(strings.TrimSpace(v), `"'`)
		if k == "" || strings.HasPrefix(k, "$") {
			return "", nil, fmt.Errorf("metric %q: tag %q has no usable key", name, kv)
		}
		tags = setTag(tags, k, v)
	}
	return strings.TrimSpace(name[:open]), tags, nil
}

// setTag adds k=v; a key given twice keeps its last value, as k6's TagSet.With.
func setTag(tags []Tag, k, v string) []Tag {
	for i := range tags {
		if tags[i].K == k {
			tags[i].V = v
			return tags
		}
	}
	return append(tags, Tag{k, v})
}

// readObject reads k6's object form of a threshold.
func (t *Threshold) readObject(expr string) error {
	var obj struct {
		Threshold      *string         `json:"threshold"`
		AbortOnFail    bool            `json:"abortOnFail"`
		DelayAbortEval json.RawMessage `json:"delayAbortEval"`
	}
	dec := json.NewDecoder(strings.NewReader(expr))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&obj); err != nil {
		return fmt.Errorf("want a k6 threshold object {\"threshold\": \"rate<0.01\", \"abortOnFail\": true, \"delayAbortEval\": \"10s\"}: %v", err)
	}
	if obj.Threshold == nil {
		return fmt.Errorf("the object has no \"threshold\"")
	}
	t.Source, t.AbortOnFail, t.Object = strings.TrimSpace(*obj.Threshold), obj.AbortOnFail, true
	d, ok, err := k6Duration(obj.DelayAbortEval)
	if err != nil {
		return fmt.Errorf("delayAbortEval: %w", err)
	}
	t.Delay, t.HasDelay = d, ok
	return nil
}

// k6Duration reads a types.NullDuration as k6 reads it: null, a string
// ("10s", "1m30s", "1d", or "5000": ms) or a number of ms.
func k6Duration(raw json.RawMessage) (time.Duration, bool, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return 0, false, nil
	}
	var ms float64
	if json.Unmarshal(raw, &ms) == nil {
		return k6Ms(ms, s)
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		return 0, false, fmt.Errorf("want a duration such as \"10s\", got %s", s)
	}
	if ms, err := strconv.ParseFloat(text, 64); err == nil { // k6: a string without a unit is ms
		return k6Ms(ms, text)
	}
	d, err := hypothesis.ParseLongDuration(text)
	return d, err == nil, err
}

// maxDelayMs bounds a delay given in ms (a Duration holds 292 years; 1e300
// overflowed it, and the SQL that read it failed on an INT128 cast).
const maxDelayMs = 1e12

func k6Ms(ms float64, text string) (time.Duration, bool, error) {
	if !(ms >= 0 && ms <= maxDelayMs) {
		return 0, false, fmt.Errorf("%s ms: want a delay from 0 to 1e12 ms (about 31 years)", text)
	}
	return time.Duration(ms * float64(time.Millisecond)), true, nil
}

// parseExpression reads Source as k6's parseThresholdExpression does.
func (t *Threshold) parseExpression() error {
	method, value, err := t.scan()
	if err != nil {
		return err
	}
	if err := t.parseMethod(method); err != nil {
		return err
	}
	if t.Value, err = strconv.ParseFloat(value, 64); err != nil {
		return fmt.Errorf("right-hand side %q is not a number", value)
	}
	if math.IsNaN(t.Value) || math.IsInf(t.Value, 0) || math.Abs(t.Value) >= 1e18 {
		return fmt.Errorf("right-hand side %q: want a finite number below 1e18", value)
	}
	if _, frac, _ := strings.Cut(exactDecimal(t.Value), "."); len(frac) > 9 {
		return fmt.Errorf("right-hand side %q: at most 9 decimals (sums are compared exactly, in billionths)", value)
	}
	return nil
}

func (t *Threshold) scan() (string, string, error) {
	for _, op := range thresholdOps {
		left, right, _ := strings.Cut(t.Source, op)
		if right != "" {
			t.Op = op
			return strings.TrimSpace(left), strings.TrimSpace(right), nil
		}
	}
	return "", "", fmt.Errorf("malformed expression %q: want AGGREGATION OPERATOR VALUE, e.g. p(95)<200 or rate<0.01", t.Source)
}

func (t *Threshold) parseMethod(m string) error {
	switch m {
	case "avg", "min", "max", "med", "rate", "count", "value":
		t.Agg = m
		if m == "med" {
			t.P = 50
		}
		return nil
	}
	if inner, ok := strings.CutPrefix(m, "p("); ok && strings.HasSuffix(inner, ")") {
		p, err := strconv.ParseFloat(strings.TrimSuffix(inner, ")"), 64)
		if err != nil || math.IsNaN(p) || p < 0 || p > 100 {
			return fmt.Errorf("malformed percentile %q: provide a number between 0 and 100", m)
		}
		t.Agg, t.P = "p", p
		return nil
	}
	return fmt.Errorf("unknown aggregation %q: want avg, min, max, med, p(N), rate, count or value", m)
}

// exactDecimal writes f as the shortest decimal that reads back as f.
func exactDecimal(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// k6 metric types and the aggregations each takes (metrics/metric_type.go).
var k6Aggregations = map[string][]string{
	"counter": {"count", "rate"},
	"gauge":   {"value"},
	"rate":    {"rate"},
	"trend":   {"avg", "min", "max", "med", "p(N)"},
}

// k6Builtin are k6's built-in metrics (metrics/builtin.go) with their types.
var k6Builtin = map[string]string{
	"vus": "gauge", "vus_max": "gauge", "iterations": "counter", "iteration_duration": "trend",
	"dropped_iterations": "counter", "checks": "rate", "group_duration": "trend",
	"http_reqs": "counter", "http_req_failed": "rate", "http_req_duration": "trend",
	"http_req_blocked": "trend", "http_req_connecting": "trend", "http_req_tls_handshaking": "trend",
	"http_req_sending": "trend", "http_req_waiting": "trend", "http_req_receiving": "trend",
	"ws_sessions": "counter", "ws_msgs_sent": "counter", "ws_msgs_received": "counter",
	"ws_ping": "trend", "ws_session_duration": "trend", "ws_connecting": "trend",
	"grpc_req_duration": "trend", "data_sent": "counter", "data_received": "counter",
}

// fits tells whether the aggregation applies to a metric of type kind.
func (t Threshold) fits(kind string) bool {
	for _, a := range k6Aggregations[kind] {
		if a == t.Agg || a == "p(N)" && t.Agg == "p" {
			return true
		}
	}
	return false
}

// String writes the threshold back as METRIC: EXPRESSION.
func (t Threshold) String() string { return t.Metric + ": " + t.Source }

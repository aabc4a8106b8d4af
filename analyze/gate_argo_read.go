package analyze

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// argoMetric is one metric of an Argo Rollouts AnalysisTemplate (or
// ClusterAnalysisTemplate), with its binding to a rewind metric.
type argoMetric struct {
	Name                    string
	Interval, InitialDelay  time.Duration
	HasInterval             bool
	Count                   int // 0: not given
	SuccessCondition        string
	FailureCondition        string
	FailureLimit            int // default 0; -1 disables
	InconclusiveLimit       int
	ConsecutiveErrorLimit   int // default 4
	ConsecutiveSuccessLimit int
	Bound                   string        // the rewind metric
	Window                  time.Duration // 0: since the analysis start
	Vector                  bool          // result is a Prometheus vector ([]float64)
}

type argoMetricYAML struct {
	Name                    string               `yaml:"name"`
	Interval                string               `yaml:"interval"`
	InitialDelay            string               `yaml:"initialDelay"`
	Count                   intOrString          `yaml:"count"`
	SuccessCondition        string               `yaml:"successCondition"`
	FailureCondition        string               `yaml:"failureCondition"`
	FailureLimit            intOrString          `yaml:"failureLimit"`
	InconclusiveLimit       intOrString          `yaml:"inconclusiveLimit"`
	ConsecutiveErrorLimit   intOrString          `yaml:"consecutiveErrorLimit"`
	ConsecutiveSuccessLimit intOrString          `yaml:"consecutiveSuccessLimit"`
	Provider                map[string]yaml.Node `yaml:"provider"`
}

// readArgo reads every AnalysisTemplate and ClusterAnalysisTemplate of the
// file (other documents, such as the Rollout beside them, are skipped); the
// metrics of several templates are merged, as Argo merges a Rollout's
// templates into one AnalysisRun.
func readArgo(o GateOptions) ([]argoMetric, error) {
	docs, err := yamlDocs(o.File, o.Data)
	if err != nil {
		return nil, err
	}
	var out []argoMetric
	seen := map[string]bool{}
	for _, doc := range docs {
		if k := kindOf(doc); k != "AnalysisTemplate" && k != "ClusterAnalysisTemplate" {
			continue
		}
		var t struct {
			Spec struct {
				Metrics []yaml.Node `yaml:"metrics"`
			} `yaml:"spec"`
		}
		if err := decodeAt(o.File, doc, &t); err != nil {
			return nil, err
		}
		for i := range t.Spec.Metrics {
			m, err := argoMetricAt(o, &t.Spec.Metrics[i], len(out))
			if err != nil {
				return nil, err
			}
			if seen[m.Name] {
				return nil, lineErr(o.File, &t.Spec.Metrics[i], "metrics[%d]: duplicate name '%s'", len(out), m.Name)
			}
			seen[m.Name] = true
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no AnalysisTemplate with metrics (kind AnalysisTemplate or ClusterAnalysisTemplate, spec.metrics)", o.File)
	}
	return out, nil
}

func argoMetricAt(o GateOptions, n *yaml.Node, i int) (argoMetric, error) {
	var y argoMetricYAML
	if err := decodePath(o.File, n, fmt.Sprintf("metrics[%d]", i), &y); err != nil {
		return argoMetric{}, err
	}
	m := argoMetric{Name: y.Name, Count: y.Count.n, SuccessCondition: y.SuccessCondition, FailureCondition: y.FailureCondition,
		FailureLimit: y.FailureLimit.n, InconclusiveLimit: y.InconclusiveLimit.n, ConsecutiveErrorLimit: 4,
		ConsecutiveSuccessLimit: y.ConsecutiveSuccessLimit.n, HasInterval: y.Interval != ""}
	if y.ConsecutiveErrorLimit.set {
		m.ConsecutiveErrorLimit = y.ConsecutiveErrorLimit.n
	}
	var err error
	if m.HasInterval {
		if m.Interval, err = parseDur(o.File, n, "interval", y.Interval); err != nil {
			return m, err
		}
		if m.Interval < time.Millisecond {
			return m, lineErr(o.File, n, "field \"interval\": %q: rewind replays intervals of 1ms or more", y.Interval)
		}
	}
	if y.InitialDelay != "" {
		if m.InitialDelay, err = parseDur(o.File, n, "initialDelay", y.InitialDelay); err != nil {
			return m, err
		}
	}
	if err := m.validate(); err != nil {
		return m, lineErr(o.File, n, "metrics[%d] %q: %v", i, m.Name, err)
	}
	if m.Bound, err = bindMetric(o, m.Name, "Argo metric"); err != nil {
		return m, lineErr(o.File, n, "%w", err)
	}
	m.Window, m.Vector = argoWindow(y, m)
	return m, nil
}

// validate holds Argo's ValidateMetric rules (utils/analysis/factory.go).
func (m argoMetric) validate() error {
	switch {
	case m.Name == "":
		return fmt.Errorf("a metric needs a name")
	case m.ConsecutiveSuccessLimit < 0:
		return fmt.Errorf("consecutiveSuccessLimit must be >= 0")
	case m.FailureLimit < -1:
		return fmt.Errorf("failureLimit must be >= 0, or -1 to be disabled")
	case m.ConsecutiveSuccessLimit == 0 && m.FailureLimit == -1:
		return fmt.Errorf("failureLimit and consecutiveSuccessLimit cannot both be disabled")
	case m.InconclusiveLimit < 0:
		return fmt.Errorf("inconclusiveLimit must be >= 0")
	case m.ConsecutiveErrorLimit < 0:
		return fmt.Errorf("consecutiveErrorLimit must be >= 0")
	case m.Count > 0 && m.FailureLimit >= 0 && m.Count < m.FailureLimit+m.ConsecutiveSuccessLimit:
		return fmt.Errorf("count (%d) must be >= failureLimit + consecutiveSuccessLimit (%d + %d) if both >= 0", m.Count, m.FailureLimit, m.ConsecutiveSuccessLimit)
	case m.Count > 0 && m.FailureLimit < 0 && m.Count < m.ConsecutiveSuccessLimit:
		return fmt.Errorf("count must be >= consecutiveSuccessLimit")
	case m.Count > 0 && m.Count < m.InconclusiveLimit:
		return fmt.Errorf("count must be >= inconclusiveLimit")
	case m.Count > 1 && !m.HasInterval:
		return fmt.Errorf("interval must be specified when count > 1")
	}
	return nil
}

var promRangeRE = regexp.MustCompile(`\[\s*((?:\d+(?:ms|s|m|h|d|w|y))+)\s*(?::[^\]]*)?\]`)

// argoWindow is the span a measurement reads: the first range selector of
// a Prometheus query ([5m]), else the interval, else everything since the
// analysis started (0). A Prometheus result is a vector unless the query
// is a scalar(...).
func argoWindow(y argoMetricYAML, m argoMetric) (time.Duration, bool) {
	w := m.Interval
	p, ok := y.Provider["prometheus"]
	if !ok {
		return w, false
	}
	var q struct {
		Query string `yaml:"query"`
	}
	_ = p.Decode(&q)
	if r := promRangeRE.FindStringSubmatch(q.Query); r != nil {
		if d, err := promDuration(r[1]); err == nil {
			w = d
		}
	}
	return w, !strings.HasPrefix(strings.TrimSpace(q.Query), "scalar(")
}

// promDuration reads Prometheus' duration syntax (1h30m, 5m, 90s, 2d, 1w).
func promDuration(s string) (time.Duration, error) {
	units := map[string]time.Duration{"ms": time.Millisecond, "s": time.Second, "m": time.Minute, "h": time.Hour,
		"d": 24 * time.Hour, "w": 7 * 24 * time.Hour, "y": 365 * 24 * time.Hour}
	var total time.Duration
	for _, p := range regexp.MustCompile(`(\d+)(ms|s|m|h|d|w|y)`).FindAllStringSubmatch(s, -1) {
		var n int64
		if _, err := fmt.Sscan(p[1], &n); err != nil {
			return 0, err
		}
		total += time.Duration(n) * units[p[2]]
	}
	return total, nil
}

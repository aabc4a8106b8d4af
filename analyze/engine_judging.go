package analyze

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/hypothesis"
)

// The judging of windows on the engine, shared by falsification's sweep
// (engine_sweep.go) and stop-damage's streaks (engine_streaks.go): each
// window's value in Spark SQL, step 1 (each group's baseline) and the
// literals and expression that judge a window exactly.

// judging is what judges the sides' windows against thresholds on the
// engine: each threshold's f and a, the metric's num and den in Spark SQL,
// each group's baseline (step 1) and the literals of the judging.
type judging struct {
	fa       [][2]*big.Int
	num, den string
	bases    []baseline
	lits     judgeLits
	cmp      string // " > ", or " < " where a lower value is worse
}

// judgeSetup runs step 1 and writes the judging's literals; why says why
// the windows must be pulled instead (a threshold finer than millionths, a
// metric without a value here, a baseline or threshold past the bound).
func (r *Remote) judgeSetup(s hypothesis.Sides, w hypothesis.Window, eg engineGroup, ths []hypothesis.Bound) (judging, string, error) {
	var j judging
	var err error
	// a threshold finer than millionths, or a metric without a value
	// here: the library judges (and refuses) them over pulled windows
	if j.fa, err = thresholdMillionths(ths); err != nil {
		return j, "pulled: " + err.Error(), nil
	}
	var ok bool
	if j.num, j.den, ok = sparkValue(s.Metric); !ok {
		return j, "pulled: metric " + s.Metric, nil
	}
	if s.Metric == "throughput" {
		var d string
		if err := r.Querier().QueryRow(`SELECT _metric_den('throughput', 0, 0, ` + duckDouble(w.Ms) + `)::VARCHAR`).Scan(&d); err != nil {
			return j, "", err
		}
		j.den = "CAST(" + engine.String(d) + " AS DECIMAL(38,0))"
	}
	v := windowValues(s, w, eg, j.num, j.den, "control")
	if err := r.reduce("_remote_sweep_base", "gkey VARCHAR, den HUGEINT, n BIGINT, s HUGEINT, s_abs HUGEINT", `
`+v+`
SELECT gkey, den, count(*) AS n, sum(num) AS s, sum(abs(num)) AS s_abs FROM v WHERE den IS NOT NULL GROUP BY gkey, den`); err != nil {
		return j, "", err
	}
	if j.bases, err = r.baselines(); err != nil {
		return j, "", err
	}
	if j.lits, ok = judgeLiterals(j.bases, j.fa); !ok {
		return j, "pulled: a baseline or threshold past the bound", nil
	}
	j.cmp = " > "
	if hypothesis.LowerBad(s.Metric) {
		j.cmp = " < "
	}
	return j, "", nil
}

// falsified is a window of v judged against th (tg for its group): 1
// falsified, 0 not (or without a value), NULL past a bound (never judged).
func (j judging) falsified() string {
	return `CASE WHEN v.den IS NULL OR v.num IS NULL THEN 0
                  WHEN abs(v.num) > coalesce(tg.nmax, th.nmax) OR v.den > coalesce(tg.dmax, th.dmax) THEN NULL
                  WHEN v.num * coalesce(tg.k, th.k)` + j.cmp + `v.den * coalesce(tg.c, th.c) THEN 1 ELSE 0 END`
}

// thresholdMillionths are each threshold's f and a in millionths.
func thresholdMillionths(ths []hypothesis.Bound) ([][2]*big.Int, error) {
	out := make([][2]*big.Int, len(ths))
	for i, t := range ths {
		f, a, err := t.Millionths()
		if err != nil {
			return nil, err
		}
		out[i] = [2]*big.Int{f, a}
	}
	return out, nil
}

// sparkValue is _metric_num and _metric_den in Spark SQL over windowsSelect's
// columns, as DECIMAL(38,0); throughput's den, a constant, is the caller's.
func sparkValue(metric string) (num, den string, ok bool) {
	dec := func(x string) string { return "CAST(" + x + " AS DECIMAL(38,0))" }
	switch metric {
	case "ok_share":
		return dec("ok"), dec("requests"), true
	case "error_rate":
		return dec("requests - ok"), dec("requests"), true
	case "mean":
		return dec("lat_sum"), dec("lat_n"), true
	case "throughput":
		return dec("requests") + " * 1000000", "", true
	}
	if metricThousandths[metric] == 0 {
		return "", "", false
	}
	return dec("lat_q"), "CASE WHEN lat_n > 0 THEN " + dec("1") + " END", true
}

// windowValues is windowsWith over the roles' sides, then win (its rows)
// and v: each window's role, group (gkey: the group's fields as JSON, one
// text per group; empty without --by), window_no, damage (tagged requests
// not ok), tagged, not_ok (requests not ok), and the metric's num and den
// (both NULL without a value, as side_windows has them).
func windowValues(s hypothesis.Sides, w hypothesis.Window, eg engineGroup, num, den string, roles ...string) string {
	gkey := "''"
	if len(eg.fields) > 0 {
		var parts []string
		for i := range eg.fields {
			parts = append(parts, fmt.Sprintf("'g%d', g%d", i, i))
		}
		gkey = "to_json(named_struct(" + strings.Join(parts, ", ") + "))"
	}
	return windowsWith(s, w, eg, roles...) + `,
win AS (` + windowsSelect(eg) + `),
nd AS (SELECT role` + eg.keys() + `, ` + gkey + ` AS gkey, window_no, damage, tagged, requests - ok AS not_ok, ` + num + ` AS num, ` + den + ` AS den FROM win),
v AS (SELECT role` + eg.keys() + `, gkey, window_no, damage, tagged, not_ok, CASE WHEN den > 0 THEN num END AS num, CASE WHEN den > 0 THEN den END AS den FROM nd)`
}

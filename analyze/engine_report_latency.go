package analyze

import (
	"fmt"
	"math"
	"strconv"

	"github.com/rewind-dev/rewind/engine"
	"github.com/rewind-dev/rewind/hypothesis"
)

// The report's latency reads on an engine: per group of latency rows (a
// run, a run's time bucket, a side) the counts, the largest latency, the
// sum for the mean and DuckDB's quantile_cont, picked exactly; and a run's
// dots. Each step's DuckDB twin is in report's Spark test.
//
// quantile_cont(x, q) over n values is, in DuckDB (1.5's
// QuantileInterpolator and InterpolateOperator for DOUBLE), with
// RN = (n - 1) · q in doubles, FRN = floor(RN) and CRN = ceil(RN): the
// value of 0-based rank FRN when FRN = CRN, else lo · (1 - d) + hi · d,
// lo and hi the values of ranks FRN and CRN and d = RN - FRN. The engine
// picks lo and hi by rank (pickAt, over the doubles' order as integers:
// latencyKey) and the in-memory database interpolates (quantileCont).

// LatencyStatsCols are the columns of a latency groups' table
// (ReportLatency): per group and bucket the rows, those ok and those with
// an outcome, the first seq, the first and last t_ms, the largest latency,
// the latencies' sum (each as DECIMAL(38,18): the mean's, within 1e-12 of
// the local floating-point sum) and p0, p1, … the quantiles asked for.
const LatencyStatsCols = "grp VARCHAR, bucket BIGINT, n BIGINT, ok BIGINT, outcomes BIGINT, min_seq BIGINT, min_t_ms DOUBLE, max_t_ms DOUBLE, max_ms DOUBLE, sum_ms DECIMAL(38,18)"

// LatencyRows is a Spark SELECT of the rows of experiment exp with a
// latency and a send time (the report's latency rows), grouped by run, or
// by run and floor(t_ms / bucketMs) when bucketMs > 0.
func LatencyRows(exp string, bucketMs float64) string {
	k := "0L"
	if bucketMs > 0 {
		k = "CAST(floor(t_ms / " + engine.Double(bucketMs) + ") AS BIGINT)"
	}
	return `SELECT run AS grp, ` + k + ` AS k, seq, t_ms, outcome, latency_ms FROM requests
WHERE experiment = ` + engine.String(exp) + ` AND latency_ms IS NOT NULL AND t_ms IS NOT NULL`
}

// SideLatencyRows is a Spark SELECT of the two sides' rows with a latency,
// grouped by side ("control", "experiment").
func SideLatencyRows(control, treatment hypothesis.Side) string {
	side := func(label string, s hypothesis.Side) string {
		return `SELECT ` + engine.String(label) + ` AS grp, 0L AS k, seq, t_ms, outcome, latency_ms FROM requests
WHERE ` + sparkSide(s) + ` AND latency_ms IS NOT NULL`
	}
	return side("control", control) + "\nUNION ALL\n" + side("experiment", treatment)
}

// ReportLatency loads the temporary table name (LatencyStatsCols, then
// p0, p1, … DOUBLE for qs) over rows (LatencyRows, SideLatencyRows): one
// row per group and bucket.
func (r *Remote) ReportLatency(name, rows string, qs []float64) error {
	if err := r.reduce(name+"_agg", LatencyStatsCols, `
SELECT grp, k AS bucket, count(*) AS n, count_if(outcome = 'ok') AS ok, count(outcome) AS outcomes, min(seq) AS min_seq,
       min(t_ms) AS min_t_ms, max(t_ms) AS max_t_ms, max(latency_ms) AS max_ms, sum(CAST(latency_ms AS DECIMAL(38,18))) AS sum_ms
FROM (`+rows+`) GROUP BY grp, k`); err != nil {
		return err
	}
	picks, err := r.pickAt(name+"_pick", latencyKeys(rows), 2048, func(n int64) []int64 {
		var ranks []int64
		for _, q := range qs {
			rn := float64(n-1) * q
			ranks = append(ranks, int64(math.Floor(rn))+1, int64(math.Ceil(rn))+1)
		}
		return ranks
	})
	if err != nil {
		return err
	}
	if _, err := r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP TABLE `+name+`_q (grp VARCHAR, bucket BIGINT, i INTEGER, lo DOUBLE, hi DOUBLE)`); err != nil {
		return err
	}
	for key, p := range picks {
		for i := range qs {
			if _, err := r.db.ExecContext(r.ctx, `INSERT INTO `+name+`_q VALUES (?, ?, ?, ?, ?)`,
				key.run, key.k, i, latencyOfKey(p.v[2*i]), latencyOfKey(p.v[2*i+1])); err != nil {
				return err
			}
		}
	}
	sel := "a.*"
	for i, q := range qs {
		sel += fmt.Sprintf(", max(%s) FILTER (WHERE q.i = %d) AS p%d", quantileCont("q.lo", "q.hi", "a.n", q), i, i)
	}
	_, err = r.db.ExecContext(r.ctx, `CREATE OR REPLACE TEMP TABLE `+name+` AS
SELECT `+sel+` FROM `+name+`_agg a LEFT JOIN `+name+`_q q USING (grp, bucket) GROUP BY ALL`)
	return err
}

// quantileCont is DuckDB's quantile_cont(x, q) over n values as SQL of
// the values lo and hi at 0-based ranks floor((n - 1) q) and ceil((n - 1) q):
// the same IEEE operations as its InterpolateOperator.
func quantileCont(lo, hi, n string, q float64) string {
	rn := "((" + n + " - 1)::DOUBLE * '" + strconv.FormatFloat(q, 'g', -1, 64) + "'::DOUBLE)"
	d := "(" + rn + " - floor(" + rn + "))"
	return "CASE WHEN floor(" + rn + ") = ceil(" + rn + ") THEN " + lo + " ELSE " + lo + " * (1.0::DOUBLE - " + d + ") + " + hi + " * " + d + " END"
}

// latencyKeys is rows (grp, k, latency_ms, …) as pickAt's series: run the
// group, k the bucket, v the latency as an integer of the same order
// (latencyKey), weight 1 (quantile_cont counts rows, not count).
func latencyKeys(rows string) string {
	return `
WITH r AS (` + rows + `),
a AS (SELECT grp, k, abs(latency_ms) AS a, latency_ms < 0D AS neg, CAST(floor(log2(abs(latency_ms))) AS INT) AS e0
      FROM r WHERE latency_ms <> 0D),
e AS (SELECT grp, k, a, neg,
             greatest(e0 - CASE WHEN pow(2D, e0) > a THEN 1 ELSE 0 END + CASE WHEN pow(2D, e0 + 1) <= a THEN 1 ELSE 0 END, -1022) AS e
      FROM a)
SELECT grp AS run, k, CASE WHEN neg THEN -1L ELSE 1L END
       * (CAST(e + 1022 AS BIGINT) * 4503599627370496L + CAST(a / pow(2D, e - 52) AS BIGINT)) AS v, 1L AS c FROM e
UNION ALL
SELECT grp AS run, k, 0L AS v, 1L AS c FROM r WHERE latency_ms = 0D`
}

// latencyKey is a latency as an integer of the same order: for x > 0 its
// IEEE 754 bits (exponent field e + 1023 times 2^52 plus the fraction;
// a subnormal's fraction alone), -key(-x) for x < 0 and 0 for ±0, which
// latencyKeys computes on the engine from the exponent, found by log2 and
// checked against exact powers of two, and the significand, an exact
// division by a power of two.
func latencyKey(x float64) int64 {
	if x == 0 {
		return 0
	}
	if x < 0 {
		return -int64(math.Float64bits(-x))
	}
	return int64(math.Float64bits(x))
}

// latencyOfKey is latencyKey's inverse.
func latencyOfKey(v int64) float64 {
	if v < 0 {
		return -math.Float64frombits(uint64(-v))
	}
	return math.Float64frombits(uint64(v))
}

// ReportDotsCols are the columns of _report_dots: a run's latency rows as
// they are, class 0 ok, 1 error, 2 no outcome.
const ReportDotsCols = "class INTEGER, t_ms DOUBLE, latency_ms DOUBLE, seq BIGINT"

// dotClass is the report's outcome class of a row as a small integer.
const dotClass = `CASE WHEN outcome = 'ok' THEN 0 WHEN outcome IS NULL THEN 2 ELSE 1 END`

// ReportDots loads _report_dots (ReportDotsCols): every latency row of run
// in experiment exp (the report asks for at most 100,000).
func (r *Remote) ReportDots(exp, run string) error {
	return r.reduce("_report_dots", ReportDotsCols, `SELECT `+dotClass+` AS class, t_ms, latency_ms, seq FROM requests
WHERE experiment = `+engine.String(exp)+` AND run = `+engine.String(run)+` AND latency_ms IS NOT NULL AND t_ms IS NOT NULL`)
}

// ReportDotSlicesCols are the columns of _report_dot_slices: per class and
// time slice, the t_ms of the fastest request (ties to the least seq) and
// its latency, and of the slowest (ties to the least seq) and its latency.
const ReportDotSlicesCols = "class INTEGER, slice BIGINT, t_lo DOUBLE, lo DOUBLE, t_hi DOUBLE, hi DOUBLE"

// ReportDotSlices loads _report_dot_slices (ReportDotSlicesCols) for run:
// slices of width w from t0, the last one taking the rest
// (least(floor((t_ms - t0) / w), last)), as the local report's.
func (r *Remote) ReportDotSlices(exp, run string, t0, w float64, last int64) error {
	return r.reduce("_report_dot_slices", ReportDotSlicesCols, `
SELECT class, slice, min_by(t_ms, named_struct('l', latency_ms, 's', seq)) AS t_lo, min(latency_ms) AS lo,
       max_by(t_ms, named_struct('l', latency_ms, 's', -seq)) AS t_hi, max(latency_ms) AS hi
FROM (SELECT `+dotClass+` AS class, t_ms, latency_ms, seq,
             least(CAST(floor((t_ms - `+engine.Double(t0)+`) / `+engine.Double(w)+`) AS BIGINT), `+engine.Int(last)+`) AS slice
      FROM requests WHERE experiment = `+engine.String(exp)+` AND run = `+engine.String(run)+`
        AND latency_ms IS NOT NULL AND t_ms IS NOT NULL)
GROUP BY class, slice`)
}

// DotClassName is the SQL that names a dot class (dotClass's integers) as
// the report does.
const DotClassName = `CASE class WHEN 0 THEN 'ok' WHEN 1 THEN 'error' ELSE 'no outcome' END`

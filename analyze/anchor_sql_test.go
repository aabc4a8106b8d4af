package analyze

import (
	"regexp"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/store"
)

// The anchor: the SQL library's macros as they were before issue 12 §2
// made them fast (queries/*.sql at a70b8ff, from each file's first CREATE
// on). The equality tests hold the library equal to it, and the analyses
// benchmark times it beside the library. installAnchor creates each macro
// with the prefix old_ (old_windows, old__role_rows, ...), calling the
// other anchor macros, never the library's.
var anchorFiles = []string{
	// queries/tag_hash.sql
	`CREATE OR REPLACE MACRO _u32(x) AS ((x::HUGEINT % 4294967296 + 4294967296) % 4294967296)::UBIGINT;
CREATE OR REPLACE MACRO _imul32(a, b) AS ((_u32(a) * _u32(b)) % 4294967296);
CREATE OR REPLACE MACRO _mix32(x, s, m) AS _imul32(xor(x, x >> s), m);
CREATE OR REPLACE MACRO tag_hash(seed, i) AS
    xor(_mix32(_mix32(xor(_u32(seed), _imul32(i + 1, 2654435761)), 16, 2246822507), 13, 3266489909),
        _mix32(_mix32(xor(_u32(seed), _imul32(i + 1, 2654435761)), 16, 2246822507), 13, 3266489909) >> 16)
    / 4294967296.0;
`,
	// queries/windows.sql
	`CREATE OR REPLACE MACRO _role_rows(exp, role_name) AS TABLE
    SELECT *, row_number() OVER (ORDER BY run, seq) - 1 AS pos
    FROM requests
    WHERE experiment = exp AND role = role_name;

CREATE OR REPLACE MACRO windows(exp, role_name, size_n := NULL, size_ms := NULL) AS TABLE
    SELECT
        CASE
            WHEN size_ms IS NOT NULL THEN floor(t_ms / size_ms)::BIGINT
            WHEN size_n IS NOT NULL THEN pos // size_n
            ELSE error('windows: give size_n (requests) or size_ms (milliseconds)')
        END + 1 AS window_no,
        min(t_ms) AS first_t_ms,
        max(t_ms) AS last_t_ms,
        sum(count)::BIGINT AS requests,
        coalesce(sum(count) FILTER (WHERE outcome = 'ok'), 0)::BIGINT AS ok,
        coalesce(sum(count) FILTER (WHERE tagged AND outcome <> 'ok'), 0)::BIGINT AS damage
    FROM _role_rows(exp, role_name)
    WHERE size_ms IS NULL OR t_ms IS NOT NULL
    GROUP BY ALL
    ORDER BY window_no;
`,
	// queries/blast_radius.sql
	`CREATE OR REPLACE MACRO experiment_window(exp, start_at) AS TABLE
    SELECT * EXCLUDE (pos), pos
    FROM _role_rows(exp, 'experiment')
    WHERE pos >= start_at;

CREATE OR REPLACE MACRO blast_radius(exp, start_at, planned) AS TABLE
    WITH w AS (
        SELECT coalesce(sum(count) FILTER (WHERE tagged), 0)::BIGINT AS measured,
               coalesce(sum(count), 0)::BIGINT AS window_requests,
               coalesce(sum(count) FILTER (WHERE outcome <> 'ok'), 0)::BIGINT AS damaged
        FROM experiment_window(exp, start_at)
    ),
    c AS (
        SELECT coalesce(sum(count) FILTER (WHERE outcome <> 'ok'), 0)::BIGINT AS control_damaged,
               coalesce(sum(count), 0)::BIGINT AS control_requests
        FROM _role_rows(exp, 'control')
    )
    SELECT planned::BIGINT AS planned, w.measured, w.window_requests,
           w.measured / nullif(planned, 0)::DOUBLE AS multiplier,
           w.damaged, c.control_damaged, c.control_requests
    FROM w, c;  -- one row: nothing to order
`,
	// queries/falsification.sql
	`CREATE OR REPLACE MACRO _window_counts(exp, size_n, size_ms) AS TABLE
    SELECT 'control' AS role, * FROM windows(exp, 'control', size_n := size_n, size_ms := size_ms)
    UNION ALL
    SELECT 'experiment' AS role, * FROM windows(exp, 'experiment', size_n := size_n, size_ms := size_ms);

-- The baseline as an exact fraction: sum of ok_i * (l / n_i) over w windows,
-- l the least common multiple of the window sizes.
CREATE OR REPLACE MACRO _baseline(exp, size_n, size_ms) AS TABLE
    SELECT count(*)::HUGEINT AS w, any_value(l) AS l, sum(ok::HUGEINT * (l // requests)) AS sl
    FROM windows(exp, 'control', size_n := size_n, size_ms := size_ms),
         (SELECT list_reduce(list(DISTINCT requests::HUGEINT), lambda a, b: lcm(a, b)) AS l
          FROM windows(exp, 'control', size_n := size_n, size_ms := size_ms));

-- ok / n < sl / (w l) - margin, multiplied out by n w l 10^6.
CREATE OR REPLACE MACRO _falsified(ok, n, sl, w, l, margin) AS
    ok::HUGEINT * w * l * 1000000
        < sl * 1000000 * n - round(margin * 1000000)::HUGEINT * w * l * n;

CREATE OR REPLACE MACRO falsification(exp, size_n := NULL, size_ms := NULL, margins := [0, 0.05, 0.10, 0.20]) AS TABLE
    WITH m AS (SELECT unnest(margins) AS margin),
    v AS (
        SELECT m.margin, c.role, c.window_no, _falsified(c.ok, c.requests, b.sl, b.w, b.l, m.margin) AS falsified,
               b.sl / (b.w * b.l) AS baseline
        FROM _window_counts(exp, size_n, size_ms) c, _baseline(exp, size_n, size_ms) b, m
        WHERE b.w > 0
    )
    SELECT margin::DOUBLE AS margin,
           any_value(baseline)::DOUBLE AS baseline,
           count(*) FILTER (WHERE role = 'control' AND falsified) AS control_falsified,
           count(*) FILTER (WHERE role = 'control') AS control_windows,
           count(*) FILTER (WHERE role = 'experiment' AND falsified) AS experiment_falsified,
           count(*) FILTER (WHERE role = 'experiment') AS experiment_windows,
           min(window_no) FILTER (WHERE role = 'experiment' AND falsified) AS first_falsified_window
    FROM v
    GROUP BY margin
    ORDER BY margin;
`,
	// queries/stop_damage.sql
	`CREATE OR REPLACE MACRO _streaks(exp, size_n, size_ms, margin) AS TABLE
    WITH v AS (
        SELECT c.window_no, c.requests, c.ok, c.damage,
               _falsified(c.ok, c.requests, b.sl, b.w, b.l, margin) AS falsified,
               row_number() OVER (ORDER BY c.window_no) AS ord
        FROM windows(exp, 'experiment', size_n := size_n, size_ms := size_ms) c, _baseline(exp, size_n, size_ms) b
        WHERE b.w > 0
    )
    SELECT *, ord - max(CASE WHEN falsified THEN 0 ELSE ord END) OVER (ORDER BY ord) AS streak
    FROM v;

CREATE OR REPLACE MACRO stop_damage(exp, size_n := NULL, size_ms := NULL, margin := 0.10, ks := [1, 2, 3, 4]) AS TABLE
    WITH s AS (SELECT * FROM _streaks(exp, size_n, size_ms, margin)),
    stops AS (
        SELECT k, (SELECT min(window_no) FROM s WHERE streak >= k) AS stop_window
        FROM (SELECT unnest(list_distinct(list_append(ks, 1))) AS k)
    ),
    dmg AS (
        SELECT k, stop_window,
               (SELECT coalesce(sum(damage), 0) FROM s WHERE stop_window IS NULL OR window_no <= stop_window) AS damage_until_stop
        FROM stops
    )
    SELECT k::BIGINT AS k, stop_window,
           damage_until_stop::BIGINT AS damage_until_stop,
           (damage_until_stop - (SELECT damage_until_stop FROM dmg WHERE k = 1))::BIGINT AS extra_over_k1,
           (SELECT coalesce(sum(damage), 0) FROM s)::BIGINT AS total_damage
    FROM dmg
    WHERE list_contains(ks, k)
    ORDER BY k;
`,
	// queries/peaks.sql
	`CREATE OR REPLACE MACRO _peak_resolutions(resolutions_ms) AS TABLE
    SELECT DISTINCT CASE WHEN r > 0 THEN r ELSE error('peaks: resolutions must be positive ms, got ' || r) END AS res
    FROM (SELECT unnest(resolutions_ms)::BIGINT AS r);

-- Requests per distinct t_ms of each run: the points both kinds of peak add up.
CREATE OR REPLACE MACRO _peak_points(exp) AS TABLE
    SELECT run, t_ms, sum(count)::BIGINT AS n
    FROM requests
    WHERE experiment = exp AND t_ms IS NOT NULL
    GROUP BY ALL;

CREATE OR REPLACE MACRO _aligned_peaks(exp, resolutions_ms) AS TABLE
    WITH buckets AS (
        SELECT p.run, r.res, floor(p.t_ms / r.res)::BIGINT AS k, sum(p.n)::BIGINT AS n
        FROM _peak_points(exp) p, _peak_resolutions(resolutions_ms) r
        GROUP BY ALL
    )
    SELECT run, res, n AS peak, k * res AS peak_at_ms, sum(n) OVER (PARTITION BY run, res)::BIGINT AS total
    FROM buckets
    QUALIFY row_number() OVER (PARTITION BY run, res ORDER BY n DESC, k) = 1;

-- A RANGE frame is closed, [t, t + res]; the requests at exactly t + res are
-- subtracted to make it half-open.
CREATE OR REPLACE MACRO _sliding_peaks(exp, resolutions_ms) AS TABLE
    WITH pts AS (SELECT * FROM _peak_points(exp)),
    closed AS (
        SELECT p.run, r.res, p.t_ms,
               sum(p.n) OVER (PARTITION BY p.run, r.res ORDER BY p.t_ms
                              RANGE BETWEEN CURRENT ROW AND r.res FOLLOWING) AS n
        FROM pts p, _peak_resolutions(resolutions_ms) r
    )
    SELECT c.run, c.res, (c.n - coalesce(e.n, 0))::BIGINT AS n, c.t_ms
    FROM closed c LEFT JOIN pts e ON e.run = c.run AND e.t_ms = c.t_ms + c.res
    QUALIFY row_number() OVER (PARTITION BY c.run, c.res ORDER BY c.n - coalesce(e.n, 0) DESC, c.t_ms) = 1;

CREATE OR REPLACE MACRO peaks(exp, resolutions_ms, sliding := false) AS TABLE
    SELECT a.run, a.res AS resolution_ms, a.peak, a.peak_at_ms, a.total,
           s.n AS sliding_peak, s.t_ms AS sliding_at_ms
    FROM _aligned_peaks(exp, resolutions_ms) a
    LEFT JOIN (SELECT * FROM _sliding_peaks(exp, resolutions_ms) WHERE sliding) s
        ON s.run = a.run AND s.res = a.res
    ORDER BY a.run, a.res;
`,
	// queries/retries.sql
	`CREATE OR REPLACE MACRO _retry_ops(exp) AS TABLE
    SELECT run,
           min(t_ms) AS start_ms,
           (max(t_ms::DECIMAL(18,6) + latency_ms::DECIMAL(18,6)) - min(t_ms::DECIMAL(18,6)))::DOUBLE AS op_ms,
           bool_or(outcome = 'ok') AS ok
    FROM requests
    WHERE experiment = exp
    GROUP BY run, coalesce(req::VARCHAR, 't:' || req_text, 'seq:' || seq);

CREATE OR REPLACE MACRO _retry_attempts(exp) AS TABLE
    SELECT run,
           sum(count)::BIGINT AS requests,
           coalesce(sum(count) FILTER (WHERE attempt = 0), 0)::BIGINT AS first_attempts,
           coalesce(sum(count) FILTER (WHERE attempt > 0), 0)::BIGINT AS retries,
           coalesce(sum(count) FILTER (WHERE drop_reason = 'budget'), 0)::BIGINT AS budget_denied
    FROM requests
    WHERE experiment = exp
    GROUP BY run;

CREATE OR REPLACE MACRO retries(exp, affected_from_ms, affected_to_ms) AS TABLE
    WITH ops AS (
        SELECT run,
               count(*) FILTER (WHERE start_ms >= affected_from_ms AND start_ms < affected_to_ms) AS affected_ops,
               count(*) FILTER (WHERE start_ms >= affected_from_ms AND start_ms < affected_to_ms AND ok) AS affected_ok,
               quantile_cont(op_ms, 0.95) AS p95_ms,
               quantile_cont(op_ms, 0.99) AS p99_ms
        FROM _retry_ops(exp)
        GROUP BY run
    )
    SELECT a.run, a.requests, a.first_attempts, a.retries, a.budget_denied,
           o.affected_ops::BIGINT AS affected_ops,
           CASE WHEN o.affected_ops > 0 THEN o.affected_ok / o.affected_ops END AS affected_success,
           o.p95_ms, o.p99_ms
    FROM _retry_attempts(exp) a JOIN ops o USING (run)
    ORDER BY a.run;
`,
	// queries/amplification.sql
	`CREATE OR REPLACE MACRO _amplification_params(exp, runs_glob, tick_ms, fault_from_ms, fault_to_ms, normal_rate) AS TABLE
    SELECT r.run,
           (r.params ->> 'allowed')::BIGINT AS allowed,
           coalesce(tick_ms, (r.params ->> 'tick_ms')::DOUBLE, (e.params ->> 'tick_ms')::DOUBLE) AS tick,
           coalesce(fault_from_ms, (r.params ->> 'fault_from_ms')::DOUBLE, (e.params ->> 'fault_from_ms')::DOUBLE) AS from_ms,
           coalesce(fault_to_ms, (r.params ->> 'fault_to_ms')::DOUBLE, (e.params ->> 'fault_to_ms')::DOUBLE) AS to_ms,
           coalesce(normal_rate, (r.params ->> 'normal_rate')::DOUBLE, (e.params ->> 'normal_rate')::DOUBLE) AS normal
    FROM runs r LEFT JOIN experiments e ON e.experiment = r.experiment
    WHERE r.experiment = exp AND (runs_glob IS NULL OR r.run GLOB runs_glob);

-- The run's calls with their tick and whether they were retried.
CREATE OR REPLACE MACRO _amplification_calls(exp, runs_glob, tick_ms, fault_from_ms, fault_to_ms, normal_rate) AS TABLE
    SELECT q.run, q.seq, q.attempt, q.t_ms, q.count, q.outcome,
           floor(q.t_ms / p.tick)::BIGINT AS tick_no,
           q.outcome IS NOT NULL AND q.outcome <> 'ok'
               AND NOT coalesce(q.retried, q.attempt < max(q.attempt) OVER (PARTITION BY q.run, q.req)) AS dropped,
           q.t_ms >= p.from_ms AND q.t_ms < p.to_ms AS in_fault
    FROM requests q
    JOIN _amplification_params(exp, runs_glob, tick_ms, fault_from_ms, fault_to_ms, normal_rate) p ON p.run = q.run
    WHERE q.experiment = exp;

CREATE OR REPLACE MACRO amplification(exp, runs_glob := NULL, tick_ms := NULL, fault_from_ms := NULL,
                                      fault_to_ms := NULL, normal_rate := NULL) AS TABLE
    WITH c AS (
        SELECT * FROM _amplification_calls(exp, runs_glob, tick_ms, fault_from_ms, fault_to_ms, normal_rate)
    ),
    peaks AS (
        SELECT run, max(calls)::BIGINT AS peak
        FROM (SELECT run, tick_no, sum(count) AS calls FROM c WHERE tick_no IS NOT NULL GROUP BY ALL)
        GROUP BY run
    ),
    totals AS (
        SELECT run, min(seq) AS first_seq,
               coalesce(sum(count) FILTER (WHERE attempt = 0), 0)::BIGINT AS requests,
               sum(count)::BIGINT AS calls,
               coalesce(sum(count) FILTER (WHERE outcome = 'ok'), 0)::BIGINT AS succeeded,
               coalesce(sum(count) FILTER (WHERE dropped), 0)::BIGINT AS dropped,
               coalesce(sum(count) FILTER (WHERE in_fault), 0) AS fault_calls
        FROM c
        GROUP BY run
    ),
    rated AS (
        SELECT t.*, p.allowed, p.normal,
               CASE WHEN p.to_ms <= p.from_ms
                    THEN error('amplification: run ' || t.run || ': fault window ends before it starts')
                    ELSE t.fault_calls / ((p.to_ms - p.from_ms) / p.tick) END AS window_rate
        FROM totals t JOIN _amplification_params(exp, runs_glob, tick_ms, fault_from_ms, fault_to_ms, normal_rate) p
            ON p.run = t.run
    )
    SELECT r.run, r.allowed, r.requests, r.calls,
           r.calls / nullif(r.requests, 0)::DOUBLE AS multiplier,
           k.peak AS peak_calls_per_tick,
           r.succeeded, r.dropped,
           r.window_rate::DOUBLE AS window_calls_per_tick,
           (r.window_rate / r.normal)::DOUBLE AS x_normal
    FROM rated r LEFT JOIN peaks k ON k.run = r.run
    ORDER BY r.first_seq, r.run;
`,
	// queries/burn_rate.sql at 29be30c, before the bucket bound
	`CREATE OR REPLACE MACRO _br_default_rules() AS
    [{name: '5m/1h>14.4', short_ms: 300000, long_ms: 3600000, factor: 14.4::DECIMAL(18,6)},
     {name: '30m/6h>6', short_ms: 1800000, long_ms: 21600000, factor: 6::DECIMAL(18,6)},
     {name: '6h/3d>1', short_ms: 21600000, long_ms: 259200000, factor: 1::DECIMAL(18,6)}];

-- Per run and ns of test time at which requests ended: requests and bad ones.
CREATE OR REPLACE MACRO _br_points(exp, good) AS TABLE
    WITH q AS (
        SELECT run, round(t_ms * 1e6)::BIGINT AS send_ns,
               round(t_ms * 1e6)::BIGINT + coalesce(round(latency_ms * 1e6)::BIGINT, 0) AS end_ns,
               count, (good) AS g
        FROM requests
        WHERE experiment = exp AND t_ms IS NOT NULL
    ),
    p AS (
        SELECT run, end_ns - min(send_ns) OVER (PARTITION BY run) AS t, count, g FROM q
    )
    SELECT run, t, coalesce(sum(count) FILTER (WHERE g IS NOT NULL), 0)::BIGINT AS n,
           coalesce(sum(count) FILTER (WHERE NOT g), 0)::BIGINT AS bad
    FROM p GROUP BY run, t;

CREATE OR REPLACE MACRO burn_rate(exp, good, slo := 0.999, rules := _br_default_rules(),
                                  period_ms := 2592000000, step_ms := NULL, partial := false) AS TABLE
    WITH pts AS MATERIALIZED (SELECT * FROM _br_points(exp, good)),
    runs AS (SELECT run, max(t) AS dur, sum(n)::BIGINT AS total, sum(bad)::BIGINT AS bad_total FROM pts GROUP BY run),
    r AS (SELECT id, unnest(s) FROM (SELECT unnest(rules) AS s, generate_subscripts(rules, 1) AS id)),
    rr AS (
        SELECT id, name, round(short_ms * 1e6)::BIGINT AS short_ns, round(long_ms * 1e6)::BIGINT AS long_ns,
               factor::DECIMAL(18,6) * (1 - slo::DECIMAL(18,9)) AS thr
        FROM r
        WHERE CASE WHEN NOT (short_ms > 0 AND long_ms > 0 AND factor >= 0 AND slo > 0 AND slo < 1)
                   THEN error('burn_rate: windows must be positive, factor not negative, slo in (0, 1)') ELSE true END
    ),
    -- every moment a window's content changes: a request ends, or leaves a
    -- window; and when the long window first lies within the run. With
    -- step_ms, every step instead.
    cand AS (
        SELECT p.run, rr.id, p.t FROM pts p, rr WHERE step_ms IS NULL
        UNION
        SELECT p.run, rr.id, p.t + rr.short_ns FROM pts p, rr WHERE step_ms IS NULL
        UNION
        SELECT p.run, rr.id, p.t + rr.long_ns FROM pts p, rr WHERE step_ms IS NULL
        UNION
        SELECT run, rr.id, rr.long_ns FROM runs, rr WHERE step_ms IS NULL AND NOT partial
        UNION
        SELECT run, rr.id, k * round(step_ms * 1e6)::BIGINT
        FROM runs, rr, range(1, CASE WHEN step_ms IS NULL THEN 1 ELSE dur // round(step_ms * 1e6)::BIGINT + 1 END) s(k)
    ),
    -- the windows' counts at each candidate T from running sums over the
    -- points, read at T, T - short and T - long by probes sorted in among
    -- them (a probe adds nothing; one at the same time as a point comes
    -- after it): one sort and a streaming sum, where a RANGE frame of w
    -- would be superlinear. Times are integer ns, so (T - w, T] is exact.
    probes AS (
        SELECT c.run, c.id, c.t AS tc, k.k,
               c.t - CASE k.k WHEN 0 THEN 0 WHEN 1 THEN rr.short_ns ELSE rr.long_ns END AS pos
        FROM cand c JOIN rr USING (id) JOIN runs USING (run), (SELECT unnest([0, 1, 2]) AS k) k
        WHERE c.t <= runs.dur AND (partial OR c.t >= rr.long_ns)
    ),
    cum AS (
        SELECT id, tc, k, sum(n) OVER o AS cn, sum(bad) OVER o AS cb, run
        FROM (SELECT run, t AS pos, n, bad, NULL::BIGINT AS id, NULL::BIGINT AS tc, NULL::INTEGER AS k FROM pts
              UNION ALL
              SELECT run, pos, 0, 0, id, tc, k FROM probes)
        WINDOW o AS (PARTITION BY run ORDER BY pos)
    ),
    w AS (
        SELECT c.run, c.id, c.tc AS t, rr.thr,
               (max(cn) FILTER (WHERE k = 0) - max(cn) FILTER (WHERE k = 1))::BIGINT AS n_s,
               (max(cb) FILTER (WHERE k = 0) - max(cb) FILTER (WHERE k = 1))::BIGINT AS bad_s,
               (max(cn) FILTER (WHERE k = 0) - max(cn) FILTER (WHERE k = 2))::BIGINT AS n_l,
               (max(cb) FILTER (WHERE k = 0) - max(cb) FILTER (WHERE k = 2))::BIGINT AS bad_l,
               max(cn) FILTER (WHERE k = 0)::BIGINT AS n_t, max(cb) FILTER (WHERE k = 0)::BIGINT AS bad_t
        FROM cum c JOIN rr USING (id)
        WHERE c.id IS NOT NULL
        GROUP BY c.run, c.id, c.tc, rr.thr
    ),
    fired AS (
        SELECT run, id, min({t: t, n_s: n_s, bad_s: bad_s, n_l: n_l, bad_l: bad_l, n_t: n_t, bad_t: bad_t}) AS f
        FROM w
        WHERE bad_s > thr * n_s AND bad_l > thr * n_l
        GROUP BY run, id
    )
    SELECT runs.run, rr.name AS rule, f.f.t / 1e6 AS fired_at_ms,
           -- one rounding each: the budget in billionths is an integer
           (f.f.bad_s::HUGEINT * 1000000000)::DOUBLE / (f.f.n_s::HUGEINT * b.units)::DOUBLE AS short_burn,
           (f.f.bad_l::HUGEINT * 1000000000)::DOUBLE / (f.f.n_l::HUGEINT * b.units)::DOUBLE AS long_burn,
           f.f.n_t AS requests_before, f.f.bad_t AS failed_before,
           (f.f.bad_t::HUGEINT * 1000000000 * greatest(runs.dur, 1))::DOUBLE
               / (b.units::HUGEINT * runs.total * round(period_ms * 1e6)::BIGINT)::DOUBLE AS budget_consumed,
           runs.bad_total AS failed_total,
           CASE WHEN f.f IS NOT NULL THEN NULL
                WHEN NOT partial AND rr.long_ns > runs.dur THEN 'long window longer than the run'
                ELSE 'did not fire' END AS note
    FROM runs CROSS JOIN rr
    CROSS JOIN (SELECT ((1 - slo::DECIMAL(18,9)) * 1000000000)::BIGINT AS units) b
    LEFT JOIN fired f ON f.run = runs.run AND f.id = rr.id
    ORDER BY runs.run, rr.id;
`,
}

var anchorMacroRE = regexp.MustCompile(`CREATE OR REPLACE MACRO ([a-z_0-9]+)\(`)

// anchorSQL is the anchor with every macro renamed old_NAME, in dependency
// order (the files above are).
func anchorSQL() string {
	all := strings.Join(anchorFiles, "\n")
	var names []string
	for _, m := range anchorMacroRE.FindAllStringSubmatch(all, -1) {
		names = append(names, regexp.QuoteMeta(m[1]))
	}
	ref := regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\(`)
	return ref.ReplaceAllString(all, "old_$1(")
}

// installAnchor creates the anchor macros in db; they are stored in the
// file, so every pooled connection sees them.
func installAnchor(tb testing.TB, db *store.DB) {
	tb.Helper()
	if _, err := db.Exec(anchorSQL()); err != nil {
		tb.Fatalf("install anchor: %v", err)
	}
}

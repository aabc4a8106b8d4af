# bench/spark.sh's and bench/sparkcores.sh's list of analyses; sourced
# after $tmp is made.
source bench/icount_lib.sh # argo: the gate's Argo template, BenchmarkGate's
printf '%s\n' "$argo" >"$tmp/argo.yaml"

# analyses: NAME|ARGS (shell words; $ARGO expanded), bench/icount_lib.sh's
# commands in the forms Spark runs (omission's back-fill takes
# --expected-interval there).
analyses='blast-radius|blast-radius
peaks|peaks
peaks-sliding|peaks --resolutions 100ms,1s --sliding
peaks-by|peaks --by outcome,tagged
falsification|falsification
falsification-p95|falsification --metric p95 --window 1s --tolerance 20%
falsification-by|falsification --by outcome,tagged
stop-damage|stop-damage
stop-damage-by|stop-damage --by outcome,tagged
thresholds|thresholds --threshold "http_req_duration: p(95)<200"
burn-rate|burn-rate --slo 99% --rules "1s/10s>5"
burn-rate-by|burn-rate --slo 99% --rules "1s/10s>5" --by outcome,tagged
judge|judge --step 1s
judge-by|judge --step 1s --by outcome,tagged
gate-argo|gate --argo "$ARGO" --metric success-rate=ok_share,p95=p95
omission|omission --expected-interval 2ms
retries|retries
retries-by|retries --by outcome,tagged
amplification|amplification --tick 1s
amplification-by|amplification --tick 1s --by outcome,tagged'
ARGO=$tmp/argo.yaml

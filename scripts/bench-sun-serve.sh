#!/usr/bin/env bash
# make bench's load on the SUN verification service: `nfctag-provision sdm serve` (what `nfctag sdm
# serve` execs) on LEDGER (a file: SQLite; a postgres:// URL), driven by wrk with CONNECTIONS
# connections (64) on 2 threads for SECONDS (10). Every request is a tap of a tag of its own
# (Benchmarks/SUNServeBench), so each is a fresh verification: NTAG424's verifier and one counter
# insert in the ledger. Prints verifications per second, the latency percentiles wrk measured
# (--latency) and, from the service's /metrics, how many answers were fresh.
#   scripts/bench-sun-serve.sh BIN_DIR LEDGER LABEL
set -euo pipefail
bin=$1 ledger=$2 label=$3
connections=${BENCH_SUN_CONNECTIONS:-64} seconds=${BENCH_SUN_SECONDS:-10} requests=${BENCH_SUN_REQUESTS:-400000}
work=$(pwd)/.build-bench/sun-serve
mkdir -p "$work"
case "$ledger" in postgres://*|postgresql://*) ;; *) rm -f "$ledger" "$ledger-wal" "$ledger-shm" ;; esac
"$bin/SUNServeBench" "$ledger" "$work/paths.txt" "$requests"
SUN_BENCH_MASTER=00112233445566778899aabbccddeeff "$bin/nfctag-provision" sdm serve --listen 127.0.0.1:0 \
  --master-key-env SUN_BENCH_MASTER --ledger "$ledger" --job sun-bench >"$work/serve.out" 2>"$work/serve.err" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null || true' EXIT
port=
for _ in $(seq 100); do
  port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$work/serve.out")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "$label: sdm serve did not start: $(cat "$work/serve.err")"; exit 1; }
wrk -t2 -c"$connections" -d"${seconds}s" --latency -s scripts/sun-serve-wrk.lua "http://127.0.0.1:$port" -- "$work/paths.txt" 2 \
  >"$work/wrk-$label.txt"
metrics=$(curl -s "http://127.0.0.1:$port/metrics")
kill -TERM $pid
wait $pid || { echo "$label: sdm serve did not stop cleanly on SIGTERM"; exit 1; }
trap - EXIT
rate=$(awk '/^Requests\/sec:/ {printf "%d", $2}' "$work/wrk-$label.txt")
p50=$(awk '/^ +50%/ {print $2}' "$work/wrk-$label.txt")
p99=$(awk '/^ +99%/ {print $2}' "$work/wrk-$label.txt")
errors=$(grep -E "Non-2xx|Socket errors" "$work/wrk-$label.txt" | tr -s ' ' | paste -sd ';' || true)
fresh=$(sed -n 's/^nfctag_sun_verifications_total{outcome="fresh"} \([0-9]*\)$/\1/p' <<<"$metrics")
total=$(sed -n 's/^nfctag_sun_verification_duration_seconds_count \([0-9]*\)$/\1/p' <<<"$metrics")
echo "$label: $rate verifications/s with $connections connections, p50 $p50, p99 $p99; $fresh of $total answers fresh${errors:+; $errors}"

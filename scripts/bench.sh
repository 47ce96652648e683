#!/usr/bin/env bash
# Benchmarks: in-process codec throughput and reader round trips (Benchmarks/NFCBench), the APDU
# round trip through pcscd + vpcd to `nfctag emulate` (median, p90, p99, max over 1,000), then the
# CLI's `ndef decode --lines` beside Python's ndeflib decoding the same messages, in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product nfctag >/dev/null
swift build -c release --product NFCBench >/dev/null
bin=$(swift build -c release --show-bin-path)
echo "== in-process (NFCBench)"
"$bin/NFCBench"

# pcscd is one per machine: the vpcd part takes the e2e lock itself (set NFCTAG_E2E_LOCK_HELD=1 when
# the caller already holds it, or flock would wait for itself).
echo
echo "== APDU round trip through pcscd + vpcd (nfctag emulate --latency none, Virtual PCD 00 00, 1,000 GET DATA; goal: median <= 2 ms)"
if [ "${NFCTAG_E2E_LOCK_HELD:-0}" = 1 ]; then
  scripts/vpcd-bench.sh "$bin/nfctag" 1000
else
  flock "${NFCTAG_E2E_LOCK:-/tmp/nfctag-e2e.lock}" scripts/vpcd-bench.sh "$bin/nfctag" 1000
fi

work=.build-bench
mkdir -p "$work"
if [ ! -x "$work/venv/bin/python" ]; then
  python3 -m venv "$work/venv"
  "$work/venv/bin/pip" install -q ndeflib
fi
py="$work/venv/bin/python"
lines=${BENCH_LINES:-200000}
"$py" scripts/bench_ndeflib.py generate "$lines" > "$work/messages.hex"

echo
echo "== nfctag ndef decode --lines vs ndeflib: $lines messages (text, URI, smart poster, MIME + AAR)"
t0=$(date +%s.%N)
"$bin/nfctag" ndef decode --lines < "$work/messages.hex" > "$work/nfctag.out"
t1=$(date +%s.%N)
"$py" scripts/bench_ndeflib.py decode < "$work/messages.hex" > "$work/ndeflib.out"
t2=$(date +%s.%N)
python3 - "$lines" "$t0" "$t1" "$t2" "$(wc -l < "$work/nfctag.out")" "$(wc -l < "$work/ndeflib.out")" <<'PY'
import sys
n, t0, t1, t2, a, b = int(sys.argv[1]), *map(float, sys.argv[2:5]), sys.argv[5], sys.argv[6]
ours, theirs = n / (t1 - t0), n / (t2 - t1)
print("nfctag:  %9d messages/s (%s lines out)" % (ours, a))
print("ndeflib: %9d messages/s (%s lines out)" % (theirs, b))
print("ratio:   %.1fx (goal: at least 12x)" % (ours / theirs))
PY

#!/usr/bin/env bash
# Benchmarks: in-process codec throughput and reader round trips (Benchmarks/NFCBench), then the
# CLI's `ndef decode --lines` beside Python's ndeflib decoding the same messages, in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product nfctag >/dev/null
swift build -c release --product NFCBench >/dev/null
bin=$(swift build -c release --show-bin-path)
echo "== in-process (NFCBench)"
"$bin/NFCBench"

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

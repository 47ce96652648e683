#!/usr/bin/env bash
# The APDU round trip through pcscd + vpcd: `nfctag emulate --latency none` on "Virtual PCD 00 00"
# and 1,000 GET DATA from pyscard (scripts/vpcd-roundtrip.py). Usage: vpcd-bench.sh NFCTAG [COUNT]
# pcscd is shared by the machine: scripts/bench.sh runs this under the e2e lock.
set -euo pipefail
cd "$(dirname "$0")/.."
nfctag=$1
count=${2:-1000}
log=$(mktemp)
"$nfctag" emulate --tag ntag215 --latency none --vpcd 127.0.0.1:35963 2>"$log" &
emulator=$!
trap 'kill -INT $emulator 2>/dev/null; wait $emulator 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 1 50); do grep -q emulating "$log" && break; sleep 0.1; done
if ! grep -q emulating "$log"; then cat "$log" >&2; exit 1; fi
/usr/bin/python3 scripts/vpcd-roundtrip.py "Virtual PCD 00 00" "$count"
